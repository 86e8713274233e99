import type { Context } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CostCeiling } from '../../src/queue/cost-ceiling.js';
import { MemoryJobStore } from '../../src/queue/memory-store.js';
import { jobRequest } from '../fakes/job-requests.js';
import {
  assertGitHubMocksDone,
  blockNetwork,
  documentedExample,
  documentedReply,
  githubApi,
} from '../helpers/github-api.js';
import {
  deliver,
  example,
  expectComment,
  expectConfig,
  expectInstallationToken,
  expectPermission,
  INSTALLATION_ID,
  testApp,
} from '../helpers/probot.js';
import { claimOne, result } from '../queue/harness.js';

type CommentPayload = Context<'issue_comment.created'>['payload'];
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
    expectInstallationToken();
    expectConfig('Codertocat', 'Hello-World', null);
    expectPermission('Codertocat', 'Hello-World', 'Codertocat', 'write');
    const posted = expectComment('Codertocat', 'Hello-World', 1);
    const payload = example<CommentPayload>('issue_comment', 'created');
    payload.comment.body = '@selfdebug fix';
    await deliver(app, 'issue_comment', payload);

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
    const checkRuns: { conclusion: string; output: { title: string; summary: string } }[] = [];
    githubApi()
      .post('/repos/octo-org/octo-repo/check-runs', (body: (typeof checkRuns)[number]) => {
        checkRuns.push(body);
        return true;
      })
      .reply(documentedReply(201, documentedExample('POST /repos/{owner}/{repo}/check-runs', 201) as object));
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
    expectInstallationToken();
    expectConfig('Codertocat', 'Hello-World', null);
    expectPermission('Codertocat', 'Hello-World', 'Codertocat', 'write');
    githubApi()
      .post('/repos/Codertocat/Hello-World/issues/comments/492700400/reactions', { content: 'eyes' })
      .reply(
        documentedReply(201, {
          ...(documentedExample(
            'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
            201,
          ) as object),
          content: 'eyes',
        }),
      );
    const payload = example<CommentPayload>('issue_comment', 'created');
    payload.comment.body = '@selfdebug fix';
    await deliver(app, 'issue_comment', payload);
    expect(app.enqueued).toHaveLength(1);
  });
});
