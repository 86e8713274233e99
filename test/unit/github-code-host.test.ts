import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubCodeHost } from '../../src/adapters/github/github-code-host.js';
import { GitHubNotFoundError } from '../../src/errors/github-errors.js';
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

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe('GitHubCodeHost comments', () => {
  it('creates the comment when none holds the marker', async () => {
    githubApi()
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
  });

  it('updates the comment holding the marker when it is on the second page', async () => {
    const firstPage = Array.from({ length: 100 }, (_, index) => comment(index + 1, `comment ${index}`));
    githubApi()
      .get(`${repo}/issues/7/comments`)
      .query({ per_page: 100 })
      .reply(200, firstPage, nextPage(2))
      .get(`${repo}/issues/7/comments`)
      .query({ per_page: 100, page: 2 })
      .reply(200, [comment(150, 'other'), comment(151, `old status\n${marker}`)])
      .patch(`${repo}/issues/comments/151`, { body: `${marker}\ndone` })
      .reply(200, comment(151, `${marker}\ndone`));

    const posted = await host().upsertComment(7, marker, `${marker}\ndone`);

    expect(posted.id).toBe(151);
  });

  it('does not take the same text without the marker for ours', async () => {
    githubApi()
      .get(`${repo}/issues/7/comments`)
      .query({ per_page: 100 })
      .reply(200, [comment(3, 'selfdebug:status\nworking'), comment(4, '<!-- selfdebug:other -->')])
      .post(`${repo}/issues/7/comments`, { body: `${marker}\nworking` })
      .reply(201, comment(5, `${marker}\nworking`));

    await expect(host().upsertComment(7, marker, `${marker}\nworking`)).resolves.toMatchObject({ id: 5 });
  });

  it('creates a plain comment', async () => {
    githubApi()
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
  });

  it('reacts to an issue and to an issue comment', async () => {
    const api = githubApi()
      .post(`${repo}/issues/7/reactions`, { content: 'eyes' })
      .reply(201, { id: 1, content: 'eyes' })
      .post(`${repo}/issues/comments/55/reactions`, { content: 'rocket' })
      .reply(201, { id: 2, content: 'rocket' });

    await host().react({ issueNumber: 7 }, 'eyes');
    await host().react({ commentId: 55 }, 'rocket');
    expect(api.isDone()).toBe(true);
  });

  it('adds labels, and sends nothing for none', async () => {
    const api = githubApi()
      .post(`${repo}/issues/7/labels`, { labels: ['selfdebug', 'bug'] })
      .reply(200, [{ name: 'selfdebug' }, { name: 'bug' }]);

    await host().addLabels(7, ['selfdebug', 'bug']);
    await host().addLabels(7, []);
    // One request for the two labels; none for the empty list (an unmatched request fails in afterEach).
    expect(api.isDone()).toBe(true);
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
    githubApi()
      .get(`${repo}/collaborators/mona/permission`)
      .reply(200, { permission: legacy, role_name: roleName, user: { login: 'mona' } });

    await expect(host().permissionOf('mona')).resolves.toBe(expected);
  });

  it('reports none for someone GitHub does not know as a collaborator', async () => {
    githubApi().get(`${repo}/collaborators/stranger/permission`).reply(404, { message: 'Not Found' });

    await expect(host().permissionOf('stranger')).resolves.toBe('none');
  });
});

describe('GitHubCodeHost branches and pull requests', () => {
  it('reads the commit a branch points at', async () => {
    githubApi()
      .get(`${repo}/branches/main`)
      .reply(200, { name: 'main', commit: { sha: 'a'.repeat(40) } });

    await expect(host().branchHead('main')).resolves.toBe('a'.repeat(40));
  });

  it('reads the details of a pull request from a fork', async () => {
    const example = documentedExample('GET /repos/{owner}/{repo}/pulls/{pull_number}', 200) as {
      head: { repo: object };
    };
    githubApi()
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
  });

  it('says so when the fork behind a pull request was deleted', async () => {
    githubApi()
      .get(`${repo}/pulls/13`)
      .reply(200, {
        number: 13,
        html_url: 'x',
        draft: false,
        head: { ref: 'gone', sha: 'c', repo: null },
        base: { ref: 'main' },
      });

    await expect(host().pullRequest(13)).rejects.toThrow(GitHubNotFoundError);
  });

  it('reads the inline comments of a review, with the original line for outdated ones', async () => {
    githubApi()
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
  });

  it('finds the open pull request from a branch, or none', async () => {
    githubApi()
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
  });

  it('opens a draft pull request and updates it', async () => {
    const request = { title: 'Fix run.sh', body: 'Why', head: 'selfdebug/fix-7', base: 'main', draft: true };
    githubApi()
      .post(`${repo}/pulls`, request)
      .reply(201, {
        number: 22,
        html_url: 'https://github.com/octo-org/flaky-scripts/pull/22',
        draft: true,
        head: { ref: 'selfdebug/fix-7' },
      })
      .patch(`${repo}/pulls/22`, { body: 'Reflected fix' })
      .reply(200, { number: 22 });

    await expect(host().createPullRequest(request)).resolves.toEqual({
      number: 22,
      url: 'https://github.com/octo-org/flaky-scripts/pull/22',
      head: 'selfdebug/fix-7',
      draft: true,
    });
    await host().updatePullRequest(22, { body: 'Reflected fix' });
  });
});

describe('GitHubCodeHost file content', () => {
  it('decodes a file at a ref, and answers null for a missing one or a directory', async () => {
    githubApi()
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
  });

  it('reads a file over 1 MB through the raw media type', async () => {
    const large = 'x'.repeat(1_100_000);
    githubApi()
      .get(`${repo}/contents/big.log`)
      .query({ ref: 'main' })
      .reply(200, { type: 'file', encoding: 'none', content: '' })
      .get(`${repo}/contents/big.log`)
      .query({ ref: 'main' })
      .matchHeader('accept', 'application/vnd.github.v3.raw')
      .reply(200, large, { 'content-type': 'application/vnd.github.raw; charset=utf-8' });

    await expect(host().fileContent('big.log', 'main')).resolves.toHaveLength(1_100_000);
  });
});
