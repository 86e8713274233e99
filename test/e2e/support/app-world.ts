import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitHubStandin, type StandinRepository } from '../../fakes/github-standin/standin.js';
import { type ModelRule, type RuleModelServer, startRuleModelServer } from '../../fakes/rule-model-server.js';
import { TEST_IMAGE } from '../../helpers/docker.js';
import { until } from '../../helpers/until.js';
import { mentionInNewIssue } from './mention.js';
import { AppProcess, type Child, type ProcessSettings, startWorker } from './processes.js';

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
    private currentWorker: Child,
    private readonly queueDir: string,
  ) {}

  get worker(): Child {
    return this.currentWorker;
  }

  /** Kills the worker (SIGKILL: no clean-up) and starts another on the same queue. */
  async replaceWorker(name: string): Promise<void> {
    await this.currentWorker.stop('SIGKILL');
    this.currentWorker = startWorker(this.settings, name);
  }

  static async start(rules: ModelRule[], env: Record<string, string> = {}): Promise<AppWorld> {
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
      env: { SELFDEBUG_CONCURRENCY: '2', ...env },
    };
    const app = await AppProcess.start(settings);
    return new AppWorld(standin, model, settings, app, startWorker(settings), queueDir);
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
