import { describe, expect, it } from 'vitest';
import { BranchMovedError } from '../../src/errors/git-errors.js';
import { LeaseLostError } from '../../src/errors/job-errors.js';
import { guardCodeHost, resumableWorkspaces, slottedSandboxes } from '../../src/jobs/guarded-ports.js';
import { LeaseGuard } from '../../src/queue/lease-guard.js';
import { MemoryJobStore } from '../../src/queue/memory-store.js';
import type { Sandbox, SandboxProvider } from '../../src/sandbox/sandbox.js';
import { silentLogger } from '../../src/util/logger.js';
import type { Workspace } from '../../src/workspace/workspace.js';
import { FakeCodeHost } from '../fakes/fake-code-host.js';
import { mention } from './requests.js';

/** A store holding one job, claimed `runs` times (the earlier claims' leases expired). */
async function claimed(runs = 1, store = new MemoryJobStore({ leaseMs: LEASE_MS, now: () => clock.now })) {
  await store.enqueue(mention(9));
  let lease = await store.claim('w');
  const guards = [new LeaseGuard(lease!, store, clock.now, 2)];
  for (let run = 1; run < runs; run++) {
    clock.now += LEASE_MS + 1000;
    guards.at(-1)!.lose();
    lease = await store.claim('w');
    guards.push(new LeaseGuard(lease!, store, clock.now, 2));
  }
  return { store, guards };
}

const LEASE_MS = 60_000;
const clock = { now: Date.now() };

describe('guardCodeHost', () => {
  it('writes while the lease holds and refuses every write once it is lost, reads still pass', async () => {
    const { guards } = await claimed();
    const inner = new FakeCodeHost();
    inner.branches.set('main', 'abc');
    const host = guardCodeHost(inner, guards[0]!);
    await host.upsertComment(9, '<!-- m -->', '<!-- m --> hi');
    guards[0]!.lose();
    await expect(host.upsertComment(9, '<!-- m -->', 'late')).rejects.toBeInstanceOf(LeaseLostError);
    await expect(
      host.createPullRequest({ title: 't', body: 'b', head: 'h', base: 'main', draft: true }),
    ).rejects.toThrow(/lease/);
    await expect(host.updateCheckRun(1, { status: 'completed' })).rejects.toBeInstanceOf(LeaseLostError);
    expect(await host.branchHead('main')).toBe('abc');
    expect(inner.commentsOn(9)).toEqual(['<!-- m --> hi']);
  });

  it('reuses the check run and the plain comment an earlier run of the job posted', async () => {
    const inner = new FakeCodeHost();
    const { guards } = await claimed(1);
    const first = guardCodeHost(inner, guards[0]!);
    const run = await first.createCheckRun({ name: 'selfdebug', headSha: 'abc', status: 'in_progress' });
    await first.createComment(9, 'notes');
    // The job is taken over: the next run sees the first one's checkpoints.
    clock.now += LEASE_MS + 1000;
    guards[0]!.lose();
    const store = (guards[0] as unknown as { store: MemoryJobStore }).store;
    const lease = await store.claim('w2');
    const second = guardCodeHost(inner, new LeaseGuard(lease!, store, clock.now, 2));
    expect(await second.createCheckRun({ name: 'selfdebug', headSha: 'abc', status: 'in_progress' })).toEqual(
      run,
    );
    await second.createComment(9, 'notes');
    await second.createComment(9, 'other notes');
    expect(inner.checkRuns).toHaveLength(1);
    expect(inner.checkRunUpdates).toEqual([{ id: run.id, update: { status: 'in_progress' } }]);
    expect(inner.commentsOn(9)).toEqual(['notes', 'other notes']);
  });
});

describe('resumableWorkspaces', () => {
  function workspaceThatRefusesPush(): Workspace {
    return {
      dir: '/nowhere',
      createBranch: async () => {},
      commit: async () => 'sha',
      countCommits: async () => 0,
      dispose: async () => {},
      push: async (branch) => {
        throw new BranchMovedError(branch);
      },
    };
  }

  it('keeps a branch an earlier run of the job pushed, and reports a moved branch otherwise', async () => {
    const { guards } = await claimed(1);
    const provider = { checkout: async () => workspaceThatRefusesPush() };
    const first = await resumableWorkspaces(provider, guards[0]!, silentLogger).checkout({
      cloneUrl: 'http://x',
      sha: 'a',
      token: 't',
    });
    await expect(first.push('selfdebug/x', 't')).rejects.toBeInstanceOf(BranchMovedError);

    clock.now += LEASE_MS + 1000;
    guards[0]!.lose();
    const store = (guards[0] as unknown as { store: MemoryJobStore }).store;
    const lease = await store.claim('w2');
    expect(lease?.job.checkpoints).toEqual({ 'push:selfdebug/x': 'started' });
    const second = await resumableWorkspaces(
      provider,
      new LeaseGuard(lease!, store, clock.now, 2),
      silentLogger,
    ).checkout({ cloneUrl: 'http://x', sha: 'a', token: 't' });
    await expect(second.push('selfdebug/x', 't')).resolves.toBeUndefined();
    await expect(second.push('selfdebug/other', 't')).rejects.toBeInstanceOf(BranchMovedError);
  });
});

describe('slottedSandboxes', () => {
  it('gives the container slot back when the sandbox goes, and when it could not open', async () => {
    const store = new MemoryJobStore({ leaseMs: LEASE_MS });
    await store.enqueue(mention(10));
    await store.enqueue(mention(11));
    const [mine, other] = [await store.claim('w'), await store.claim('w')];
    let fail = false;
    const disposed: string[] = [];
    const inner: SandboxProvider = {
      kind: 'local',
      open: async (request) => {
        if (fail) throw new Error('engine down');
        return {
          kind: 'local',
          id: request.jobId,
          dispose: async () => void disposed.push(request.jobId),
        } as Sandbox;
      },
    };
    // One container on this host at a time.
    const provider = slottedSandboxes(inner, new LeaseGuard(mine!, store, Date.now(), 1));
    const sandbox = await provider.open({ jobId: 'one', workspace: '/w' });
    expect(await other!.acquireContainer(1)).toBe(false);
    await sandbox.dispose();
    expect(disposed).toEqual(['one']);
    expect(await other!.acquireContainer(1)).toBe(true);
    await other!.releaseContainer();
    fail = true;
    await expect(provider.open({ jobId: 'two', workspace: '/w' })).rejects.toThrow('engine down');
    expect(await other!.acquireContainer(1)).toBe(true);
  });
});
