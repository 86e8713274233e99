import { beforeEach, describe, expect, it } from 'vitest';
import type { CiVerdictFollower } from '../../src/jobs/ci-verdict-follower.js';
import { ciFollowerFixture, ciRun, MINUTE, SWEEP_MS } from './ci-follower-fixture.js';

const SHA_1 = '1'.repeat(40);
const SHA_2 = '2'.repeat(40);
const HOUR = 60 * MINUTE;

describe('CiVerdictFollower', () => {
  let fixture: Awaited<ReturnType<typeof ciFollowerFixture>>;
  let follower: CiVerdictFollower;

  beforeEach(async () => {
    fixture = await ciFollowerFixture();
    follower = fixture.follower().start();
  });

  it('waits while runs are unfinished, then writes "passed" once, wherever it is told again', async () => {
    const { host, store, body, counted, verdictChecks } = fixture;
    host.ci.set(SHA_1, [ciRun(1, 'Tests', 'in_progress')]);
    const { fix, commentId } = await fixture.pushed(follower, SHA_1);
    await fixture.settled();
    expect(verdictChecks()).toEqual([]);

    host.ci.set(SHA_1, [ciRun(1, 'Tests', 'completed', 'success')]);
    await follower.runCompleted(fix);
    await follower.runCompleted(fix);

    expect(body()).toContain('The fix.');
    expect(body()).toContain('**Your CI passed** on `1111111` (1 workflow run)');
    expect(host.comments.find((comment) => comment.id === commentId)!.body).toMatch(
      /Fixed\.[\s\S]*Your CI passed/,
    );
    expect(verdictChecks()).toEqual([
      expect.objectContaining({ headSha: SHA_1, status: 'completed', conclusion: 'success' }),
    ]);
    expect(await counted('passed')).toBe(1);
    const [record] = await store.history();
    expect(record!.ciVerdict).toMatchObject({ verdict: 'passed', sha: SHA_1 });
    expect(record!.ciWaitUntil).toBeUndefined();
    // The wait's end finds the verdict there and writes nothing more.
    await fixture.advance(2 * HOUR);
    expect(await counted('passed')).toBe(1);
  });

  it('says "no CI" at once when the repository has no active workflow', async () => {
    fixture.host.activeWorkflows = 0;
    await fixture.pushed(follower, SHA_1);
    await fixture.settled();
    expect(fixture.body()).toContain('**No CI** on `1111111`');
    expect(fixture.verdictChecks()).toEqual([expect.objectContaining({ conclusion: 'neutral' })]);
    expect(await fixture.counted('unknown')).toBe(1);
  });

  it('calls the verdict unknown at the first sweep after the wait ends, naming the unfinished runs', async () => {
    const { host, body } = fixture;
    host.config = { ci_verdict: { wait_minutes: 30 } };
    host.ci.set(SHA_1, [ciRun(1, 'Tests', 'completed', 'success'), ciRun(2, 'Slow', 'queued')]);
    await fixture.pushed(follower, SHA_1);
    await fixture.settled();
    // The wait's end is kept on the record, where any worker finds it.
    expect((await fixture.store.history())[0]!.ciWaitUntil).toBe(30 * MINUTE);
    for (let minute = 1; minute < 30; minute++) await fixture.advance(SWEEP_MS);
    expect(body()).not.toContain('Your CI');
    await fixture.advance(SWEEP_MS);
    expect(body()).toContain('[Slow](https://github.com/octo/repo/actions/runs/2) had not finished');
    expect(await fixture.counted('unknown')).toBe(1);
  });

  it('never waits with `ci_verdict: off`', async () => {
    const { host, store } = fixture;
    host.config = { ci_verdict: 'off' };
    host.activeWorkflows = 0;
    const { fix } = await fixture.pushed(follower, SHA_1);
    await fixture.settled();
    await follower.runCompleted(fix);
    expect(host.asked).toBe(0);
    expect(fixture.body()).toBe('The fix.');
    expect(await store.dueCiVerdicts(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
    expect((await store.history())[0]!.ciWaitUntil).toBeUndefined();
  });

  it("shows every round's verdict on the pull request: a failure with its workflows, then a pass", async () => {
    const { host, body, counted } = fixture;
    host.ci.set(SHA_1, [ciRun(1, 'Tests', 'completed', 'failure'), ciRun(2, 'Lint', 'completed', 'success')]);
    await fixture.pushed(follower, SHA_1);
    await fixture.settled();
    expect(body()).toContain(
      '**Your CI failed** on `1111111`: [Tests](https://github.com/octo/repo/actions/runs/1)',
    );

    host.ci.set(SHA_2, [ciRun(3, 'Tests', 'completed', 'success')]);
    await fixture.pushed(follower, SHA_2);
    await fixture.settled();
    const text = body();
    expect(text).toMatch(
      /- Round 1: ❌ \*\*Your CI failed\*\* on `1111111`[\s\S]*- Round 2: ✅ \*\*Your CI passed\*\* on `2222222`/,
    );
    expect(text.match(/<!-- selfdebug:ci-verdict -->/g)).toHaveLength(1);
    expect(await counted('failed')).toBe(1);
    expect(await counted('passed')).toBe(1);
  });

  it('judges a repository whose CI is another app\'s check suite: no "no CI" before it runs', async () => {
    const { host, store, body, counted } = fixture;
    host.activeWorkflows = 0;
    const url = `https://github.com/octo/repo/commit/${SHA_1}/checks?check_suite_id=7`;
    // GitHub opened the suite on the push; the CI has not added its check runs yet.
    host.suites.set(SHA_1, [
      { id: 7, name: 'CircleCI Checks', url, status: 'queued', conclusion: null, checkRuns: 0 },
    ]);
    const { fix } = await fixture.pushed(follower, SHA_1);
    await fixture.settled();
    expect(body()).toBe('The fix.');
    // Still open: the wait's end is kept on the record.
    expect((await store.history())[0]!.ciWaitUntil).toBeGreaterThan(0);

    host.suites.set(SHA_1, [
      { id: 7, name: 'CircleCI Checks', url, status: 'completed', conclusion: 'failure', checkRuns: 2 },
    ]);
    await follower.runCompleted(fix);
    expect(body()).toContain(`**Your CI failed** on \`1111111\`: [CircleCI Checks](${url})`);
    expect(await counted('failed')).toBe(1);
  });

  it('leaves a commit no job of ours pushed alone', async () => {
    await follower.runCompleted({ installationId: 1, repository: 'octo/repo', sha: SHA_2 });
    expect(fixture.host.asked).toBe(0);
  });
});
