import type { Context } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PushedFix } from '../../src/jobs/ci-verdict-follower.js';
import { assertGitHubMocksDone, blockNetwork } from '../helpers/github-api.js';
import { deliver, example, INSTALLATION_ID, testApp } from '../helpers/probot.js';

type SuitePayload = Context<'check_suite.completed'>['payload'];

/**
 * GitHub's check_suite.completed example (Codertocat/Hello-World, the
 * `octocoders-linter` app's suite on `changes`), moved to one of the App's
 * branches and given the app slug `slug`.
 */
function suiteCompleted(slug: string | undefined, branch = 'selfdebug/issue-12-tally'): SuitePayload {
  const payload = example<SuitePayload>('check_suite', 'completed');
  payload.check_suite.head_branch = branch;
  payload.check_suite.conclusion = 'failure';
  const app = payload.check_suite.app as { slug?: string };
  if (slug === undefined) delete app.slug;
  else app.slug = slug;
  return payload;
}

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe('check_suite.completed', () => {
  /** A test App whose follower records what it is told, and asks GitHub nothing (no mock answers). */
  async function appTelling() {
    const told: PushedFix[] = [];
    const app = await testApp({ ciVerdicts: { runCompleted: async (fix) => void told.push(fix) } });
    return { app, told };
  }

  it("hands another app's suite on the App's branch to the follower, whatever its conclusion", async () => {
    const { app, told } = await appTelling();
    await deliver(app, 'check_suite', suiteCompleted('circleci-checks'));
    await deliver(app, 'check_suite', suiteCompleted(undefined));
    const fix = {
      installationId: INSTALLATION_ID,
      repository: 'Codertocat/Hello-World',
      sha: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
    };
    expect(told).toEqual([fix, fix]);
    // Never a job: a new round starts from a failed workflow run, whose log it reads.
    expect(app.enqueued).toEqual([]);
  });

  it("leaves GitHub Actions' suites to workflow_run, the App's own suite, and other branches alone", async () => {
    const { app, told } = await appTelling();
    await deliver(app, 'check_suite', suiteCompleted('github-actions'));
    await deliver(app, 'check_suite', suiteCompleted('SelfDebug'));
    await deliver(app, 'check_suite', suiteCompleted('circleci-checks', 'main'));
    const fromFork = suiteCompleted('circleci-checks');
    fromFork.check_suite.head_branch = null;
    await deliver(app, 'check_suite', fromFork);
    expect(told).toEqual([]);
    expect(app.enqueued).toEqual([]);
  });
});
