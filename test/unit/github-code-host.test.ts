import type nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubCodeHost } from '../../src/adapters/github/github-code-host.js';
import { GitHubApiError, GitHubNotFoundError } from '../../src/errors/github-errors.js';
import {
  assertGitHubMocksDone,
  blockNetwork,
  documentedExample,
  documentedReply,
  GITHUB_API,
  githubApi,
  TEST_TOKEN,
  testOctokit,
} from '../helpers/github-api.js';

const repo = '/repos/octo-org/flaky-scripts';
const marker = '<!-- selfdebug:status -->';

function host() {
  return new GitHubCodeHost(testOctokit(), { owner: 'octo-org', repo: 'flaky-scripts' });
}

function comment(id: number, body: string) {
  return { id, body, html_url: `https://github.com/octo-org/flaky-scripts/issues/7#issuecomment-${id}` };
}

function nextPage(page: number) {
  return { link: `<${GITHUB_API}${repo}/issues/7/comments?per_page=100&page=${page}>; rel="next"` };
}

/** Every request `scope` intercepts, as `METHOD path` with its JSON body, in order. */
function recorded(scope: nock.Scope): { request: string; body: unknown }[] {
  const requests: { request: string; body: unknown }[] = [];
  scope.on('request', (request: { method?: string; path?: string }, _interceptor: unknown, body: string) => {
    requests.push({
      request: `${request.method} ${request.path}`,
      body: body ? JSON.parse(body) : undefined,
    });
  });
  return requests;
}

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe('GitHubCodeHost comments', () => {
  it('creates the comment when none holds the marker', async () => {
    const scope = githubApi()
      .get(`${repo}/issues/7/comments`)
      .query({ per_page: 100 })
      .reply(200, [comment(1, 'unrelated')])
      .post(`${repo}/issues/7/comments`, { body: `${marker}\nworking` })
      .matchHeader('authorization', `token ${TEST_TOKEN}`)
      .reply(201, comment(9, `${marker}\nworking`));

    await expect(host().upsertComment(7, marker, `${marker}\nworking`)).resolves.toEqual({
      id: 9,
      url: 'https://github.com/octo-org/flaky-scripts/issues/7#issuecomment-9',
    });
    expect(scope.isDone()).toBe(true);
  });

  it('updates the comment holding the marker when it is on the second page', async () => {
    const firstPage = Array.from({ length: 100 }, (_, index) => comment(index + 1, `comment ${index}`));
    const scope = githubApi()
      .get(`${repo}/issues/7/comments`)
      .query({ per_page: 100 })
      .reply(200, firstPage, nextPage(2))
      .get(`${repo}/issues/7/comments`)
      .query({ per_page: 100, page: 2 })
      .reply(200, [comment(150, 'other'), comment(151, `old status\n${marker}`)])
      .patch(`${repo}/issues/comments/151`, { body: `${marker}\ndone` })
      .reply(200, comment(151, `${marker}\ndone`));

    const posted = await host().upsertComment(7, marker, `${marker}\ndone`);

    expect(posted).toEqual({
      id: 151,
      url: 'https://github.com/octo-org/flaky-scripts/issues/7#issuecomment-151',
    });
    // Both pages read, the one comment edited, nothing created.
    expect(scope.isDone()).toBe(true);
  });

  it('does not take the same text without the marker for ours', async () => {
    const scope = githubApi()
      .get(`${repo}/issues/7/comments`)
      .query({ per_page: 100 })
      .reply(200, [comment(3, 'selfdebug:status\nworking'), comment(4, '<!-- selfdebug:other -->')])
      .post(`${repo}/issues/7/comments`, { body: `${marker}\nworking` })
      .reply(201, comment(5, `${marker}\nworking`));

    await expect(host().upsertComment(7, marker, `${marker}\nworking`)).resolves.toEqual({
      id: 5,
      url: 'https://github.com/octo-org/flaky-scripts/issues/7#issuecomment-5',
    });
    // A new comment was posted; neither look-alike was edited.
    expect(scope.isDone()).toBe(true);
  });

  it('creates a plain comment', async () => {
    const scope = githubApi()
      .post(`${repo}/issues/8/comments`, { body: 'attempt 1' })
      .reply(
        documentedReply(201, {
          ...(documentedExample('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', 201) as object),
          id: 77,
          html_url: 'https://github.com/octo-org/flaky-scripts/issues/8#issuecomment-77',
        }),
      );

    await expect(host().createComment(8, 'attempt 1')).resolves.toEqual({
      id: 77,
      url: 'https://github.com/octo-org/flaky-scripts/issues/8#issuecomment-77',
    });
    expect(scope.isDone()).toBe(true);
  });

  it('reacts to an issue and to an issue comment', async () => {
    const scope = githubApi()
      .post(`${repo}/issues/7/reactions`)
      .reply(201, { id: 1, content: 'eyes' })
      .post(`${repo}/issues/comments/55/reactions`)
      .reply(201, { id: 2, content: 'rocket' });
    const requests = recorded(scope);

    await expect(host().react({ issueNumber: 7 }, 'eyes')).resolves.toBeUndefined();
    await expect(host().react({ commentId: 55 }, 'rocket')).resolves.toBeUndefined();

    expect(scope.isDone()).toBe(true);
    expect(requests).toEqual([
      { request: `POST ${repo}/issues/7/reactions`, body: { content: 'eyes' } },
      { request: `POST ${repo}/issues/comments/55/reactions`, body: { content: 'rocket' } },
    ]);
  });

  it('adds labels, and sends nothing for none', async () => {
    const scope = githubApi()
      .post(`${repo}/issues/7/labels`)
      .reply(200, [{ name: 'selfdebug' }, { name: 'bug' }]);
    const requests = recorded(scope);

    await expect(host().addLabels(7, ['selfdebug', 'bug'])).resolves.toBeUndefined();
    await expect(host().addLabels(7, [])).resolves.toBeUndefined();

    expect(scope.isDone()).toBe(true);
    // One request: the empty list sent none (a second would also be unmatched, failing afterEach).
    expect(requests).toEqual([
      { request: `POST ${repo}/issues/7/labels`, body: { labels: ['selfdebug', 'bug'] } },
    ]);
  });
});

describe('GitHubCodeHost permissions', () => {
  it.each([
    ['admin', 'admin', 'admin'],
    ['maintain', 'write', 'maintain'],
    ['write', 'write', 'write'],
    ['triage', 'read', 'triage'],
    ['read', 'read', 'read'],
    ['security-reviewer', 'read', 'read'],
  ] as const)('reports role %s (legacy permission %s) as %s', async (roleName, legacy, expected) => {
    const scope = githubApi()
      .get(`${repo}/collaborators/mona/permission`)
      .reply(200, { permission: legacy, role_name: roleName, user: { login: 'mona' } });

    await expect(host().permissionOf('mona')).resolves.toBe(expected);
    expect(scope.isDone()).toBe(true);
  });

  it('reports none for someone GitHub does not know as a collaborator', async () => {
    const scope = githubApi()
      .get(`${repo}/collaborators/stranger/permission`)
      .reply(404, { message: 'Not Found' });

    await expect(host().permissionOf('stranger')).resolves.toBe('none');
    expect(scope.isDone()).toBe(true);
  });

  it('passes on any other failure as a typed error instead of guessing a permission', async () => {
    const scope = githubApi()
      .get(`${repo}/collaborators/mona/permission`)
      .reply(403, { message: 'Resource not accessible by integration' });

    const refused = await host()
      .permissionOf('mona')
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GitHubApiError);
    expect(refused).not.toBeInstanceOf(GitHubNotFoundError);
    expect(refused).toMatchObject({ status: 403, retryable: false });
    expect(scope.isDone()).toBe(true);
  });
});

describe('GitHubCodeHost branches and pull requests', () => {
  it('reads the commit a branch points at', async () => {
    const scope = githubApi()
      .get(`${repo}/branches/main`)
      .reply(200, { name: 'main', commit: { sha: 'a'.repeat(40) } });

    await expect(host().branchHead('main')).resolves.toBe('a'.repeat(40));
    expect(scope.isDone()).toBe(true);
  });

  it('reads the details of a pull request from a fork', async () => {
    const example = documentedExample('GET /repos/{owner}/{repo}/pulls/{pull_number}', 200) as {
      head: { repo: object };
    };
    const scope = githubApi()
      .get(`${repo}/pulls/12`)
      .reply(
        documentedReply(200, {
          ...example,
          // GitHub's example lacks `type` in its requested teams, which its schema requires.
          requested_teams: [],
          number: 12,
          html_url: 'https://github.com/octo-org/flaky-scripts/pull/12',
          draft: true,
          head: {
            ...example.head,
            ref: 'fix-flaky',
            sha: 'b'.repeat(40),
            repo: { ...example.head.repo, full_name: 'mona/flaky-scripts' },
          },
          base: { ...(example as unknown as { base: object }).base, ref: 'main' },
        }),
      );

    await expect(host().pullRequest(12)).resolves.toEqual({
      number: 12,
      url: 'https://github.com/octo-org/flaky-scripts/pull/12',
      head: 'fix-flaky',
      draft: true,
      headSha: 'b'.repeat(40),
      headRepository: 'mona/flaky-scripts',
      base: 'main',
    });
    expect(scope.isDone()).toBe(true);
  });

  it('says so when the fork behind a pull request was deleted', async () => {
    const scope = githubApi()
      .get(`${repo}/pulls/13`)
      .reply(200, {
        number: 13,
        html_url: 'x',
        draft: false,
        head: { ref: 'gone', sha: 'c', repo: null },
        base: { ref: 'main' },
      });

    const gone = await host()
      .pullRequest(13)
      .catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(GitHubNotFoundError);
    expect((gone as Error).message).toContain('its fork was deleted');
    expect(scope.isDone()).toBe(true);
  });

  it('reads the inline comments of a review, with the original line for outdated ones', async () => {
    const scope = githubApi()
      .get(`${repo}/pulls/12/reviews/80/comments`)
      .query({ per_page: 100 })
      .reply(200, [{ path: 'run.sh', line: 4, original_line: 3, body: 'quote this' }], {
        link: `<${GITHUB_API}${repo}/pulls/12/reviews/80/comments?per_page=100&page=2>; rel="next"`,
      })
      .get(`${repo}/pulls/12/reviews/80/comments`)
      .query({ per_page: 100, page: 2 })
      .reply(200, [
        { path: 'lib/util.py', line: null, original_line: 17, body: 'outdated' },
        { path: 'README.md', body: 'file-level' },
      ]);

    await expect(host().reviewComments(12, 80)).resolves.toEqual([
      { path: 'run.sh', line: 4, body: 'quote this' },
      { path: 'lib/util.py', line: 17, body: 'outdated' },
      { path: 'README.md', line: null, body: 'file-level' },
    ]);
    expect(scope.isDone()).toBe(true);
  });

  it('finds the open pull request from a branch, or none', async () => {
    const scope = githubApi()
      .get(`${repo}/pulls`)
      .query({ state: 'open', head: 'octo-org:selfdebug/fix-7' })
      .reply(200, [
        {
          number: 21,
          html_url: 'https://github.com/octo-org/flaky-scripts/pull/21',
          draft: true,
          head: { ref: 'selfdebug/fix-7' },
        },
      ])
      .get(`${repo}/pulls`)
      .query({ state: 'open', head: 'octo-org:selfdebug/fix-8' })
      .reply(200, []);

    await expect(host().findPullRequest('selfdebug/fix-7')).resolves.toEqual({
      number: 21,
      url: 'https://github.com/octo-org/flaky-scripts/pull/21',
      head: 'selfdebug/fix-7',
      draft: true,
    });
    await expect(host().findPullRequest('selfdebug/fix-8')).resolves.toBeNull();
    expect(scope.isDone()).toBe(true);
  });

  it('opens a draft pull request and updates it', async () => {
    const request = { title: 'Fix run.sh', body: 'Why', head: 'selfdebug/fix-7', base: 'main', draft: true };
    const scope = githubApi()
      .post(`${repo}/pulls`)
      .reply(201, {
        number: 22,
        html_url: 'https://github.com/octo-org/flaky-scripts/pull/22',
        draft: true,
        head: { ref: 'selfdebug/fix-7' },
      })
      .patch(`${repo}/pulls/22`)
      .reply(200, { number: 22 });
    const requests = recorded(scope);

    await expect(host().createPullRequest(request)).resolves.toEqual({
      number: 22,
      url: 'https://github.com/octo-org/flaky-scripts/pull/22',
      head: 'selfdebug/fix-7',
      draft: true,
    });
    await expect(host().updatePullRequest(22, { body: 'Reflected fix' })).resolves.toBeUndefined();

    expect(scope.isDone()).toBe(true);
    // The update names only what changed, so the title stays as it was.
    expect(requests).toEqual([
      { request: `POST ${repo}/pulls`, body: request },
      { request: `PATCH ${repo}/pulls/22`, body: { body: 'Reflected fix' } },
    ]);
  });
});

describe('GitHubCodeHost file content', () => {
  it('decodes a file at a ref, and answers null for a missing one or a directory', async () => {
    const scope = githubApi()
      .get(`${repo}/contents/scripts%2Frun.sh`)
      .query({ ref: 'abc123' })
      .reply(200, {
        type: 'file',
        encoding: 'base64',
        content: Buffer.from('echo héllo\n').toString('base64'),
      })
      .get(`${repo}/contents/missing.sh`)
      .query({ ref: 'abc123' })
      .reply(404, { message: 'Not Found' })
      .get(`${repo}/contents/scripts`)
      .query({ ref: 'abc123' })
      .reply(200, [{ type: 'file', name: 'run.sh' }]);

    await expect(host().fileContent('scripts/run.sh', 'abc123')).resolves.toBe('echo héllo\n');
    await expect(host().fileContent('missing.sh', 'abc123')).resolves.toBeNull();
    await expect(host().fileContent('scripts', 'abc123')).resolves.toBeNull();
    expect(scope.isDone()).toBe(true);
  });

  it('reads a file over 1 MB through the raw media type', async () => {
    const large = `${'x'.repeat(1_099_999)}é`;
    const scope = githubApi()
      .get(`${repo}/contents/big.log`)
      .query({ ref: 'main' })
      .reply(200, { type: 'file', encoding: 'none', content: '' })
      .get(`${repo}/contents/big.log`)
      .query({ ref: 'main' })
      .matchHeader('accept', 'application/vnd.github.v3.raw')
      .reply(200, large, { 'content-type': 'application/vnd.github.raw; charset=utf-8' });

    await expect(host().fileContent('big.log', 'main')).resolves.toBe(large);
    // The JSON answer first, then the raw one: no other way to learn the file is over 1 MB.
    expect(scope.isDone()).toBe(true);
  });
});
