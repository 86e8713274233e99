import { createServer, type Server } from 'node:http';
import { ProbotOctokit } from 'probot';
import { afterEach, describe, expect, it } from 'vitest';
import { PrometheusMetrics } from '../../src/adapters/prometheus/index.js';
import { observeGitHub } from '../../src/compose/observe-github.js';
import { jobLogFields } from '../../src/jobs/job-log-fields.js';
import { sample } from '../e2e/support/metrics.js';
import { jobRequest } from '../fakes/job-requests.js';

let server: Server | null = null;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(null));
  server = null;
});

/** A GitHub API on 127.0.0.1 that answers as GitHub does, rate-limit headers included. */
async function github(): Promise<string> {
  server = createServer((request, response) => {
    const headers = {
      'content-type': 'application/json',
      'x-ratelimit-remaining': '4321',
      'x-ratelimit-resource': 'core',
    };
    if (request.url?.startsWith('/repos/octo/missing'))
      response.writeHead(404, headers).end('{"message":"Not Found"}');
    else response.writeHead(200, headers).end('{"id":1}');
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as { port: number }).port}`;
}

describe('observeGitHub', () => {
  it('counts requests by method and status and keeps the rate limit GitHub reported, once per Octokit', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const octokit = new ProbotOctokit({
      auth: { token: 'ghs_test' },
      baseUrl: await github(),
      retry: { enabled: false },
    });
    // Observed twice, as the App's handlers may: still one count a request.
    observeGitHub(observeGitHub(octokit, metrics), metrics);

    await octokit.request('GET /repos/{owner}/{repo}', { owner: 'octo', repo: 'stats' });
    await octokit.request('POST /repos/{owner}/{repo}/issues', { owner: 'octo', repo: 'stats', title: 't' });
    await expect(
      octokit.request('GET /repos/{owner}/{repo}', { owner: 'octo', repo: 'missing' }),
    ).rejects.toMatchObject({
      status: 404,
    });
    const { text } = await metrics.exposition();

    expect(sample(text, 'selfdebug_github_requests_total', { method: 'GET', status: '200' })).toBe(1);
    expect(sample(text, 'selfdebug_github_requests_total', { method: 'POST', status: '200' })).toBe(1);
    expect(sample(text, 'selfdebug_github_requests_total', { method: 'GET', status: '404' })).toBe(1);
    expect(sample(text, 'selfdebug_github_rate_limit_remaining', { resource: 'core' })).toBe(4321);
  });
});

describe('jobLogFields', () => {
  it("tags a job's log lines with its job, delivery, run, repository, installation and trigger", () => {
    const request = jobRequest();
    expect(jobLogFields({ request, run: 2, checkpoints: {} })).toEqual({
      job: request.id,
      delivery: request.deliveryId,
      run: 2,
      repository: `${request.repository.owner}/${request.repository.name}`,
      installation: request.installationId,
      trigger: 'mention',
    });
  });
});
