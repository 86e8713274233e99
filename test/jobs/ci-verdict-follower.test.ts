import { beforeEach, describe, expect, it } from 'vitest';
import { PrometheusMetrics } from '../../src/adapters/prometheus/index.js';
import type { CiRun } from '../../src/ci-verdict/ci-verdict.js';
import { CiVerdictFollower, type PushedFix } from '../../src/jobs/ci-verdict-follower.js';
import { CI_VERDICT_CHECK } from '../../src/jobs/ci-verdict-writer.js';
import { MemoryJobStore } from '../../src/queue/memory-store.js';
import { silentLogger } from '../../src/util/logger.js';
import { FakeCiHost } from '../fakes/fake-ci-host.js';
import { ManualTimers } from '../helpers/manual-timers.js';
import { claimOne, result } from '../queue/harness.js';
import { mention } from '../queue/requests.js';

const SHA_1 = '1'.repeat(40);
const SHA_2 = '2'.repeat(40);
const HOUR = 60 * 60_000;

function run(id: number, name: string, status: string, conclusion: string | null = null): CiRun {
  return { id, name, url: `https://github.com/octo/repo/actions/runs/${id}`, status, conclusion };
}

describe('CiVerdictFollower', () => {
  let store: MemoryJobStore;
  let host: FakeCiHost;
  let timers: ManualTimers;
  let metrics: PrometheusMetrics;
  let follower: CiVerdictFollower;
  let pull: { number: number; url: string };

  beforeEach(async () => {
    store = new MemoryJobStore();
    host = new FakeCiHost('octo/repo');
    timers = new ManualTimers();
    metrics = new PrometheusMetrics({ processMetrics: false });
    follower = new CiVerdictFollower({
      store,
      hostFor: async () => host,
      metrics,
      timers,
      logger: silentLogger,
    });
    pull = await host.createPullRequest({
      title: 't',
      body: 'The fix.',
      head: 'selfdebug/x',
      base: 'main',
      draft: true,
    });
  });

  /** A finished job that pushed `sha` to the pull request, with its status comment; returns the comment id. */
  async function pushed(sha: string): Promise<{ fix: PushedFix; commentId: number }> {
    const request = mention(3);
    const status = await host.createComment(3, `<!-- selfdebug:status job=${request.id} -->\nFixed.`);
    await store.enqueue(request);
    const lease = await claimOne(store);
    const links = { pullRequest: pull.url, statusComment: status.url, checkRun: null };
    await lease.complete({ ...result(), links, fixSha: sha });
    follower.onRecorded(lease.job, { ...result(), links, fixSha: sha });
    return { fix: { installationId: 1, repository: 'octo/repo', sha }, commentId: status.id };
  }

  const settled = async () => {
    // The worker's hook does not wait; one more turn of the follower lets its writes land.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
  };
  const body = () => host.pulls.find((candidate) => candidate.number === pull.number)!.body;
  const counted = async (verdict: string) => {
    const { text } = await metrics.exposition();
    const line = text
      .split('\n')
      .find((entry) => entry.startsWith(`selfdebug_fix_ci_verdicts_total{verdict="${verdict}"}`));
    return line === undefined ? 0 : Number(line.split(' ').at(-1));
  };

  it('waits while runs are unfinished, then writes "passed" once, wherever it is told again', async () => {
    host.ci.set(SHA_1, [run(1, 'Tests', 'in_progress')]);
    const { fix, commentId } = await pushed(SHA_1);
    await settled();
    expect(host.checkRuns.filter((check) => check.name === CI_VERDICT_CHECK)).toEqual([]);

    host.ci.set(SHA_1, [run(1, 'Tests', 'completed', 'success')]);
    await follower.runCompleted(fix);
    await follower.runCompleted(fix);

    expect(body()).toContain('The fix.');
    expect(body()).toContain('**Your CI passed** on `1111111` (1 workflow run)');
    expect(host.comments.find((comment) => comment.id === commentId)!.body).toMatch(
      /Fixed\.[\s\S]*Your CI passed/,
    );
    const checks = host.checkRuns.filter((check) => check.name === CI_VERDICT_CHECK);
    expect(checks).toEqual([
      expect.objectContaining({ headSha: SHA_1, status: 'completed', conclusion: 'success' }),
    ]);
    expect(await counted('passed')).toBe(1);
    expect((await store.history())[0]!.ciVerdict).toMatchObject({ verdict: 'passed', sha: SHA_1 });
    // The wait's end finds the verdict there and writes nothing more.
    timers.advance(HOUR);
    await settled();
    expect(await counted('passed')).toBe(1);
  });

  it('says "no CI" at once when the repository has no active workflow', async () => {
    host.activeWorkflows = 0;
    await pushed(SHA_1);
    await settled();
    expect(body()).toContain('**No CI** on `1111111`');
    expect(host.checkRuns.find((check) => check.name === CI_VERDICT_CHECK)).toMatchObject({
      conclusion: 'neutral',
    });
    expect(await counted('unknown')).toBe(1);
  });

  it('calls the verdict unknown when the wait ends before the runs do, naming them', async () => {
    host.config = { ci_verdict: { wait_minutes: 30 } };
    host.ci.set(SHA_1, [run(1, 'Tests', 'completed', 'success'), run(2, 'Slow', 'queued')]);
    await pushed(SHA_1);
    await settled();
    timers.advance(30 * 60_000 - 1);
    await settled();
    expect(body()).not.toContain('Your CI');
    timers.advance(1);
    await settled();
    expect(body()).toContain('[Slow](https://github.com/octo/repo/actions/runs/2) had not finished');
    expect(await counted('unknown')).toBe(1);
  });

  it('never waits with `ci_verdict: off`', async () => {
    host.config = { ci_verdict: 'off' };
    host.activeWorkflows = 0;
    const { fix } = await pushed(SHA_1);
    await settled();
    await follower.runCompleted(fix);
    expect(host.asked).toBe(0);
    expect(body()).toBe('The fix.');
    expect(timers.armed).toBe(0);
  });

  it("shows every round's verdict on the pull request: a failure with its workflows, then a pass", async () => {
    host.ci.set(SHA_1, [run(1, 'Tests', 'completed', 'failure'), run(2, 'Lint', 'completed', 'success')]);
    await pushed(SHA_1);
    await settled();
    expect(body()).toContain(
      '**Your CI failed** on `1111111`: [Tests](https://github.com/octo/repo/actions/runs/1)',
    );

    host.ci.set(SHA_2, [run(3, 'Tests', 'completed', 'success')]);
    await pushed(SHA_2);
    await settled();
    const text = body();
    expect(text).toMatch(
      /- Round 1: ❌ \*\*Your CI failed\*\* on `1111111`[\s\S]*- Round 2: ✅ \*\*Your CI passed\*\* on `2222222`/,
    );
    expect(text.match(/<!-- selfdebug:ci-verdict -->/g)).toHaveLength(1);
    expect(await counted('failed')).toBe(1);
    expect(await counted('passed')).toBe(1);
  });

  it('judges a repository whose CI is another app\'s check suite: no "no CI" before it runs', async () => {
    host.activeWorkflows = 0;
    const url = `https://github.com/octo/repo/commit/${SHA_1}/checks?check_suite_id=7`;
    // GitHub opened the suite on the push; the CI has not added its check runs yet.
    host.suites.set(SHA_1, [
      { id: 7, name: 'CircleCI Checks', url, status: 'queued', conclusion: null, checkRuns: 0 },
    ]);
    const { fix } = await pushed(SHA_1);
    await settled();
    expect(body()).toBe('The fix.');
    expect(timers.armed).toBe(1);

    host.suites.set(SHA_1, [
      { id: 7, name: 'CircleCI Checks', url, status: 'completed', conclusion: 'failure', checkRuns: 2 },
    ]);
    await follower.runCompleted(fix);
    expect(body()).toContain(`**Your CI failed** on \`1111111\`: [CircleCI Checks](${url})`);
    expect(await counted('failed')).toBe(1);
  });

  it('leaves a commit no job of ours pushed alone', async () => {
    await follower.runCompleted({ installationId: 1, repository: 'octo/repo', sha: SHA_2 });
    expect(host.asked).toBe(0);
  });
});
