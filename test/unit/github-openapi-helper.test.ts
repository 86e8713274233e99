import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  assertGitHubMocksDone,
  blockNetwork,
  documentedExample,
  documentedReply,
  githubApi,
  recordedProblems,
  requestProblems,
  testOctokit,
} from '../helpers/github-api.js';

const repository = { owner: 'octo-org', repo: 'flaky-scripts' };

describe('the GitHub mock helper', () => {
  beforeEach(() => blockNetwork());
  afterEach(() => assertGitHubMocksDone());

  it('accepts a documented call with a valid body', async () => {
    githubApi().post('/repos/octo-org/flaky-scripts/issues/7/comments', { body: 'hi' }).reply(201, { id: 1 });

    await testOctokit().rest.issues.createComment({ ...repository, issue_number: 7, body: 'hi' });

    expect(recordedProblems()).toEqual([]);
  });

  it('flags a route GitHub does not have', async () => {
    githubApi().post('/repos/octo-org/flaky-scripts/issues/7/replies').reply(201, { id: 1 });

    await testOctokit().request('POST /repos/{owner}/{repo}/issues/{issue_number}/replies', {
      ...repository,
      issue_number: 7,
      body: 'hi',
    });

    expect(recordedProblems()).toEqual([
      "POST /repos/octo-org/flaky-scripts/issues/7/replies: GitHub's REST API has no such route",
    ]);
    expect(assertGitHubMocksDone).toThrow(/no such route/);
  });

  it('flags a body GitHub would reject', async () => {
    githubApi().post('/repos/octo-org/flaky-scripts/issues/7/comments').reply(201, { id: 1 });

    // A literal route escapes Octokit's typing, as a hand-written request would.
    await testOctokit().request('POST /repos/octo-org/flaky-scripts/issues/7/comments', { body: 42 });

    expect(recordedProblems()).toEqual([
      expect.stringContaining(
        '/repos/{owner}/{repo}/issues/{issue_number}/comments): body/body must be string',
      ),
    ]);
    expect(assertGitHubMocksDone).toThrow(/GitHub would reject/);
  });

  it('flags an undocumented query parameter, a bad path parameter and a missing required field', () => {
    expect(requestProblems('GET', '/repos/o/r/actions/runs/1/jobs?filter=newest&colour=red', '')).toEqual([
      expect.stringContaining('query parameter "colour" is not documented'),
      expect.stringContaining('query/filter must be equal to one of the allowed values'),
    ]);
    expect(requestProblems('GET', '/repos/o/r/pulls/abc', '')).toEqual([
      expect.stringContaining('path/pull_number must be integer'),
    ]);
    expect(requestProblems('POST', '/repos/o/r/check-runs', JSON.stringify({ name: 'selfdebug' }))).toEqual([
      expect.stringContaining("body must have required property 'head_sha'"),
    ]);
  });

  it('flags a mocked response that does not match the documented schema', async () => {
    // GitHub's own example lacks `type` in its requested teams, which its schema requires.
    const example = documentedExample('GET /repos/{owner}/{repo}/pulls/{pull_number}', 200) as object;
    const pull = { ...example, requested_teams: [] };
    githubApi()
      .get('/repos/octo-org/flaky-scripts/pulls/1')
      .reply(documentedReply(200, pull))
      .get('/repos/octo-org/flaky-scripts/pulls/2')
      .reply(documentedReply(200, { ...pull, number: 'two' }));

    await testOctokit().rest.pulls.get({ ...repository, pull_number: 1 });
    expect(recordedProblems()).toEqual([]);
    await testOctokit().rest.pulls.get({ ...repository, pull_number: 2 });

    expect(recordedProblems()).toEqual([expect.stringContaining('body/number must be integer')]);
    expect(assertGitHubMocksDone).toThrow(/body\/number must be integer/);
  });

  it('fails on a mock left unused and on a request no mock matched', async () => {
    githubApi().get('/repos/octo-org/flaky-scripts/branches/main').reply(200, {});

    await expect(testOctokit().rest.repos.getBranch({ ...repository, branch: 'dev' })).rejects.toThrow();

    expect(assertGitHubMocksDone).toThrow(
      /mock never called: GET https:\/\/api\.github\.com:443\/repos\/octo-org\/flaky-scripts\/branches\/main[\s\S]*request no mock matched: GET .*branches\/dev/,
    );
  });

  it('refuses connections to anything but loopback', async () => {
    await expect(fetch('https://example.test.invalid/')).rejects.toThrow();
    expect(assertGitHubMocksDone).toThrow(/request no mock matched/);
  });
});
