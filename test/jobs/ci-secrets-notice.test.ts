import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitWorkspaceProvider } from '../../src/adapters/git/git-workspace-provider.js';
import { LocalSandboxProvider } from '../../src/adapters/local/local-sandbox-provider.js';
import { loadAppConfig } from '../../src/config/app-config.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { parseModelConfig } from '../../src/config/model-config.js';
import { ModelAuthError } from '../../src/errors/index.js';
import { ciSecretsDue } from '../../src/jobs/ci-secrets-notice.js';
import { jobResult } from '../../src/jobs/job-handler.js';
import { type JobRunnerDependencies, runJob } from '../../src/jobs/run-job.js';
import { type ScriptedAnswer, ScriptedModel } from '../../src/model/scripted-model.js';
import type { JobRequest } from '../../src/queue/job-request.js';
import { MemoryJobStore } from '../../src/queue/memory-store.js';
import { silentLogger } from '../../src/util/logger.js';
import { FakeCodeHost } from '../fakes/fake-code-host.js';
import { jobRequest, mentionTrigger } from '../fakes/job-requests.js';
import { GitHttpServer } from '../helpers/git-http-server.js';
import { fix, reflect } from '../helpers/loop-fixtures.js';

const TOKEN = 'ghs_jobtoken0123456789abcdefghijklmnop';
const EXPR = (inside: string) => ['$', `{{ ${inside} }}`].join('');
const DEPLOY = `name: Deploy preview
on: [push, pull_request]
jobs:
  deploy:
    runs-on: ubuntu-latest
    steps:
      - run: ./deploy.sh
        env:
          NETLIFY_AUTH_TOKEN: ${EXPR('secrets.NETLIFY_AUTH_TOKEN')}
`;
const goodEdit = {
  path: 'app.py',
  search: 'print(greeting)',
  replace: 'greeting = "hello"\nprint(greeting)',
};

describe("the App's first check run on a repository warns of CI that reads secrets", () => {
  let server: GitHttpServer;
  let sha: string;

  beforeAll(async () => {
    server = await GitHttpServer.start({ token: TOKEN });
    const files = { 'app.py': 'print(greeting)\n', '.github/workflows/deploy.yml': DEPLOY };
    [sha] = (await server.createRepository('app', [files])) as [string];
  });
  afterAll(() => server.close());

  const fixes = (): ScriptedAnswer[] => [fix('greeting is undefined', [goodEdit]), reflect()];

  function dependencies(
    host: FakeCodeHost,
    store: MemoryJobStore,
    answers: ScriptedAnswer[],
  ): JobRunnerDependencies {
    return {
      codeHostFor: async () => host,
      tokenFor: async () => TOKEN,
      workspaces: new GitWorkspaceProvider({ allowedProtocols: ['http'], host: process.env }),
      sandboxProviderFor: (config) =>
        new LocalSandboxProvider({ ...config, kind: 'local' }, { host: process.env, warn: () => {} }),
      modelFor: () => new ScriptedModel(answers),
      sandboxConfig: parseSandboxConfig({ kind: 'local', commandTimeoutSeconds: 30 }),
      modelConfig: parseModelConfig({ apiKey: 'sk-test-secret-key-0123456789' }),
      appConfig: loadAppConfig({}),
      logger: silentLogger,
      environment: {},
      // What startJobs gives the runner: the store's history of the repository.
      ciSecretsDue: ciSecretsDue(store),
    };
  }

  function request(id: string): JobRequest {
    return jobRequest({
      id,
      dedupeKey: `comment-${id}`,
      repository: { ...jobRequest().repository, name: 'app', cloneUrl: server.url('app') },
      trigger: mentionTrigger({ issueNumber: 12, text: 'app.py crashes' }),
    });
  }

  /**
   * Runs one job the way the worker does: claimed from the store, completed
   * into its history. `config` is the repository's `.github/selfdebug.yml`;
   * without a command the mention is refused before anything is cloned.
   */
  async function runThroughStore(
    store: MemoryJobStore,
    id: string,
    job: { config?: Record<string, unknown>; answers?: ScriptedAnswer[] } = {},
  ): Promise<FakeCodeHost> {
    const host = new FakeCodeHost('octo/app');
    host.branches.set('main', sha);
    host.permissions.set('octocat', 'write');
    host.config = job.config ?? { command: 'python3 app.py' };
    await store.enqueue(request(id));
    const lease = await store.claim('worker');
    const signal = new AbortController().signal;
    const ran = await runJob(lease!.job.request, signal, dependencies(host, store, job.answers ?? fixes()));
    await lease!.complete(jobResult(ran, signal));
    return host;
  }

  const WARNING = /^\*\*Your CI would run selfdebug's fixes with secrets\.\*\*/;

  it('names the workflow and its secret on the first job only', async () => {
    const store = new MemoryJobStore();
    const first = await runThroughStore(store, '11111111-aaaa');
    const summary = first.checkRuns[0]?.output?.summary ?? '';
    expect(first.checkRuns[0]).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(summary).toMatch(/^\*\*Your CI would run selfdebug's fixes with secrets\.\*\*/);
    expect(summary).toContain(
      '`Deploy preview` (`.github/workflows/deploy.yml`), on push, pull_request: secrets `NETLIFY_AUTH_TOKEN`',
    );
    expect(summary).toContain("branches-ignore: ['selfdebug/**']");

    const second = await runThroughStore(store, '22222222-bbbb');
    expect(second.checkRuns[0]).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(second.checkRuns[0]?.output?.summary).not.toContain('secrets');
  });

  it('leaves the warning due when the first job is refused before its checkout: the next job shows it', async () => {
    const store = new MemoryJobStore();
    // No command anywhere: refused before the clone, with a comment and no check run.
    const refused = await runThroughStore(store, '33333333-cccc', { config: {} });
    expect(refused.comments.map((comment) => comment.body).join('\n')).toContain(
      'I do not know which command',
    );
    expect(refused.checkRuns).toEqual([]);
    expect((await store.history())[0]).toMatchObject({ outcome: 'refused' });
    expect((await store.history())[0]?.ciSecretsShown).toBeUndefined();

    const next = await runThroughStore(store, '44444444-dddd');
    expect(next.checkRuns[0]).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(next.checkRuns[0]?.output?.summary).toMatch(WARNING);

    const third = await runThroughStore(store, '55555555-eeee');
    expect(third.checkRuns[0]?.output?.summary).not.toContain('secrets');
  });

  it('puts the warning on the check run of a first job that fails after its checkout (its setup)', async () => {
    const store = new MemoryJobStore();
    // The job's setup fails: the job stops before the loop, and its check run says why.
    const config = { command: 'python3 app.py', setup: ['echo "no such package" >&2; exit 3'] };
    const failed = await runThroughStore(store, '66666666-ffff', { config });
    const summary = failed.checkRuns[0]?.output?.summary ?? '';
    expect(failed.checkRuns[0]).toMatchObject({ status: 'completed', conclusion: 'neutral' });
    expect(summary).toMatch(WARNING);
    expect(summary).toContain('The job failed before it could finish');
    expect((await store.history())[0]).toMatchObject({ outcome: 'failed', ciSecretsShown: true });

    const next = await runThroughStore(store, '77777777-aaaa');
    expect(next.checkRuns[0]?.output?.summary).not.toContain('secrets');
  });

  it('puts the warning on the check run of a first job whose loop ends in an error', async () => {
    const store = new MemoryJobStore();
    const answers = [new ModelAuthError('The model API refused the key: ask the operator.')];
    const failed = await runThroughStore(store, '88888888-bbbb', { answers });
    const summary = failed.checkRuns[0]?.output?.summary ?? '';
    expect(failed.checkRuns[0]).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(summary).toMatch(WARNING);
    expect(summary).toContain('The model API refused the key');
    expect((await store.history())[0]).toMatchObject({ ciSecretsShown: true });
  });
});
