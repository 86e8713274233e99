import type { Context } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CostCeiling } from '../../src/queue/cost-ceiling.js';
import { MemoryJobStore } from '../../src/queue/memory-store.js';
import { jobRequest } from '../fakes/job-requests.js';
import { assertGitHubMocksDone, blockNetwork } from '../helpers/github-api.js';
import {
  expectComment,
  expectConfig,
  expectInstallationToken,
  expectPermission,
  expectReaction,
} from '../helpers/github-handler-mocks.js';
import { deliver, example, INSTALLATION_ID, testApp } from '../helpers/probot.js';
import { claimOne, result } from '../queue/harness.js';
import { expectCheckRun, expectWriter, MENTION_OWNER, MENTION_REPO, mentionWith } from './harness.js';

type RunPayload = Context<'workflow_run.completed'>['payload'];

/** A store where this month's jobs of the test installation have already cost $2.50. */
async function spentStore(costUsd = 2.5): Promise<MemoryJobStore> {
  const store = new MemoryJobStore();
  await store.enqueue(jobRequest({ id: 'earlier', installationId: INSTALLATION_ID }));
  const lease = await claimOne(store);
  await lease.complete({ ...result('not-fixed'), costUsd });
  return store;
}

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe('the cost ceiling, when the App is asked for a job', () => {
  it('answers a mention past the monthly ceiling with the refusal, and queues nothing', async () => {
    const costCeiling = new CostCeiling(await spentStore(), {
      ceilingUsd: 2,
      period: 'month',
      contact: '@Codertocat/admins',
    });
    const app = await testApp({ costCeiling });
    expectWriter();
    const posted = expectComment(MENTION_OWNER, MENTION_REPO, 1);
    await deliver(app, 'issue_comment', mentionWith('@selfdebug fix'));

    // No 👀 (no reaction mock: nock would fail on one), nothing queued, nothing run.
    expect(app.enqueued).toEqual([]);
    expect(await app.queue.history()).toEqual([]);
    expect(posted).toHaveLength(1);
    expect(posted[0]).toContain(
      '**selfdebug did not run this job:** this installation has reached its monthly cost ceiling.',
    );
    expect(posted[0]).toContain('**$2.50**');
    expect(posted[0]).toContain('Ceiling: **$2.00** per month');
    expect(posted[0]).toMatch(/The period resets on \*\*\d{4}-\d{2}-01 00:00 UTC\*\*/);
    expect(posted[0]).toContain('ask @Codertocat/admins to raise the ceiling');
  });

  it('marks a failed run past the ceiling with a skipped check run, and queues nothing', async () => {
    const costCeiling = new CostCeiling(await spentStore(), { ceilingUsd: 1, period: 'day', contact: 'ops' });
    const app = await testApp({ costCeiling });
    const payload = example<RunPayload>('workflow_run', 'completed', 2);
    payload.workflow_run.conclusion = 'failure';
    payload.workflow_run.name = payload.workflow?.name ?? 'test';
    expectInstallationToken();
    expectConfig('octo-org', 'octo-repo', 'triggers:\n  workflow_runs:\n    enabled: true\n');
    expectPermission('octo-org', 'octo-repo', 'Codertocat', 'write');
    const checkRuns = expectCheckRun<{ conclusion: string; output: { title: string; summary: string } }>(
      'octo-org',
      'octo-repo',
    );
    await deliver(app, 'workflow_run', payload);

    expect(app.enqueued).toEqual([]);
    expect(checkRuns).toHaveLength(1);
    expect(checkRuns[0]).toMatchObject({
      conclusion: 'skipped',
      output: { title: 'Skipped: this installation reached its cost ceiling' },
    });
    expect(checkRuns[0]!.output.summary).toContain('Ceiling: **$1.00** per day');
  });

  it('queues the job as usual below the ceiling', async () => {
    const costCeiling = new CostCeiling(await spentStore(0.5), {
      ceilingUsd: 2,
      period: 'month',
      contact: 'ops',
    });
    const app = await testApp({ costCeiling });
    expectWriter();
    expectReaction(MENTION_OWNER, MENTION_REPO, { commentId: 492700400 }, 'eyes');
    await deliver(app, 'issue_comment', mentionWith('@selfdebug fix'));
    expect(app.enqueued).toHaveLength(1);
  });
});
