import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect } from 'vitest';
import {
  ACTION_TIMEOUT,
  FIXED_STATS,
  PROJECT,
  runSimulated,
  simulateRunner,
  useActionWorld,
} from '../action/harness.js';
import type { GitHubStandin } from '../fakes/github-standin/standin.js';
import { assertGitHubMocksDone, blockNetwork, GITHUB_API, githubApi } from '../helpers/github-api.js';
import { attackSuite } from './attack-table.js';

const BASE = { id: 1, full_name: 'octo-org/app' };
const FORK = { id: 2, full_name: 'mallory/app' };
const SHA = 'f'.repeat(40);
const yamlHeaders = { 'content-type': 'text/plain; charset=utf-8' };

/** What GitHub sends a `workflow_run` workflow when CI failed on a pull request from mallory/app. */
function forkWorkflowRun() {
  return {
    eventName: 'workflow_run',
    event: {
      action: 'completed',
      repository: BASE,
      sender: { login: 'mallory', type: 'User' },
      workflow_run: {
        id: 4242,
        name: 'CI',
        head_branch: 'feature',
        head_sha: SHA,
        run_attempt: 1,
        actor: { login: 'mallory', type: 'User' },
        repository: BASE,
        head_repository: FORK,
        pull_requests: [],
      },
    },
    ref: 'refs/heads/main',
  };
}

/**
 * GitHub is strict nock (no route but the ones a test names; every other call fails the test); the
 * git server is a closed loopback port, so any clone or push fails the run.
 */
const noGitServer = { host: '127.0.0.1:9', apiUrl: GITHUB_API } as unknown as GitHubStandin;

describe("the Action on a fork's pull request", () => {
  const world = useActionWorld();
  const attack = attackSuite('action forks');
  beforeEach(() => blockNetwork());
  afterEach(() => assertGitHubMocksDone());

  /** The fork's checkout, whose own settings would run `touch` on the runner if anything read them. */
  async function forkCheckout() {
    const { root, workspace } = await world.checkedOut('selfdebug-fork-', {
      ...PROJECT,
      '.github/selfdebug.yml': `command: touch ${'WITNESS'}\nsetup:\n  - touch SETUP_WITNESS\n`,
    });
    const files = (await readFile(join(workspace, '.github/selfdebug.yml'), 'utf8'))
      .replace('WITNESS', join(root, 'command-ran'))
      .replace('SETUP_WITNESS', join(root, 'setup-ran'));
    await import('node:fs/promises').then(({ writeFile }) =>
      writeFile(join(workspace, '.github/selfdebug.yml'), files),
    );
    return { root, workspace };
  }

  const ran = (root: string, name: string) =>
    access(join(root, name)).then(
      () => true,
      () => false,
    );

  attack(
    "a workflow_run of a fork's failed pull request: its code run with the key and a token that can push",
    'the event names another head repository: a neutral skip before any config, sandbox, model or push',
    async () => {
      const model = await world.model([]);
      const { root, workspace } = await forkCheckout();
      const simulated = await simulateRunner(root, noGitServer, {
        repository: BASE.full_name,
        workspace,
        ...forkWorkflowRun(),
        runId: 5000,
        sha: SHA,
        inputs: {
          'api-key': 'test-key',
          'base-url': model.url,
          sandbox: 'runner',
          'github-token': 'ghs_job',
        },
      });

      const { code, log } = await runSimulated(simulated.env);

      expect(code).toBe(0);
      expect(log).not.toContain('::error::');
      expect(log).not.toContain('UNSAFE');
      const summary = await readFile(simulated.summaryPath, 'utf8');
      expect(summary).toContain('the failed code comes from mallory/app, a fork, not this repository');
      expect(summary).toContain('`allow-forks: true`');
      expect(model.requests).toEqual([]);
      expect(await ran(root, 'command-ran')).toBe(false);
      expect(await ran(root, 'setup-ran')).toBe(false);
    },
  );

  attack(
    "allow-forks: the fork's own .github/selfdebug.yml choosing commands, and a fix pushed to the base repository",
    'settings read from the default branch through the API; suggestions on the pull request only',
    async () => {
      const model = await world.model();
      const { root, workspace } = await forkCheckout();
      githubApi()
        .get('/repos/octo-org/app/contents/.github%2Fselfdebug.yml')
        .reply(200, 'command: python3 stats.py\n', yamlHeaders)
        .get('/repos/octo-org/app/pulls')
        .query({ state: 'open', head: 'mallory:feature' })
        .reply(200, [{ number: 7, head: { sha: SHA, ref: 'feature' }, base: { ref: 'main' } }])
        .get('/repos/octo-org/app/pulls/7/files')
        .query(true)
        .reply(200, [{ filename: 'stats.py', status: 'modified', patch: '@@ -1,4 +1,4 @@\n-x\n+y\n' }])
        .post('/repos/octo-org/app/pulls/7/reviews', (body: { event?: string; comments?: unknown[] }) => {
          return body.event === 'COMMENT' && JSON.stringify(body).includes('import statistics');
        })
        .reply(200, { id: 1, html_url: 'https://github.com/octo-org/app/pull/7#pullrequestreview-1' });
      const simulated = await simulateRunner(root, noGitServer, {
        repository: BASE.full_name,
        workspace,
        ...forkWorkflowRun(),
        runId: 5000,
        sha: SHA,
        inputs: {
          'api-key': 'test-key',
          'base-url': model.url,
          sandbox: 'runner',
          'github-token': 'ghs_job',
          'allow-forks': 'true',
        },
      });

      const { code, log } = await runSimulated(simulated.env);

      expect(log).not.toContain('::error::');
      expect(code).toBe(0);
      expect(log).toContain(
        'settings from the default branch; the fix, if any, is suggested on pull request #7',
      );
      expect(log).toContain('delivered the fix: https://github.com/octo-org/app/pull/7#pullrequestreview-1');
      expect(await ran(root, 'command-ran')).toBe(false);
      expect(await ran(root, 'setup-ran')).toBe(false);
      // The runner's checkout is the fork's, and stays as it was: the fix went to the review only.
      expect(await readFile(join(workspace, 'stats.py'), 'utf8')).not.toBe(FIXED_STATS);
    },
    ACTION_TIMEOUT,
  );
});
