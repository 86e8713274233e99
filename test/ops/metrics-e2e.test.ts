import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mentionInNewIssue } from '../e2e/support/mention.js';
import { metricsUrlOf, sample, scrape } from '../e2e/support/metrics.js';
import { AppProcess, type Child, type ProcessSettings, startWorker } from '../e2e/support/processes.js';
import { STATS } from '../e2e/support/scenario-repos.js';
import { GitHubStandin, type StandinRepository } from '../fakes/github-standin/standin.js';
import { type RuleModelServer, startRuleModelServer } from '../fakes/rule-model-server.js';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { until } from '../helpers/until.js';
import { describeWithRedis, REDIS_URL } from '../queue/redis.js';

/**
 * What an operator's Prometheus sees of one job: the App and two
 * `selfdebug worker` processes on the real Redis queue (a prefix of this
 * run's own), the GitHub stand-in, the Docker sandbox and the scripted model
 * server. A mention is fixed by whichever worker takes it; then the App's and
 * both workers' /metrics are scraped and their counters checked.
 */
describeWithRedis('metrics of a job run through Redis workers', () => {
  describeWithDocker('the App and two workers', () => {
    let standin: GitHubStandin;
    let model: RuleModelServer;
    let app: AppProcess;
    const workers: Child[] = [];
    const workerUrls: string[] = [];

    beforeAll(async () => {
      standin = await GitHubStandin.start();
      model = await startRuleModelServer(STATS.rules);
      const settings: ProcessSettings = {
        githubHost: standin.host,
        appId: standin.appId,
        privateKey: standin.privateKey,
        webhookSecret: randomBytes(20).toString('hex'),
        modelUrl: model.url,
        queuePath: '/nonexistent/unused-with-redis.sqlite',
        image: TEST_IMAGE,
        env: {
          SELFDEBUG_QUEUE: 'redis',
          REDIS_URL,
          SELFDEBUG_REDIS_PREFIX: `selfdebug-ops-${randomUUID()}`,
          SELFDEBUG_CONCURRENCY: '1',
          SELFDEBUG_MODEL_PRICE_INPUT: '1',
          SELFDEBUG_MODEL_PRICE_OUTPUT: '2',
          // One JSON object a line, as a log shipper reads them (and this test does).
          LOG_FORMAT: 'json',
        },
      };
      app = await AppProcess.start(settings);
      const workerSettings = { ...settings, env: { ...settings.env, SELFDEBUG_METRICS_PORT: '0' } };
      workers.push(startWorker(workerSettings, 'worker-1'), startWorker(workerSettings, 'worker-2'));
      for (const worker of workers) workerUrls.push(await metricsUrlOf(worker));
    }, 120_000);

    afterAll(async () => {
      await Promise.all(workers.map((worker) => worker.stop()));
      await app?.child.stop();
      await model?.close();
      await standin?.close();
    }, 60_000);

    const logs = () => [app.child, ...workers].map((child) => child.tail()).join('\n');

    /** Waits for what the test expects, with every process's last lines on a failure. */
    const eventually = (what: string, check: () => boolean | Promise<boolean>) =>
      until(what, check, { intervalMs: 100, context: logs });

    async function mention(repo: StandinRepository) {
      const issueText = '`python stats.py` crashes with a NameError';
      const { payload } = mentionInNewIssue(standin, repo, {
        login: 'alice',
        body: '@selfdebug fix',
        issueText,
      });
      const delivery = await app.deliver('issue_comment', payload);
      expect(delivery.status, logs()).toBe(200);
    }

    it('counts the job on the worker that ran it and the delivery on the App', async () => {
      expect((await scrape(`${app.url}/healthz`)).status).toBe(200);
      expect(await scrape(`${app.url}/readyz`)).toMatchObject({ status: 200, text: 'ready\n' });
      for (const url of workerUrls)
        expect((await scrape(url.replace('/metrics', '/readyz'))).status).toBe(200);

      const repo = await standin.createRepository('octo-org', 'stats', [STATS.files]);
      standin.setPermission(repo.fullName, 'alice', 'write');
      await mention(repo);

      // The job is counted once its record is stored, which is after the pull request is opened.
      const finishedOn = async () => {
        const texts = await Promise.all(workerUrls.map(async (url) => (await scrape(url)).text));
        return texts.map((text) => sample(text, 'selfdebug_jobs_finished_total'));
      };
      await eventually('a worker to count the finished job', async () => (await finishedOn()).includes(1));
      expect(standin.pulls(repo.fullName)).toHaveLength(1);
      const counts = await finishedOn();
      expect(counts.sort()).toEqual([0, 1]);
      const ran = (await finishedOn()).indexOf(1);

      const worker = await scrape(workerUrls[ran]!);
      expect(worker.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
      const mentionFixed = { trigger: 'mention', outcome: 'fixed' };
      expect(sample(worker.text, 'selfdebug_jobs_started_total', { trigger: 'mention' })).toBe(1);
      expect(sample(worker.text, 'selfdebug_jobs_finished_total', mentionFixed)).toBe(1);
      expect(sample(worker.text, 'selfdebug_job_attempts_total', mentionFixed)).toBeGreaterThanOrEqual(1);
      expect(sample(worker.text, 'selfdebug_job_duration_seconds_count', mentionFixed)).toBe(1);
      expect(sample(worker.text, 'selfdebug_job_duration_seconds_sum', mentionFixed)).toBeGreaterThan(0);
      expect(sample(worker.text, 'selfdebug_job_wait_seconds_count', { trigger: 'mention' })).toBe(1);
      // The scripted model answers 960 tokens a call; at 1 and 2 USD a million, each call costs a little.
      const tokens = sample(worker.text, 'selfdebug_model_tokens_total', { trigger: 'mention' });
      expect(tokens).toBeGreaterThan(0);
      expect(tokens % 960).toBe(0);
      expect(sample(worker.text, 'selfdebug_model_cost_usd_total', { trigger: 'mention' })).toBeGreaterThan(
        0,
      );
      expect(sample(worker.text, 'selfdebug_sandbox_command_seconds_count')).toBeGreaterThanOrEqual(2);
      expect(sample(worker.text, 'selfdebug_github_requests_total', { method: 'POST' })).toBeGreaterThan(0);
      // The stand-in reports GitHub's rate limit on each answer (5,000 an hour per token): the job spent some.
      const remaining = sample(worker.text, 'selfdebug_github_rate_limit_remaining', { resource: 'core' });
      expect(remaining).toBeGreaterThan(0);
      expect(remaining).toBeLessThan(5000);
      // The queue's depth is the App's to report: summed over workers it would count the queue once each.
      expect(worker.text).not.toContain('selfdebug_queue_jobs');

      const other = await scrape(workerUrls[1 - ran]!);
      expect(sample(other.text, 'selfdebug_jobs_started_total')).toBe(0);

      const front = await scrape(`${app.url}/metrics`);
      expect(front.status).toBe(200);
      expect(sample(front.text, 'selfdebug_webhook_deliveries_total', { event: 'issue_comment' })).toBe(1);
      // The handler read the repository's configuration and reacted with 👀.
      expect(sample(front.text, 'selfdebug_github_requests_total', { method: 'GET' })).toBeGreaterThan(0);
      expect(sample(front.text, 'selfdebug_github_requests_total', { method: 'POST' })).toBeGreaterThan(0);
      expect(sample(front.text, 'selfdebug_queue_jobs', { state: 'waiting' })).toBe(0);
      expect(sample(front.text, 'selfdebug_queue_jobs', { state: 'running' })).toBe(0);
      expect(sample(front.text, 'selfdebug_jobs_finished_total')).toBe(0);

      // The job's lines (its child logger's, and the worker's start and finish) carry its repository and installation.
      const lines = workers[ran]!.output.split('\n').filter((line) => line.startsWith('{'));
      const finished = lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'job finished');
      expect(finished, workers[ran]!.tail()).toMatchObject({
        repository: 'octo-org/stats',
        installation: standin.installationId,
        trigger: 'mention',
        outcome: 'fixed',
      });
      expect(finished.delivery).toEqual(expect.any(String));
      expect(standin.problems).toEqual([]);
    }, 240_000);
  });
});
