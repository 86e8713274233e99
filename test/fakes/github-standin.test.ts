import { createSign, generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { ProbotOctokit } from 'probot';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GitHubCodeHost } from '../../src/adapters/github/index.js';
import { gitWithToken, installationToken, standinOctokit } from './github-standin/clients.js';
import { HOURLY_LIMIT } from './github-standin/rate-limit.js';
import { GitHubStandin, type StandinRepository } from './github-standin/standin.js';

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** An App JWT signed with `key`, with the claims GitHub reads. */
function signJwt(key: string, claims: Record<string, unknown>): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode(claims)}`;
  return `${unsigned}.${createSign('RSA-SHA256').update(unsigned).sign(key, 'base64url')}`;
}

const CONFIG = 'model: gpt-test\nmaxAttempts: 2\n';
const LARGE = `${'x'.repeat(99)}\n`.repeat(11_000);

describe('GitHubStandin with the App’s GitHub adapter', () => {
  let standin: GitHubStandin;
  let repository: StandinRepository;
  let octokit: ProbotOctokit;
  let host: GitHubCodeHost;

  beforeAll(async () => {
    standin = await GitHubStandin.start();
    repository = await standin.createRepository('octo-org', 'app', [
      { 'README.md': '# app\n', 'src/main.py': 'print(1)\n' },
      { 'README.md': '# app, second\n', '.github/selfdebug.yml': CONFIG, 'data/large.txt': LARGE },
    ]);
    octokit = standinOctokit(standin);
    host = new GitHubCodeHost(octokit, { owner: 'octo-org', repo: 'app' });
  });

  afterAll(async () => {
    await standin.close();
  });

  it('listens on 127.0.0.1 with the GHE-style API root', () => {
    expect(standin.host).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(standin.apiUrl).toBe(`http://${standin.host}/api/v3`);
    expect(repository.cloneUrl).toBe(`http://${standin.host}/octo-org/app.git`);
    expect(standin.appSlug).toBe('selfdebug');
  });

  it('issues an installation token for the App’s JWT', async () => {
    const token = await installationToken(octokit);
    expect(token).toMatch(/^ghs_[A-Za-z0-9]{36}$/);
    expect(standin.issuedTokens).toContain(token);
    // These take the App's JWT; Octokit's app authentication picks it for them.
    const { data: installation } = await octokit.rest.apps.getRepoInstallation({
      owner: 'octo-org',
      repo: 'app',
    });
    expect(installation).toMatchObject({
      id: standin.installationId,
      app_id: standin.appId,
      app_slug: 'selfdebug',
    });
    const { data: app } = await octokit.rest.apps.getAuthenticated();
    expect(app).toMatchObject({ id: standin.appId, slug: 'selfdebug' });
  });

  it('keeps one status comment, found again by its marker across pages', async () => {
    const issue = standin.createIssue('octo-org/app', {
      title: 'Broken',
      body: '@selfdebug fix',
      user: 'alice',
    });
    for (let index = 0; index < 120; index++) {
      standin.createIssueComment('octo-org/app', issue.number, { body: `chatter ${index}`, user: 'bob' });
    }
    const marker = '<!-- selfdebug:status -->';
    const first = await host.upsertComment(issue.number, marker, `${marker}\nqueued`);
    const second = await host.upsertComment(issue.number, marker, `${marker}\nrunning`);
    expect(second.id).toBe(first.id);
    const ours = standin
      .comments('octo-org/app', issue.number)
      .filter((comment) => comment.user === 'selfdebug[bot]');
    expect(ours).toEqual([expect.objectContaining({ id: first.id, body: `${marker}\nrunning` })]);
    expect(first.url).toContain(`/octo-org/app/issues/${issue.number}#issuecomment-${first.id}`);

    const attempt = await host.createComment(issue.number, 'attempt 1');
    expect(standin.comments('octo-org/app', issue.number).at(-1)).toMatchObject({
      id: attempt.id,
      body: 'attempt 1',
    });

    await host.react({ issueNumber: issue.number }, 'eyes');
    await host.react({ commentId: attempt.id }, 'rocket');
    expect(standin.reactions('octo-org/app')).toEqual([
      { target: `issue:${issue.number}`, content: 'eyes', user: 'selfdebug[bot]' },
      { target: `comment:${attempt.id}`, content: 'rocket', user: 'selfdebug[bot]' },
    ]);
  });

  it('answers permissions by role, and 404 (none) for strangers', async () => {
    standin.setPermission('octo-org/app', 'alice', 'maintain');
    standin.setPermission('octo-org/app', 'carol', 'triage');
    expect(await host.permissionOf('alice')).toBe('maintain');
    expect(await host.permissionOf('carol')).toBe('triage');
    expect(await host.permissionOf('mallory')).toBe('none');
  });

  it('reports its rate limit on every answer, as GitHub does, and refuses past it with 403', async () => {
    const first = await octokit.request('GET /repos/{owner}/{repo}', { owner: 'octo-org', repo: 'app' });
    const second = await octokit.request('GET /repos/{owner}/{repo}', { owner: 'octo-org', repo: 'app' });
    expect(first.headers['x-ratelimit-resource']).toBe('core');
    expect(first.headers['x-ratelimit-limit']).toBe(String(HOURLY_LIMIT));
    expect(Number(second.headers['x-ratelimit-remaining'])).toBe(
      Number(first.headers['x-ratelimit-remaining']) - 1,
    );
    expect(Number(second.headers['x-ratelimit-used'])).toBe(Number(first.headers['x-ratelimit-used']) + 1);
    expect(Number(first.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    standin.limitRequests(1);
    try {
      expect(await host.permissionOf('alice')).toBe('maintain');
      // Past the limit the App's adapter reads GitHub's answer as a rate limit, with the wait it names.
      await expect(host.permissionOf('alice')).rejects.toThrow(
        /GitHub rate-limited the App .*HTTP 403.*Wait \d+ s/s,
      );
    } finally {
      standin.limitRequests(HOURLY_LIMIT);
    }
  });

  it('reads branches and files from git, at a branch or a sha', async () => {
    const head = await host.branchHead('main');
    expect(head).toBe(await standin.branchSha('octo-org/app', 'main'));
    expect(await host.fileContent('README.md', 'main')).toBe('# app, second\n');
    expect(await host.fileContent('src/main.py', head)).toBe('print(1)\n');
    expect(await host.fileContent('missing.txt', 'main')).toBeNull();
    expect(await host.fileContent('src', 'main')).toBeNull();
    // Over 1 MB the contents API leaves `content` empty; the adapter then asks for the raw file.
    expect(await host.fileContent('data/large.txt', 'main')).toBe(LARGE);
    expect(await host.repoConfigFile()).toEqual({ model: 'gpt-test', maxAttempts: 2 });
  });

  it('reads no config for a repository without one (nor an org .github repository)', async () => {
    await standin.createRepository('octo-org', 'plain', [{ 'README.md': 'plain\n' }]);
    const plain = new GitHubCodeHost(octokit, { owner: 'octo-org', repo: 'plain' });
    expect(await plain.repoConfigFile()).toBeNull();
  });

  it('honours another default branch, in git and in the API', async () => {
    const trunk = await standin.createRepository('octo-org', 'trunk', [{ 'a.txt': 'A\n' }], {
      defaultBranch: 'trunk',
    });
    expect(trunk.defaultBranch).toBe('trunk');
    expect(await standin.branchSha('octo-org/trunk', 'main')).toBeNull();
    const { data: file } = await octokit.rest.repos.getContent({
      owner: 'octo-org',
      repo: 'trunk',
      path: 'a.txt',
    });
    expect(file).toMatchObject({ type: 'file', path: 'a.txt', encoding: 'base64' });
    const { data: listing } = await octokit.rest.repos.getContent({
      owner: 'octo-org',
      repo: 'app',
      path: 'src',
    });
    expect(listing).toEqual([expect.objectContaining({ type: 'file', path: 'src/main.py' })]);
    const { data: repo } = await octokit.rest.repos.get({ owner: 'octo-org', repo: 'trunk' });
    expect(repo).toMatchObject({ default_branch: 'trunk', clone_url: trunk.cloneUrl, id: trunk.id });
    expect(standin.repositoryRecord('octo-org/trunk').full_name).toBe('octo-org/trunk');
  });

  it('creates and completes a check run, annotations adding up across batches', async () => {
    const headSha = await host.branchHead('main');
    const annotations = Array.from({ length: 60 }, (_, index) => ({
      path: 'src/main.py',
      startLine: index + 1,
      endLine: index + 1,
      level: 'failure' as const,
      message: `problem ${index}`,
    }));
    const created = await host.createCheckRun({
      name: 'selfdebug',
      headSha,
      status: 'in_progress',
      output: { title: 'Reproducing', summary: 'Running the command', annotations },
    });
    expect(created.url).toContain(`/octo-org/app/runs/${created.id}`);
    await host.updateCheckRun(created.id, {
      conclusion: 'success',
      output: { title: 'Fixed', summary: 'All good', text: 'details', annotations: annotations.slice(0, 5) },
    });
    const [run] = standin.checkRuns('octo-org/app');
    expect(run).toMatchObject({
      id: created.id,
      name: 'selfdebug',
      headSha,
      status: 'completed',
      conclusion: 'success',
    });
    expect(run?.output).toMatchObject({ title: 'Fixed', summary: 'All good', text: 'details' });
    expect(run?.output.annotations).toHaveLength(65);
  });

  it('lists a run’s failed jobs and streams a job’s log through the signed redirect', async () => {
    const log =
      '2024-01-01T00:00:00.0000000Z ##[group]Run pytest\nE   assert 1 == 2\n##[error]Process completed with exit code 1.\n';
    const run = standin.createWorkflowRun('octo-org/app', {
      workflowName: 'CI',
      path: '.github/workflows/ci.yml',
      headBranch: 'main',
      headSha: await host.branchHead('main'),
      jobs: [
        {
          name: 'lint',
          conclusion: 'success',
          steps: [{ name: 'Set up job', number: 1, conclusion: 'success' }],
          log: 'ok\n',
        },
        {
          name: 'test',
          conclusion: 'failure',
          steps: [
            { name: 'Set up job', number: 1, conclusion: 'success' },
            { name: 'Run pytest', number: 2, conclusion: 'failure' },
            { name: 'Upload', number: 3, conclusion: 'skipped' },
          ],
          log,
        },
      ],
    });
    expect(run).toMatchObject({ conclusion: 'failure', name: 'CI', path: '.github/workflows/ci.yml' });
    const failed = await host.failedJobs(run.id);
    expect(failed).toEqual([
      {
        id: expect.any(Number),
        name: 'test',
        conclusion: 'failure',
        steps: [
          { number: 1, name: 'Set up job', conclusion: 'success' },
          { number: 2, name: 'Run pytest', conclusion: 'failure' },
          { number: 3, name: 'Upload', conclusion: 'skipped' },
        ],
      },
    ]);
    const jobId = failed[0]?.id ?? 0;
    expect(await text(await host.jobLog(jobId))).toBe(log);
    const redirect = standin.requests.find((request) => request.path.includes(`/actions/jobs/${jobId}/logs`));
    expect(redirect?.status).toBe(302);
    // The log host needs no token, only the signature: a forged one is refused.
    const logRequest = standin.requests.find((request) => request.path.startsWith(`/_logs/${jobId}?`));
    expect(logRequest?.status).toBe(200);
    const forged = await fetch(
      `http://${standin.host}/_logs/${jobId}?expires=${Date.now() + 60_000}&sig=forged`,
    );
    expect(forged.status).toBe(403);
  });

  it('clones, pushes a branch, opens and updates a pull request, and reads a review', async () => {
    const token = await installationToken(octokit);
    const work = await mkdtemp(join(tmpdir(), 'standin-clone-'));
    try {
      await gitWithToken(work, token, 'clone', '--quiet', repository.cloneUrl, 'app');
      const clone = join(work, 'app');
      expect(await readFile(join(clone, 'README.md'), 'utf8')).toBe('# app, second\n');
      await mkdir(join(clone, 'src'), { recursive: true });
      await writeFile(join(clone, 'src/main.py'), 'print(2)\n');
      await gitWithToken(clone, token, 'checkout', '--quiet', '-b', 'selfdebug/fix-1');
      await gitWithToken(clone, token, 'commit', '--quiet', '--all', '--message', 'Fix main');
      const pushed = await gitWithToken(clone, token, 'rev-parse', 'HEAD');
      await gitWithToken(clone, token, 'push', '--quiet', 'origin', 'selfdebug/fix-1');
      expect(await standin.branchSha('octo-org/app', 'selfdebug/fix-1')).toBe(pushed);
      expect(await standin.branches('octo-org/app')).toEqual(['main', 'selfdebug/fix-1']);
      expect(await standin.readFile('octo-org/app', 'selfdebug/fix-1', 'src/main.py')).toBe('print(2)\n');
      expect(await host.branchHead('selfdebug/fix-1')).toBe(pushed);

      expect(await host.findPullRequest('selfdebug/fix-1')).toBeNull();
      const request = {
        title: 'Fix main',
        body: 'Reflected fix',
        head: 'selfdebug/fix-1',
        base: 'main',
        draft: true,
      };
      const opened = await host.createPullRequest(request);
      expect(opened).toMatchObject({ head: 'selfdebug/fix-1', draft: true });
      // Issues and pull requests share one sequence: one issue came before.
      expect(opened.number).toBe(2);
      await expect(host.createPullRequest(request)).rejects.toThrow();
      expect(await host.findPullRequest('selfdebug/fix-1')).toEqual(opened);

      await host.updatePullRequest(opened.number, { body: 'Reflected fix, updated' });
      await host.addLabels(opened.number, ['selfdebug', 'automated']);
      expect(standin.pulls('octo-org/app')).toEqual([
        {
          number: opened.number,
          head: 'selfdebug/fix-1',
          base: 'main',
          title: 'Fix main',
          body: 'Reflected fix, updated',
          draft: true,
          state: 'open',
          labels: ['selfdebug', 'automated'],
        },
      ]);
      expect(await host.pullRequest(opened.number)).toEqual({
        number: opened.number,
        url: opened.url,
        head: 'selfdebug/fix-1',
        draft: true,
        headSha: pushed,
        headRepository: 'octo-org/app',
        base: 'main',
      });

      const review = standin.createReview('octo-org/app', opened.number, {
        user: 'alice',
        state: 'changes_requested',
        body: 'Please also print 3',
        comments: [{ path: 'src/main.py', line: 1, body: 'print 3 here' }],
      });
      expect(review.state).toBe('CHANGES_REQUESTED');
      expect(await host.reviewComments(opened.number, review.id)).toEqual([
        { path: 'src/main.py', line: 1, body: 'print 3 here' },
      ]);
      const record = await standin.pullRecord('octo-org/app', opened.number);
      expect(record.head.sha).toBe(pushed);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('keeps what clients sent, for leak checks, without their credentials', () => {
    const sent = standin.listAllText();
    expect(sent.some((text) => text.includes('Reflected fix, updated'))).toBe(true);
    expect(sent.some((text) => text.includes('/octo-org/app.git/git-receive-pack'))).toBe(true);
    for (const token of standin.issuedTokens) {
      expect(sent.some((text) => text.includes(token))).toBe(false);
    }
  });

  it('found nothing GitHub would refuse or never send', () => {
    expect(standin.problems).toEqual([]);
  });
});

describe('GitHubStandin records what GitHub would refuse', () => {
  let standin: GitHubStandin;
  let octokit: ProbotOctokit;

  beforeAll(async () => {
    standin = await GitHubStandin.start({ appId: 99 });
    await standin.createRepository('octo-org', 'app', [{ 'README.md': 'hello\n' }]);
    octokit = standinOctokit(standin);
  });

  afterEach(() => {
    standin.problems.length = 0;
  });

  afterAll(async () => {
    await standin.close();
  });

  it('answers a check run without head_sha with 422, and records it', async () => {
    // A plain string, so the typed client lets the request through without the head_sha it requires.
    const route: string = 'POST /repos/{owner}/{repo}/check-runs';
    await expect(
      octokit.request(route, { owner: 'octo-org', repo: 'app', name: 'selfdebug' }),
    ).rejects.toMatchObject({ status: 422 });
    expect(standin.problems).toEqual([expect.stringMatching(/check-runs.*head_sha/)]);
  });

  it('records an undocumented query parameter and a route GitHub does not have', async () => {
    await octokit.request('GET /repos/{owner}/{repo}', { owner: 'octo-org', repo: 'app', colour: 'blue' });
    await expect(
      octokit.request('GET /repos/{owner}/{repo}/no-such-thing', { owner: 'octo-org', repo: 'app' }),
    ).rejects.toMatchObject({
      status: 404,
    });
    expect(standin.problems).toEqual([
      expect.stringContaining('query parameter "colour" is not documented'),
      expect.stringContaining("GitHub's REST API has no such route"),
    ]);
  });

  it('refuses a comment over 65,536 characters with 422, as GitHub does', async () => {
    const issue = standin.createIssue('octo-org/app', { title: 't', body: 'b', user: 'alice' });
    const host = new GitHubCodeHost(octokit, { owner: 'octo-org', repo: 'app' });
    await expect(host.createComment(issue.number, 'x'.repeat(65_537))).rejects.toThrow();
    await host.createComment(issue.number, 'x'.repeat(65_536));
    expect(
      standin.requests
        .filter((request) => request.path.endsWith(`/issues/${issue.number}/comments`))
        .map((request) => request.status),
    ).toEqual([422, 201]);
    expect(standin.problems).toEqual([]);
  });

  it('refuses requests without a token, with a forged JWT and with an expired one', async () => {
    const unauthenticated = await fetch(`${standin.apiUrl}/repos/octo-org/app`);
    expect(unauthenticated.status).toBe(401);

    const otherKey = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    }).privateKey;
    const now = Math.floor(Date.now() / 1000);
    const tokenUrl = `${standin.apiUrl}/app/installations/${standin.installationId}/access_tokens`;
    const forged = await fetch(tokenUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${signJwt(otherKey, { iss: 99, iat: now - 30, exp: now + 540 })}` },
    });
    expect(forged.status).toBe(401);
    const expired = await fetch(tokenUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${signJwt(standin.privateKey, { iss: 99, iat: now - 700, exp: now - 100 })}`,
      },
    });
    expect(expired.status).toBe(401);
    const good = await fetch(tokenUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${signJwt(standin.privateKey, { iss: 99, iat: now - 30, exp: now + 540 })}`,
      },
    });
    expect(good.status).toBe(201);
    expect(standin.problems).toEqual([
      expect.stringContaining('Requires authentication'),
      expect.stringContaining('signature'),
      expect.stringContaining("'exp'"),
    ]);
  });

  it('refuses git without an issued token', async () => {
    const work = await mkdtemp(join(tmpdir(), 'standin-clone-'));
    try {
      await expect(
        gitWithToken(work, 'ghs_notissued', 'clone', '--quiet', `http://${standin.host}/octo-org/app.git`),
      ).rejects.toThrow();
      expect(standin.problems).toEqual([expect.stringContaining('git refused')]);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});
