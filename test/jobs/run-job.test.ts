import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitWorkspaceProvider } from '../../src/adapters/git/git-workspace-provider.js';
import { LocalSandboxProvider } from '../../src/adapters/local/local-sandbox-provider.js';
import { loadAppConfig } from '../../src/config/app-config.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { parseModelConfig } from '../../src/config/model-config.js';
import { JobCancelledError } from '../../src/errors/job-errors.js';
import { maxCommentsPerJob } from '../../src/jobs/job-reporter.js';
import { type JobRunnerDependencies, runJob } from '../../src/jobs/run-job.js';
import { type ScriptedAnswer, ScriptedModel } from '../../src/model/scripted-model.js';
import type { JobRequest } from '../../src/queue/job-request.js';
import { silentLogger } from '../../src/util/logger.js';
import { FakeCodeHost } from '../fakes/fake-code-host.js';
import { jobRequest, mentionTrigger } from '../fakes/job-requests.js';
import { GitHttpServer } from '../helpers/git-http-server.js';
import { decide, fix, reflect } from '../helpers/loop-fixtures.js';

const TOKEN = 'ghs_jobtoken0123456789abcdefghijklmnop';
const BROKEN = 'import sys\nprint(greeting)\n';
const goodEdit = {
  path: 'app.py',
  search: 'print(greeting)',
  replace: 'greeting = "hello"\nprint(greeting)',
};

describe('runJob', () => {
  let server: GitHttpServer;
  let shas: string[];

  beforeAll(async () => {
    server = await GitHttpServer.start({ token: TOKEN });
    shas = await server.createRepository('app', [{ 'app.py': BROKEN, 'README.md': 'app\n' }]);
  });
  afterAll(() => server.close());

  function setup(answers: ScriptedAnswer[], config: unknown = { command: 'python3 app.py' }) {
    const host = new FakeCodeHost('octo/app');
    host.branches.set('main', shas[0]!);
    host.permissions.set('octocat', 'write');
    host.config = config;
    const model = new ScriptedModel(answers);
    const dependencies: JobRunnerDependencies = {
      codeHostFor: async () => host,
      tokenFor: async () => TOKEN,
      workspaces: new GitWorkspaceProvider({ allowedProtocols: ['http'], host: process.env }),
      sandboxProviderFor: (config) =>
        new LocalSandboxProvider({ ...config, kind: 'local' }, { host: process.env, warn: () => {} }),
      modelFor: () => model,
      sandboxConfig: parseSandboxConfig({ kind: 'local', commandTimeoutSeconds: 30 }),
      modelConfig: parseModelConfig({ apiKey: 'sk-test-secret-key-0123456789' }),
      appConfig: loadAppConfig({}),
      logger: silentLogger,
      environment: {},
    };
    return { host, model, dependencies };
  }

  /** Pushes a commit to a new branch through the provider itself, as an earlier job would have. */
  async function pushBranch(
    repository: string,
    branch: string,
    sha: string,
    message = 'selfdebug: earlier',
  ): Promise<string> {
    const workspace = await new GitWorkspaceProvider({
      allowedProtocols: ['http'],
      host: process.env,
    }).checkout({
      cloneUrl: server.url(repository),
      sha,
      token: TOKEN,
    });
    try {
      await workspace.createBranch(branch);
      await writeFile(join(workspace.dir, 'notes.txt'), `${message}\n`);
      const commit = await workspace.commit(message, { name: 'selfdebug[bot]', email: 'bot@example.com' });
      await workspace.push(branch, TOKEN);
      return commit!;
    } finally {
      await workspace.dispose();
    }
  }

  function mentionRequest(id: string, issueNumber = 12): JobRequest {
    return jobRequest({
      id,
      dedupeKey: `comment-${id}`,
      repository: { ...jobRequest().repository, name: 'app', cloneUrl: server.url('app') },
      trigger: mentionTrigger({
        issueNumber,
        text: `app.py crashes; the token ${TOKEN} should never show`,
      }),
    });
  }

  it('fixes, pushes a selfdebug/ branch, opens a draft pull request and reports every step', async () => {
    const { host, dependencies } = setup([fix('greeting is undefined', [goodEdit]), reflect()]);
    await runJob(mentionRequest('11111111-aaaa'), new AbortController().signal, dependencies);

    const branch = 'selfdebug/issue-12-11111111';
    expect(await server.readFile('app', branch, 'app.py')).toBe(
      'import sys\ngreeting = "hello"\nprint(greeting)\n',
    );
    expect(await server.branchSha('app', 'main')).toBe(shas[0]);
    const [pull] = host.pulls;
    expect(pull).toMatchObject({ head: branch, base: 'main', draft: true });
    expect(pull?.title).toMatch(/^selfdebug: /);
    expect(pull?.body).toContain('Fixes #12');

    const comments = host.commentsOn(12);
    const status = comments.find((body) => body.includes('<!-- selfdebug:status job=11111111-aaaa -->'));
    // The commit it tested, short and linked to its page beside the clone URL.
    const commitPage = `${server.url('app').replace(/\.git$/, '')}/commit/${shas[0]}`;
    expect(status).toContain(`tested on commit [\`${shas[0]!.slice(0, 7)}\`](${commitPage})`);
    expect(comments.some((body) => body.includes('<!-- selfdebug:attempt job=11111111-aaaa n=1 -->'))).toBe(
      true,
    );
    for (const body of [...comments, pull?.body ?? '']) {
      expect(body).not.toContain(TOKEN);
      expect(body).not.toContain('sk-test-secret-key-0123456789');
    }
    const [progress, annotated] = host.checkRuns;
    expect(progress).toMatchObject({ headSha: shas[0], status: 'completed', conclusion: 'success' });
    expect(annotated).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(annotated?.headSha).toBe(await server.branchSha('app', branch));
    expect(annotated?.output?.annotations?.[0]).toMatchObject({ path: 'app.py', startLine: 2, endLine: 2 });
    expect(server.requestsTo('receive-pack').every((request) => !request.url.includes(TOKEN))).toBe(true);
  });

  it('posts a final comment and pushes nothing when the model declines', async () => {
    const { host, dependencies } = setup([
      fix('try', [{ path: 'app.py', search: 'print(greeting)', replace: 'print(greting)' }]),
      decide(false, 'needs a service that is not there'),
      reflect(),
    ]);
    const before = server.requestsTo('receive-pack').length;
    await runJob(mentionRequest('22222222-bbbb', 13), new AbortController().signal, dependencies);
    expect(host.pulls).toHaveLength(0);
    expect(server.requestsTo('receive-pack')).toHaveLength(before);
    expect(
      host.commentsOn(13).some((body) => body.includes('<!-- selfdebug:final job=22222222-bbbb -->')),
    ).toBe(true);
    expect(host.checkRuns[0]).toMatchObject({ status: 'completed', conclusion: 'failure' });
  });

  it('shows a job stopped while its sandbox opens as cancelled, with who stopped it', async () => {
    const { host, model, dependencies } = setup([]);
    const controller = new AbortController();
    const stopping: JobRunnerDependencies = {
      ...dependencies,
      sandboxProviderFor: () => ({
        kind: 'local',
        // The stop arrives while the sandbox is still being prepared, before the loop could see it.
        open: async () => {
          controller.abort(new JobCancelledError('stopped by @octocat'));
          throw controller.signal.reason;
        },
      }),
    };
    const result = await runJob(mentionRequest('44444444-dddd', 15), controller.signal, stopping);
    expect(result.view?.finished).toMatchObject({ outcome: 'cancelled', reason: 'stopped by @octocat' });
    const status = host
      .commentsOn(15)
      .find((body) => body.includes('<!-- selfdebug:status job=44444444-dddd -->'));
    expect(status).toMatch(/cancelled/i);
    expect(status).toContain('stopped by @');
    expect(host.checkRuns[0]).toMatchObject({ status: 'completed' });
    expect(model.calls).toHaveLength(0);
    expect(host.pulls).toHaveLength(0);
  });

  it('answers an invalid configuration with one comment, and runs nothing', async () => {
    const { host, model, dependencies } = setup([], { max_atempts: 3 });
    await runJob(mentionRequest('33333333-cccc', 14), new AbortController().signal, dependencies);
    const comments = host.commentsOn(14);
    expect(comments).toHaveLength(1);
    expect(comments[0]).toContain('max_atempts');
    expect(model.calls).toHaveLength(0);
    expect(host.checkRuns).toHaveLength(0);
  });

  it('puts an invalid configuration of a failed-run job in a check run on the run commit, and runs nothing', async () => {
    const { host, model, dependencies } = setup([], { max_atempts: 3 });
    const request = mentionRequest('33333333-dddd');
    request.headSha = shas[0]!;
    request.trigger = {
      kind: 'workflow-run',
      runId: 6,
      runAttempt: 1,
      workflowName: 'CI',
      workflowPath: '.github/workflows/ci.yml',
      branch: 'main',
      ownPullRequest: null,
    };
    const result = await runJob(request, new AbortController().signal, dependencies);
    expect(result.problem).toMatchObject({ kind: 'refused' });
    expect(model.calls).toHaveLength(0);
    expect(host.checkRuns).toHaveLength(1);
    expect(host.checkRuns[0]).toMatchObject({
      headSha: shas[0],
      status: 'completed',
      conclusion: 'action_required',
      output: { title: 'Fix .github/selfdebug.yml: selfdebug ignores failed runs until it is valid' },
    });
    expect(host.checkRuns[0]?.output?.summary).toContain('max_atempts');
    expect(host.checkRuns[0]?.output?.summary).toContain('did you mean "max_attempts"?');
  });

  /** Three attempts that apply and still fail, then the reflection. */
  const threeFailures = (): ScriptedAnswer[] => [
    fix('try 1', [{ path: 'app.py', search: 'import sys', replace: 'import sys  # try 1' }]),
    decide(true, 'the name is still undefined'),
    fix('try 2', [{ path: 'app.py', search: 'import sys', replace: 'import sys  # try 2' }]),
    decide(true, 'the name is still undefined'),
    fix('try 3', [{ path: 'app.py', search: 'import sys', replace: 'import sys  # try 3' }]),
    reflect(),
  ];

  it('posts at most max_attempts + 2 comments: the status, one per attempt, the final comment', async () => {
    const { host, dependencies } = setup(threeFailures(), {
      command: 'python3 app.py',
      max_attempts: 3,
      sandbox: { network: 'host' },
    });
    await runJob(mentionRequest('77777777-aaaa', 40), new AbortController().signal, dependencies);
    const comments = host.commentsOn(40);
    expect(comments).toHaveLength(maxCommentsPerJob(3));
    expect(maxCommentsPerJob(3)).toBe(5);
    const markers = comments.map((body) => /<!-- selfdebug:(\w+)/.exec(body)?.[1]);
    expect(markers.sort()).toEqual(['attempt', 'attempt', 'attempt', 'final', 'status']);
    // The operator's ceiling is a note in the status comment, not a comment of its own (it was before).
    const status = comments.find((body) => body.includes('<!-- selfdebug:status'))!;
    expect(status).toContain('> **Note:** `sandbox.network: host` is not allowed by this App');
  });

  it('keeps every transcript in the status comment with report.comments: single', async () => {
    const { host, dependencies } = setup(threeFailures(), {
      command: 'python3 app.py',
      max_attempts: 3,
      report: { comments: 'single' },
    });
    await runJob(mentionRequest('88888888-aaaa', 41), new AbortController().signal, dependencies);
    const comments = host.commentsOn(41);
    expect(comments).toHaveLength(maxCommentsPerJob(3, 'single'));
    expect(comments.some((body) => body.includes('<!-- selfdebug:attempt'))).toBe(false);
    const status = comments.find((body) => body.includes('<!-- selfdebug:status'))!;
    expect(status).toContain('#### Attempts');
    for (const attempt of [1, 2, 3]) {
      expect(status).toContain(`<details><summary>Attempt ${attempt} of 3: ❌ exit 1 after`);
      expect(status).toContain(`# try ${attempt}`);
    }
  });

  it('commits on top of its own pull request after a review, without opening another', async () => {
    const { host, dependencies } = setup([fix('use a constant', [goodEdit]), reflect()]);
    const branch = 'selfdebug/issue-5-review';
    const [base] = await server.createRepository('reviewed', [{ 'app.py': BROKEN }]);
    const pushed = await pushBranch('reviewed', branch, base!);
    const pull = await host.createPullRequest({
      title: 'selfdebug: fix',
      body: 'b',
      head: branch,
      base: 'main',
      draft: true,
    });
    const request = mentionRequest('55555555-eeee');
    request.repository.cloneUrl = server.url('reviewed');
    request.headSha = pushed;
    request.trigger = {
      kind: 'review',
      pullNumber: pull.number,
      reviewId: 77,
      commentId: null,
      branch,
      text: 'Please fix',
      comments: [],
    };
    host.reviews.set(77, [{ path: 'app.py', line: 2, body: 'greeting is undefined' }]);
    await runJob(request, new AbortController().signal, dependencies);
    expect(host.pulls).toHaveLength(1);
    expect(await server.readFile('reviewed', branch, 'app.py')).toContain('greeting = "hello"');
    expect(
      host.commentsOn(pull.number).some((body) => body.includes('selfdebug:status job=55555555-eeee')),
    ).toBe(true);
  });

  it('stops automatic rounds on its own branch at max_rounds', async () => {
    const { host, model, dependencies } = setup([], {
      command: 'python3 app.py',
      triggers: { workflow_runs: { enabled: true, max_rounds: 1 } },
    });
    const branch = 'selfdebug/run-1-abc';
    const [base] = await server.createRepository('rounds', [{ 'app.py': BROKEN }]);
    const head = await pushBranch(
      'rounds',
      branch,
      base!,
      'selfdebug: earlier fix\n\nSelfdebug-Round: workflow-run',
    );
    const request = mentionRequest('66666666-ffff');
    request.repository.cloneUrl = server.url('rounds');
    request.headSha = head;
    request.trigger = {
      kind: 'workflow-run',
      runId: 5,
      runAttempt: 1,
      workflowName: 'CI',
      workflowPath: '.github/workflows/ci.yml',
      branch,
      ownPullRequest: 31,
    };
    // The run exists, as on GitHub; which of its jobs failed does not matter once the limit is reached.
    host.runs.set(5, []);
    await runJob(request, new AbortController().signal, dependencies);
    expect(model.calls).toHaveLength(0);
    expect(host.commentsOn(31).join('\n')).toMatch(/limit is 1.*never loop/s);
    expect(host.checkRuns[0]).toMatchObject({ status: 'completed', conclusion: 'neutral' });
  });

  it('says which command it needs when none is known', async () => {
    const { host, dependencies } = setup([], {});
    await runJob(mentionRequest('44444444-dddd', 15), new AbortController().signal, dependencies);
    expect(host.commentsOn(15).join('\n')).toMatch(/which command to run/);
  });
});
