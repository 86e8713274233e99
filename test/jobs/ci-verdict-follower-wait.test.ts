import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteJobStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { LONGEST_WAIT_MS, RETRY_MS } from '../../src/jobs/ci-verdict-follower.js';
import type { JobStore } from '../../src/queue/job-store.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { claimOne, result } from '../queue/harness.js';
import { mention } from '../queue/requests.js';
import { ciFollowerFixture, ciRun, MINUTE, SWEEP_MS } from './ci-follower-fixture.js';

const SHA = 'a'.repeat(40);
const WAIT_MS = 30 * MINUTE;

/**
 * The wait for a fix's CI verdict is kept in the store, not in the worker
 * that pushed the fix (docs/ci-verdict.md): these tests stop and start
 * followers on one store, as workers die, restart and run side by side.
 */
describe('CiVerdictFollower: a wait that outlives its worker', () => {
  let fixture: Awaited<ReturnType<typeof ciFollowerFixture>>;

  const tempDir = useTempDirs();
  const closing: JobStore[] = [];
  /** The fixture on `store`: a repository that waits 30 minutes, and a fix whose slow run never finishes. */
  const given = async (store?: JobStore) => {
    fixture = await ciFollowerFixture(store);
    fixture.host.config = { ci_verdict: { wait_minutes: 30 } };
    fixture.host.ci.set(SHA, [ciRun(1, 'Tests', 'completed', 'success'), ciRun(2, 'Slow', 'queued')]);
  };

  beforeEach(() => given());
  afterEach(async () => {
    await Promise.all(closing.splice(0).map((store) => store.close()));
  });

  it('a worker restarted on the same queue file judges a fix whose wait ended while it was down', async () => {
    const path = join(await tempDir(), 'queue.sqlite');
    const before = new SqliteJobStore(path);
    await given(before);
    const crashed = fixture.follower().start();
    await fixture.pushed(crashed, SHA);
    await fixture.settled();
    crashed.stop();
    await before.close();
    await fixture.advance(2 * WAIT_MS);

    const after = new SqliteJobStore(path);
    closing.push(after);
    fixture.follower(after).start();
    await fixture.settled();
    expect(fixture.body()).toContain('[Slow](https://github.com/octo/repo/actions/runs/2) had not finished');
    expect(await fixture.counted('unknown')).toBe(1);
    expect((await after.history())[0]!.ciVerdict).toMatchObject({ verdict: 'unknown', reason: 'timed-out' });
  });

  it('a restarted follower judges a fix whose wait ended while no worker ran', async () => {
    const crashed = fixture.follower().start();
    await fixture.pushed(crashed, SHA);
    await fixture.settled();
    crashed.stop();
    await fixture.advance(2 * WAIT_MS);
    expect(fixture.verdictChecks()).toEqual([]);

    fixture.follower().start();
    await fixture.settled();
    expect(fixture.body()).toContain('[Slow](https://github.com/octo/repo/actions/runs/2) had not finished');
    expect(fixture.verdictChecks()).toEqual([expect.objectContaining({ conclusion: 'neutral' })]);
    expect(await fixture.counted('unknown')).toBe(1);
    expect(await fixture.store.dueCiVerdicts(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
  });

  it('a worker that dies before it asked GitHub leaves the longest wait, which another ends', async () => {
    const dying = fixture.follower();
    const ciRuns = fixture.host.ciRuns.bind(fixture.host);
    // GitHub never answers this worker: it stops before it has read the runs.
    fixture.host.ciRuns = () => new Promise(() => {});
    await fixture.pushed(dying, SHA);
    await fixture.settled();
    expect((await fixture.store.history())[0]!.ciWaitUntil).toBe(LONGEST_WAIT_MS);
    fixture.host.ciRuns = ciRuns;

    fixture.follower().start();
    await fixture.advance(LONGEST_WAIT_MS - SWEEP_MS);
    expect(fixture.verdictChecks()).toEqual([]);
    await fixture.advance(SWEEP_MS);
    expect(fixture.verdictChecks()).toEqual([expect.objectContaining({ conclusion: 'neutral' })]);
  });

  it('two followers sweeping one store write the verdict once', async () => {
    const [first, second] = [fixture.follower().start(), fixture.follower().start()];
    await fixture.pushed(first, SHA);
    await fixture.settled();
    await fixture.advance(WAIT_MS + SWEEP_MS);
    expect(fixture.host.asked).toBeGreaterThanOrEqual(3);
    expect(fixture.verdictChecks()).toHaveLength(1);
    expect(fixture.body().match(/had not finished/g)).toHaveLength(1);
    expect(await fixture.counted('unknown')).toBe(1);
    second.stop();
    first.stop();
  });

  it('tries again later when judging at the wait’s end fails', async () => {
    const follower = fixture.follower().start();
    await fixture.pushed(follower, SHA);
    await fixture.settled();
    const ciRuns = fixture.host.ciRuns.bind(fixture.host);
    fixture.host.ciRuns = async () => {
      throw new Error('GitHub is unreachable');
    };
    await fixture.advance(WAIT_MS + SWEEP_MS);
    expect(fixture.verdictChecks()).toEqual([]);
    expect((await fixture.store.history())[0]!.ciWaitUntil).toBe(fixture.timers.now + RETRY_MS);

    fixture.host.ciRuns = ciRuns;
    await fixture.advance(RETRY_MS + SWEEP_MS);
    expect(fixture.verdictChecks()).toEqual([expect.objectContaining({ conclusion: 'neutral' })]);
  });

  it('finds the job that pushed a fix 250 jobs ago, and gives it its verdict', async () => {
    const follower = fixture.follower().start();
    fixture.host.ci.set(SHA, [ciRun(1, 'Tests', 'in_progress')]);
    const { fix } = await fixture.pushed(follower, SHA);
    await fixture.settled();
    for (let job = 0; job < 250; job++) {
      await fixture.store.enqueue(mention(100 + job));
      await (await claimOne(fixture.store)).complete(result());
    }
    expect(
      (await fixture.store.history({ repository: 'octo/repo', limit: 200 })).map((r) => r.fixSha),
    ).not.toContain(SHA);

    fixture.host.ci.set(SHA, [ciRun(1, 'Tests', 'completed', 'success')]);
    await follower.runCompleted(fix);
    expect(fixture.body()).toContain('**Your CI passed** on `aaaaaaa`');
    expect(fixture.verdictChecks()).toEqual([expect.objectContaining({ conclusion: 'success' })]);
    expect(await fixture.counted('passed')).toBe(1);
  });
});
