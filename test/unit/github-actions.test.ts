import { Readable } from 'node:stream';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubCodeHost } from '../../src/adapters/github/github-code-host.js';
import { GitHubApiError } from '../../src/errors/github-errors.js';
import {
  assertGitHubMocksDone,
  blockNetwork,
  GITHUB_API,
  githubApi,
  testOctokit,
} from '../helpers/github-api.js';

const repo = '/repos/octo-org/flaky-scripts';
const logHost = 'https://pipelines.actions.test.invalid';
const signedPath = '/logs/jobs/42/signedlogcontent';

function host() {
  return new GitHubCodeHost(testOctokit(), { owner: 'octo-org', repo: 'flaky-scripts' });
}

function job(
  id: number,
  conclusion: string | null,
  steps: { name: string; conclusion: string | null }[] = [],
) {
  return {
    id,
    name: `job ${id}`,
    status: 'completed',
    conclusion,
    steps: steps.map((step, index) => ({ ...step, number: index + 1, status: 'completed' })),
  };
}

async function collect(stream: Readable): Promise<{ bytes: number; chunks: number; text: string }> {
  let bytes = 0;
  let chunks = 0;
  let head = '';
  for await (const chunk of stream) {
    const buffer = Buffer.from(chunk as Uint8Array);
    if (head.length < 64) head += buffer.toString('utf8', 0, 64);
    bytes += buffer.length;
    chunks += 1;
  }
  return { bytes, chunks, text: head };
}

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe('GitHubCodeHost.failedJobs', () => {
  it('keeps the failed jobs of the latest attempt, across pages, with their steps', async () => {
    githubApi()
      .get(`${repo}/actions/runs/900/jobs`)
      .query({ filter: 'latest', per_page: 100 })
      .reply(
        200,
        {
          total_count: 4,
          jobs: [
            job(1, 'success'),
            job(2, 'failure', [
              { name: 'Set up job', conclusion: 'success' },
              { name: 'Run tests', conclusion: 'failure' },
              { name: 'Upload', conclusion: 'skipped' },
            ]),
          ],
        },
        {
          link: `<${GITHUB_API}${repo}/actions/runs/900/jobs?filter=latest&per_page=100&page=2>; rel="next"`,
        },
      )
      .get(`${repo}/actions/runs/900/jobs`)
      .query({ filter: 'latest', per_page: 100, page: 2 })
      .reply(200, { total_count: 4, jobs: [job(3, 'cancelled'), job(4, 'failure')] });

    await expect(host().failedJobs(900)).resolves.toEqual([
      {
        id: 2,
        name: 'job 2',
        conclusion: 'failure',
        steps: [
          { number: 1, name: 'Set up job', conclusion: 'success' },
          { number: 2, name: 'Run tests', conclusion: 'failure' },
          { number: 3, name: 'Upload', conclusion: 'skipped' },
        ],
      },
      { id: 4, name: 'job 4', conclusion: 'failure', steps: [] },
    ]);
  });
});

describe('GitHubCodeHost.jobLog', () => {
  it('follows the redirect itself and streams a multi-megabyte log without the token', async () => {
    const line = `2024-05-01T12:00:00.0000000Z ${'x'.repeat(70)}\n`;
    const block = line.repeat(500);
    const blocks = 120;
    // The server sends the second half only once the caller holds the first
    // bytes: an adapter that buffered the whole log would wait here forever.
    let firstBytesSeen: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      firstBytesSeen = resolve;
    });
    async function* server() {
      for (let index = 0; index < blocks; index++) {
        if (index === blocks / 2) await gate;
        yield block;
      }
    }
    const seenHeaders: Record<string, string>[] = [];
    githubApi()
      .get(`${repo}/actions/jobs/42/logs`)
      .reply(302, '', { location: `${logHost}${signedPath}?sig=s3cr3t&se=2024` });
    nock(logHost, { badheaders: ['authorization'] })
      .get(signedPath)
      .query({ sig: 's3cr3t', se: '2024' })
      .reply(function reply() {
        seenHeaders.push(this.req.headers);
        return [200, Readable.from(server()), { 'content-type': 'text/plain; charset=utf-8' }];
      });

    const stream = await host().jobLog(42);
    let bytes = 0;
    let chunks = 0;
    for await (const chunk of stream) {
      bytes += Buffer.from(chunk as Uint8Array).length;
      chunks += 1;
      firstBytesSeen();
    }

    expect(bytes).toBe(block.length * blocks);
    expect(bytes).toBeGreaterThan(5_000_000);
    expect(chunks).toBeGreaterThan(1);
    expect(seenHeaders).toHaveLength(1);
    expect(Object.keys(seenHeaders[0] ?? {}).map((name) => name.toLowerCase())).not.toContain(
      'authorization',
    );
  }, 15_000);

  it('streams the body when GitHub answers the log directly', async () => {
    githubApi()
      .get(`${repo}/actions/jobs/43/logs`)
      .reply(200, 'line one\nline two\n', { 'content-type': 'text/plain; charset=utf-8' });

    await expect(collect(await host().jobLog(43))).resolves.toMatchObject({ text: 'line one\nline two\n' });
  });

  it('reports an expired log link without quoting the signed URL', async () => {
    githubApi()
      .get(`${repo}/actions/jobs/44/logs`)
      .reply(302, '', { location: `${logHost}/logs/jobs/44?sig=s3cr3t` });
    nock(logHost).get('/logs/jobs/44').query({ sig: 's3cr3t' }).reply(403, 'AuthenticationFailed');

    const error = await host()
      .jobLog(44)
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(GitHubApiError);
    expect(error).toMatchObject({ status: 403, retryable: true });
    expect((error as Error).message).toContain('pipelines.actions.test.invalid');
    expect((error as Error).message).not.toContain('s3cr3t');
  });

  it('maps a missing job to a not-found error', async () => {
    githubApi().get(`${repo}/actions/jobs/45/logs`).reply(404, { message: 'Not Found' });

    await expect(host().jobLog(45)).rejects.toMatchObject({ code: 'github-not-found', status: 404 });
  });
});
