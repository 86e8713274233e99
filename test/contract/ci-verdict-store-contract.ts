import { expect, it } from 'vitest';
import type { CiVerdict } from '../../src/ci-verdict/ci-verdict.js';
import type { JobStore, StoreOptions } from '../../src/queue/job-store.js';
import { claimOne, result } from '../queue/harness.js';
import { mention } from '../queue/requests.js';

export interface CiVerdictStoreContext {
  /** A store on this test's place. */
  open(options?: StoreOptions): Promise<JobStore>;
  /** A second process's store where the adapter is shared, else the same one. */
  second(first: JobStore, options?: StoreOptions): Promise<JobStore>;
}

const FIX = 'f'.repeat(40);

export function verdictOn(sha: string, verdict: CiVerdict['verdict'] = 'failed'): CiVerdict {
  return {
    verdict,
    reason: null,
    sha,
    runs: 2,
    workflows: [{ name: 'Tests', url: 'https://github.com/o/r/actions/runs/1', conclusion: 'failure' }],
  };
}

/** Finishes a job of `octo/<name>` that pushed `fixSha` (or none); returns its id. */
export async function finishFix(store: JobStore, fixSha: string | null, name = 'repo'): Promise<string> {
  const request = mention(60);
  await store.enqueue({ ...request, repository: { ...request.repository, name } });
  const lease = await claimOne(store);
  expect(await lease.complete({ ...result(), ...(fixSha ? { fixSha } : {}) })).toBe(true);
  return request.id;
}

/**
 * What every JobStore keeps for following fixes' CI (docs/ci-verdict.md):
 * the first verdict, the job that pushed a commit found directly, the wait
 * for a verdict listed once it is over, and all of it pruned with the
 * history. Run by queueContract against memory, SQLite and Redis.
 */
export function ciVerdictStoreContract(context: CiVerdictStoreContext): void {
  it("keeps a fix's pushed commit and the first CI verdict on its record, seen by a second process", async () => {
    const store = await context.open();
    const id = await finishFix(store, FIX);
    const verdict = verdictOn(FIX);
    const reader = await context.second(store);
    expect(await reader.recordCiVerdict(id, verdict)).toBe(true);
    // The first verdict stands; a job that is not in the history gets none.
    expect(await store.recordCiVerdict(id, { ...verdict, verdict: 'passed', workflows: [] })).toBe(false);
    expect(await store.recordCiVerdict('no-such-job', verdict)).toBe(false);
    const [record] = await store.history();
    expect(record).toMatchObject({ id, fixSha: FIX, ciVerdict: verdict });
  });

  it('finds the job that pushed a commit by repository and commit, in any case, from a second process', async () => {
    const store = await context.open();
    const pushed = await finishFix(store, FIX);
    const elsewhere = await finishFix(store, 'e'.repeat(40), 'other');
    await finishFix(store, null);
    const reader = await context.second(store);
    expect(await reader.pushedBy('Octo/Repo', FIX)).toMatchObject({ id: pushed, fixSha: FIX });
    expect(await reader.pushedBy('octo/other', 'e'.repeat(40))).toMatchObject({ id: elsewhere });
    // The same commit in another repository, and a commit no job pushed, are no one's.
    expect(await reader.pushedBy('octo/other', FIX)).toBeNull();
    expect(await reader.pushedBy('octo/repo', '0'.repeat(40))).toBeNull();
    await reader.recordCiVerdict(pushed, verdictOn(FIX, 'passed'));
    expect((await store.pushedBy('octo/repo', FIX))?.ciVerdict).toMatchObject({ verdict: 'passed' });
  });

  it('keeps the wait for a verdict on the record, lists it once over, soonest first, and ends it with the verdict', async () => {
    const store = await context.open();
    const [late, early, never] = [
      await finishFix(store, 'a'.repeat(40)),
      await finishFix(store, 'b'.repeat(40)),
      await finishFix(store, 'c'.repeat(40)),
    ];
    expect(await store.awaitCiVerdict(late, 5000)).toBe(true);
    expect(await store.awaitCiVerdict(early, 2000)).toBe(true);
    expect(await store.awaitCiVerdict(never, 9000)).toBe(true);
    expect(await store.awaitCiVerdict(never, null)).toBe(true);
    expect(await store.awaitCiVerdict('no-such-job', 1000)).toBe(false);
    const reader = await context.second(store);
    const ids = async (until: number, limit = 10) =>
      (await reader.dueCiVerdicts(until, limit)).map((record) => record.id);
    expect(await ids(1999)).toEqual([]);
    expect(await ids(2000)).toEqual([early]);
    expect(await ids(Number.MAX_SAFE_INTEGER)).toEqual([early, late]);
    expect(await ids(Number.MAX_SAFE_INTEGER, 1)).toEqual([early]);
    expect(await reader.pushedBy('octo/repo', 'a'.repeat(40))).toMatchObject({ ciWaitUntil: 5000 });
    expect((await reader.pushedBy('octo/repo', 'c'.repeat(40)))?.ciWaitUntil).toBeUndefined();

    // The verdict ends the wait; a judged fix takes no new one.
    expect(await reader.recordCiVerdict(early, verdictOn('b'.repeat(40)))).toBe(true);
    expect(await ids(Number.MAX_SAFE_INTEGER)).toEqual([late]);
    expect(await store.awaitCiVerdict(early, 1000)).toBe(false);
    const [judged] = (await store.history()).filter((record) => record.id === early);
    expect(judged?.ciWaitUntil).toBeUndefined();
    expect(judged?.ciVerdict).toMatchObject({ verdict: 'failed' });
  });

  it("forgets a pruned job's fix, its wait and its verdict with its history", async () => {
    const store = await context.open({ retention: { maxRecords: 2 } });
    const judged = await finishFix(store, 'a'.repeat(40));
    const waiting = await finishFix(store, 'b'.repeat(40));
    await store.recordCiVerdict(judged, verdictOn('a'.repeat(40)));
    await store.awaitCiVerdict(waiting, 1000);
    await finishFix(store, 'c'.repeat(40));
    await finishFix(store, null);
    const reader = await context.second(store);
    expect((await reader.history()).map((record) => record.fixSha)).toEqual([undefined, 'c'.repeat(40)]);
    expect(await reader.pushedBy('octo/repo', 'a'.repeat(40))).toBeNull();
    expect(await reader.pushedBy('octo/repo', 'b'.repeat(40))).toBeNull();
    expect(await reader.dueCiVerdicts(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
    expect(await reader.recordCiVerdict(waiting, verdictOn('b'.repeat(40)))).toBe(false);
    expect(await reader.awaitCiVerdict(waiting, 1000)).toBe(false);
  });
}
