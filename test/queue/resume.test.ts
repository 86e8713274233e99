import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitWorkspaceProvider } from '../../src/adapters/git/git-workspace-provider.js';
import { LocalSandboxProvider } from '../../src/adapters/local/local-sandbox-provider.js';
import type { PullRequestRef } from '../../src/code-host/code-host.js';
import { loadAppConfig } from '../../src/config/app-config.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { parseModelConfig } from '../../src/config/model-config.js';
import { guardDependencies, jobResult } from '../../src/jobs/job-handler.js';
import { type JobRunnerDependencies, runJob } from '../../src/jobs/run-job.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import type { JobRequest } from '../../src/queue/job-request.js';
import { LeaseGuard } from '../../src/queue/lease-guard.js';
import { MemoryJobStore } from '../../src/queue/memory-store.js';
import { silentLogger } from '../../src/util/logger.js';
import { FakeCodeHost } from '../fakes/fake-code-host.js';
import { GitHttpServer } from '../helpers/git-http-server.js';
import { fix, reflect } from '../helpers/loop-fixtures.js';
import { until } from '../helpers/until.js';

const TOKEN = 'ghs_resumetoken0123456789abcdefghijklm';
const FIXED = 'import sys\ngreeting = "hello"\nprint(greeting)\n';

describe('a job taken over after its worker froze right behind the push', () => {
  let server: GitHttpServer;
  let main: string;
  beforeAll(async () => {
    server = await GitHttpServer.start({ token: TOKEN });
    [main] = (await server.createRepository('app', [{ 'app.py': 'import sys\nprint(greeting)\n' }])) as [
      string,
    ];
  });
  afterAll(() => server.close());

  it('opens one pull request for the pushed branch, and the frozen run changes nothing afterwards', async () => {
    let now = Date.now();
    const store = new MemoryJobStore({ leaseMs: 10_000, now: () => now });
    const host = new FakeCodeHost('octo/app');
    host.branches.set('main', main);
    host.config = { command: 'python3 app.py' };
    const request = mentionRequest(server.url('app'));
    await store.enqueue(request);

    // Run 1 pushes its fix, then hangs looking for its pull request, like a worker that froze there.
    // (A freeze inside the create call itself no fence can stop; GitHub refuses a second PR for a head.)
    const frozen = new AbortController();
    const findPullRequest = host.findPullRequest.bind(host);
    host.findPullRequest = async (head) => {
      await new Promise((resolve) => frozen.signal.addEventListener('abort', resolve));
      return findPullRequest(head);
    };
    const first = await store.claim('worker-1');
    const guard1 = new LeaseGuard(first!, store, now, 4);
    const run1 = runJob(request, new AbortController().signal, dependencies(host, guard1, 'first summary'));
    await until(
      'the fix branch to be pushed',
      async () => (await server.branchSha('app', branch(request))) !== null,
    );

    // Its lease runs out; the worker's heartbeat would mark it lost. Run 2 takes over with run 1's checkpoints.
    now += 11_000;
    guard1.lose();
    const second = await store.claim('worker-2');
    expect(second?.job).toMatchObject({ run: 2, checkpoints: { [`push:${branch(request)}`]: 'started' } });
    host.findPullRequest = findPullRequest;
    const guard2 = new LeaseGuard(second!, store, now, 4);
    const signal = new AbortController().signal;
    const outcome = jobResult(
      await runJob(request, signal, dependencies(host, guard2, 'second summary')),
      signal,
    );
    expect(outcome).toMatchObject({
      outcome: 'fixed',
      links: { pullRequest: expect.stringContaining('/pull/') },
    });
    expect(await second!.complete(outcome)).toBe(true);

    // The frozen run wakes up: its pull request is refused by the guard, its comments too.
    const comments = JSON.stringify(host.comments);
    frozen.abort();
    await run1;
    expect(host.pulls.map((pull: PullRequestRef) => pull.head)).toEqual([branch(request)]);
    expect(JSON.stringify(host.comments)).toBe(comments);
    expect(await server.readFile('app', branch(request), 'app.py')).toBe(FIXED);
    expect(host.commentsOn(42).filter((body) => body.includes('selfdebug:status'))).toHaveLength(1);
    expect(host.checkRuns.filter((run) => run.headSha === main)).toHaveLength(1);
    expect(await store.history()).toMatchObject([{ id: request.id, outcome: 'fixed', runs: 2 }]);
  }, 240_000);

  function dependencies(host: FakeCodeHost, guard: LeaseGuard, summary: string): JobRunnerDependencies {
    const base: JobRunnerDependencies = {
      codeHostFor: async () => host,
      tokenFor: async () => TOKEN,
      workspaces: new GitWorkspaceProvider({ allowedProtocols: ['http'], host: process.env }),
      sandboxProviderFor: (config) =>
        new LocalSandboxProvider({ ...config, kind: 'local' }, { host: process.env, warn: () => {} }),
      // Each run words its commit differently, so run 2's push really is refused as non-fast-forward.
      modelFor: () =>
        new ScriptedModel([
          fix('greeting is undefined', [
            { path: 'app.py', search: 'print(greeting)', replace: 'greeting = "hello"\nprint(greeting)' },
          ]),
          { ...(reflect() as object), content: JSON.stringify({ ...reflection, summary }) },
        ]),
      sandboxConfig: parseSandboxConfig({ kind: 'local', commandTimeoutSeconds: 30 }),
      modelConfig: parseModelConfig({ apiKey: 'sk-test-secret-key-0123456789' }),
      appConfig: loadAppConfig({}),
      logger: silentLogger,
      environment: {},
    };
    return guardDependencies(base, guard, silentLogger);
  }
});

const reflection = { rootCause: 'undefined name', changes: 'defined it', confidence: 'high', risks: [] };

function mentionRequest(cloneUrl: string): JobRequest {
  return {
    id: 'a1b2c3d4-resume',
    deliveryId: 'delivery-resume',
    dedupeKey: 'comment:resume',
    installationId: 1,
    repository: { owner: 'octo', name: 'app', cloneUrl, defaultBranch: 'main', private: false },
    requestedBy: 'octocat',
    headSha: null,
    baseBranch: 'main',
    trigger: {
      kind: 'mention',
      command: 'fix',
      issueNumber: 42,
      isPullRequest: false,
      commentId: 1,
      text: 'app.py crashes',
      scriptBlocks: [],
    },
    options: {},
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

const branch = (request: JobRequest) =>
  `selfdebug/issue-42-${request.id.replace(/[^a-z0-9]/gi, '').slice(0, 8)}`;
