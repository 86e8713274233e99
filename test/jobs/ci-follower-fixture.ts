import { PrometheusMetrics } from '../../src/adapters/prometheus/index.js';
import type { CiRun } from '../../src/ci-verdict/ci-verdict.js';
import { CiVerdictFollower, type PushedFix } from '../../src/jobs/ci-verdict-follower.js';
import { CI_VERDICT_CHECK } from '../../src/jobs/ci-verdict-writer.js';
import type { JobStore } from '../../src/queue/job-store.js';
import { MemoryJobStore } from '../../src/queue/memory-store.js';
import { silentLogger } from '../../src/util/logger.js';
import { FakeCiHost } from '../fakes/fake-ci-host.js';
import { ManualTimers } from '../helpers/manual-timers.js';
import { claimOne, result } from '../queue/harness.js';
import { mention } from '../queue/requests.js';

export const MINUTE = 60_000;
/** How often the fixture's followers sweep for waits that are over. */
export const SWEEP_MS = 60_000;

export function ciRun(id: number, name: string, status: string, conclusion: string | null = null): CiRun {
  return { id, name, url: `https://github.com/octo/repo/actions/runs/${id}`, status, conclusion };
}

/**
 * What the follower's tests share: one store, one CI host with a pull
 * request, one metrics registry and one test clock, and as many followers
 * on them as a test starts (one per worker, a new one for a restart).
 */
export async function ciFollowerFixture(store: JobStore = new MemoryJobStore()) {
  const host = new FakeCiHost('octo/repo');
  const timers = new ManualTimers();
  const metrics = new PrometheusMetrics({ processMetrics: false });
  const pull = await host.createPullRequest({
    title: 't',
    body: 'The fix.',
    head: 'selfdebug/x',
    base: 'main',
    draft: true,
  });
  /** A follower on the shared store (or `on`, the same queue opened again), as one worker has it. */
  const follower = (on: JobStore = store) =>
    new CiVerdictFollower({
      store: on,
      hostFor: async () => host,
      metrics,
      timers,
      now: () => timers.now,
      logger: silentLogger,
      sweepMs: SWEEP_MS,
    });

  /** A finished job that pushed `sha` to the pull request, told to `by`; returns the fix and the comment id. */
  async function pushed(by: CiVerdictFollower, sha: string): Promise<{ fix: PushedFix; commentId: number }> {
    const request = mention(3);
    const status = await host.createComment(3, `<!-- selfdebug:status job=${request.id} -->\nFixed.`);
    await store.enqueue(request);
    const lease = await claimOne(store);
    const links = { pullRequest: pull.url, statusComment: status.url, checkRun: null };
    await lease.complete({ ...result(), links, fixSha: sha });
    by.onRecorded(lease.job, { ...result(), links, fixSha: sha });
    return { fix: { installationId: 1, repository: 'octo/repo', sha }, commentId: status.id };
  }

  /** Moves the clock, then lets every follower's work that came due land. */
  async function advance(ms: number): Promise<void> {
    timers.advance(ms);
    await settled();
  }

  return {
    store,
    host,
    timers,
    metrics,
    pull,
    follower,
    pushed,
    advance,
    settled,
    body: () => host.pulls.find((candidate) => candidate.number === pull.number)!.body,
    verdictChecks: () => host.checkRuns.filter((check) => check.name === CI_VERDICT_CHECK),
    counted: async (verdict: string) => {
      const { text } = await metrics.exposition();
      const line = text
        .split('\n')
        .find((entry) => entry.startsWith(`selfdebug_fix_ci_verdicts_total{verdict="${verdict}"}`));
      return line === undefined ? 0 : Number(line.split(' ').at(-1));
    },
  };
}

/** The follower's hook does not wait; a few turns of the event loop let its reads and writes land. */
export async function settled(): Promise<void> {
  for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
}
