import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubCodeHost } from '../../src/adapters/github/github-code-host.js';
import type { CheckAnnotation } from '../../src/code-host/code-host.js';
import { assertGitHubMocksDone, blockNetwork, githubApi, testOctokit } from '../helpers/github-api.js';

const checkRuns = '/repos/octo-org/flaky-scripts/check-runs';
const sha = 'd'.repeat(40);
const now = new Date('2024-05-01T12:00:00Z');

function host() {
  return new GitHubCodeHost(testOctokit(), { owner: 'octo-org', repo: 'flaky-scripts', now: () => now });
}

function annotations(count: number): CheckAnnotation[] {
  return Array.from({ length: count }, (_, index) => ({
    path: 'run.sh',
    startLine: index + 1,
    endLine: index + 1,
    level: index % 2 === 0 ? 'failure' : 'warning',
    message: `problem ${index + 1}`,
    ...(index === 0 ? { title: 'first' } : {}),
  }));
}

type Body = {
  status?: string;
  conclusion?: string;
  completed_at?: string;
  output?: { title: string; summary: string; text?: string; annotations?: { start_line: number }[] };
};

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe('GitHubCodeHost check runs', () => {
  it('creates an in-progress check run with a details link', async () => {
    githubApi()
      .post(checkRuns, {
        name: 'selfdebug',
        head_sha: sha,
        status: 'in_progress',
        details_url: 'https://selfdebug.example/jobs/1',
        output: { title: 'Reproducing', summary: 'Running the command' },
      })
      .reply(201, {
        id: 501,
        url: 'https://api.github.com/x',
        html_url: 'https://github.com/octo-org/flaky-scripts/runs/501',
      });

    await expect(
      host().createCheckRun({
        name: 'selfdebug',
        headSha: sha,
        status: 'in_progress',
        detailsUrl: 'https://selfdebug.example/jobs/1',
        output: { title: 'Reproducing', summary: 'Running the command' },
      }),
    ).resolves.toEqual({ id: 501, url: 'https://github.com/octo-org/flaky-scripts/runs/501' });
  });

  it('creates a check run with 120 annotations in requests of at most 50', async () => {
    const bodies: Body[] = [];
    const keep = (body: Body) => bodies.push(body) > 0;
    githubApi()
      .post(checkRuns, keep)
      .reply(201, { id: 502, url: 'https://api.github.com/x', html_url: 'https://github.com/runs/502' })
      .patch(`${checkRuns}/502`, keep)
      .times(2)
      .reply(200, { id: 502 });

    await host().createCheckRun({
      name: 'selfdebug',
      headSha: sha,
      status: 'completed',
      conclusion: 'failure',
      output: {
        title: 'Not fixed',
        summary: 'Three attempts',
        text: 'Details',
        annotations: annotations(120),
      },
    });

    expect(bodies.map((body) => body.output?.annotations?.length)).toEqual([50, 50, 20]);
    expect(
      bodies.flatMap((body) => body.output?.annotations?.map((annotation) => annotation.start_line)),
    ).toEqual(Array.from({ length: 120 }, (_, index) => index + 1));
    for (const body of bodies)
      expect(body.output).toMatchObject({ title: 'Not fixed', summary: 'Three attempts', text: 'Details' });
    expect(bodies[0]).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      completed_at: now.toISOString(),
    });
    expect(bodies.slice(1).map((body) => [body.status, body.conclusion, body.completed_at])).toEqual([
      [undefined, undefined, undefined],
      [undefined, undefined, undefined],
    ]);
    expect(bodies[0]?.output?.annotations?.[0]).toEqual({
      path: 'run.sh',
      start_line: 1,
      end_line: 1,
      annotation_level: 'failure',
      message: 'problem 1',
      title: 'first',
    });
  });

  it('completes a check run with 120 annotations over three updates', async () => {
    const bodies: Body[] = [];
    githubApi()
      .patch(`${checkRuns}/503`, (body: Body) => bodies.push(body) > 0)
      .times(3)
      .reply(200, { id: 503 });

    await host().updateCheckRun(503, {
      conclusion: 'success',
      output: { title: 'Fixed', summary: 'Attempt 2 passed', annotations: annotations(120) },
    });

    expect(bodies.map((body) => body.output?.annotations?.length)).toEqual([50, 50, 20]);
    expect(bodies[0]).toMatchObject({ conclusion: 'success', completed_at: now.toISOString() });
    expect(bodies[0]).not.toHaveProperty('status');
  });

  it('sends only what changed, without completed_at, while the run is in progress', async () => {
    const api = githubApi().patch(`${checkRuns}/504`, { status: 'in_progress' }).reply(200, { id: 504 });

    await host().updateCheckRun(504, { status: 'in_progress' });
    // The mock matches the body exactly: being used proves nothing else was sent.
    expect(api.isDone()).toBe(true);
  });
});
