import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteJobStore } from '../../../src/adapters/sqlite/sqlite-store.js';
import { GitHubStandin, type StandinRepository } from '../../fakes/github-standin/standin.js';
import { type ModelRule, type RuleModelServer, startRuleModelServer } from '../../fakes/rule-model-server.js';
import { TEST_IMAGE } from '../../helpers/docker.js';
import { until } from '../../helpers/until.js';
import { mentionInNewIssue } from './mention.js';
import { metricsUrlOf } from './metrics.js';
import { AppProcess, type Child, type ProcessSettings, startWorker } from './processes.js';

/** What a scenario changes in the world it starts. */
export interface AppWorldOptions {
  /** More variables for both processes, e.g. SELFDEBUG_CONCURRENCY. */
  env?: Record<string, string>;
  /** More variables for the worker alone, e.g. SELFDEBUG_METRICS_PORT. */
  workerEnv?: Record<string, string>;
}

/**
 * The world an App scenario runs in: the GitHub stand-in, the rule model
 * server, the App and one `selfdebug worker` as real processes sharing a
 * SQLite queue. Started once per test file; `close` stops what `start` began.
 */
export class AppWorld {
  private constructor(
    readonly standin: GitHubStandin,
    readonly model: RuleModelServer,
    readonly settings: ProcessSettings,
    readonly app: AppProcess,
    private readonly workerSettings: ProcessSettings,
    private currentWorker: Child,
    private readonly queueDir: string,
  ) {}

  get worker(): Child {
    return this.currentWorker;
  }

  /** Kills the worker (SIGKILL: no clean-up) and starts another on the same queue. */
  async replaceWorker(name: string): Promise<void> {
    await this.currentWorker.stop('SIGKILL');
    this.currentWorker = startWorker(this.workerSettings, name);
  }

  /** Where the worker serves /metrics; the world must have been started with `workerEnv: { SELFDEBUG_METRICS_PORT: '0' }`. */
  workerMetricsUrl(): Promise<string> {
    return metricsUrlOf(this.worker);
  }

  static async start(rules: ModelRule[], options: AppWorldOptions = {}): Promise<AppWorld> {
    const standin = await GitHubStandin.start();
    const model = await startRuleModelServer(rules);
    const queueDir = await mkdtemp(join(tmpdir(), 'selfdebug-e2e-'));
    const settings: ProcessSettings = {
      githubHost: standin.host,
      appId: standin.appId,
      privateKey: standin.privateKey,
      webhookSecret: randomBytes(20).toString('hex'),
      modelUrl: model.url,
      queuePath: join(queueDir, 'queue.sqlite'),
      image: TEST_IMAGE,
      env: { SELFDEBUG_CONCURRENCY: '2', ...options.env },
    };
    const workerSettings = { ...settings, env: { ...settings.env, ...options.workerEnv } };
    const app = await AppProcess.start(settings);
    return new AppWorld(standin, model, settings, app, workerSettings, startWorker(workerSettings), queueDir);
  }

  async close(): Promise<void> {
    await this.worker.stop();
    await this.app.child.stop();
    await this.model.close();
    await this.standin.close();
    await rm(this.queueDir, { recursive: true, force: true });
  }

  /** Both processes' last lines, for a failing assertion's message. */
  logs(): string {
    return `${this.app.child.tail()}\n${this.worker.tail()}`;
  }

  /** Waits for what a scenario expects, with both processes' last lines on a failure. */
  eventually(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
    return until(what, check, { intervalMs: 100, context: () => this.logs() });
  }

  /** A mention in a new issue of `repo` by `login`, delivered to the App. */
  async mention(repo: StandinRepository, login: string, text: string, issueText: string) {
    const { issue, comment, payload } = mentionInNewIssue(this.standin, repo, {
      login,
      body: text,
      issueText,
    });
    const delivery = await this.app.deliver('issue_comment', payload);
    if (delivery.status !== 200) throw new Error(`the App answered ${delivery.status}\n${this.logs()}`);
    return { issue, comment, delivery };
  }

  /** The finished jobs of `repo` as the queue keeps them. */
  async history(repo: StandinRepository) {
    const store = new SqliteJobStore(this.settings.queuePath);
    try {
      return await store.history({ repository: repo.fullName });
    } finally {
      await store.close();
    }
  }

  statusComment(repo: StandinRepository, number: number) {
    return this.standin
      .comments(repo.fullName, number)
      .find((comment) => comment.body.includes('selfdebug:status'));
  }

  attemptComments(repo: StandinRepository, number: number) {
    return this.standin
      .comments(repo.fullName, number)
      .filter((comment) => comment.body.includes('selfdebug:attempt'));
  }
}
