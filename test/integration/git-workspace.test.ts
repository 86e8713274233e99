import { access, chmod, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GitWorkspaceProvider } from '../../src/adapters/git/git-workspace-provider.js';
import {
  BranchMovedError,
  GitAuthError,
  GitError,
  ProtectedBranchError,
} from '../../src/errors/git-errors.js';
import { WorkspacePathError } from '../../src/errors/sandbox-errors.js';
import type { Workspace } from '../../src/workspace/workspace.js';
import { GitHttpServer } from '../helpers/git-http-server.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const TOKEN = 'ghs_test0123456789abcdefghijklmnopqrstuv';
const TOKEN_BASE64 = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
const AUTHOR = { name: 'selfdebug[bot]', email: 'selfdebug[bot]@users.noreply.github.com' };

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** Everything an error could show a person or a log: message, cause chain and stack. */
function everythingIn(error: unknown): string {
  return `${String(error)}\n${inspect(error, { depth: 10 })}\n${JSON.stringify(error)}`;
}

function expectNoToken(text: string): void {
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain(TOKEN_BASE64);
}

describe('GitWorkspaceProvider over git smart HTTP', () => {
  const tempDir = useTempDirs();
  let server: GitHttpServer;
  let shas: string[];
  const opened: Workspace[] = [];

  const provider = (parentDir?: string) =>
    new GitWorkspaceProvider({
      allowedProtocols: ['http'],
      host: process.env,
      ...(parentDir ? { parentDir } : {}),
    });

  async function checkout(options: { sha?: string; ref?: string; token?: string; repository?: string } = {}) {
    const workspace = await provider().checkout({
      cloneUrl: server.url(options.repository ?? 'project'),
      sha: options.sha ?? shas[1]!,
      token: options.token ?? TOKEN,
      ...(options.ref === undefined ? {} : { ref: options.ref }),
    });
    opened.push(workspace);
    return workspace;
  }

  beforeAll(async () => {
    server = await GitHttpServer.start({ token: TOKEN });
    shas = await server.createRepository('project', [
      { 'README.md': 'first\n', 'script.py': 'print(1)\n' },
      { 'script.py': 'print(2)\n', 'notes/a.txt': 'note\n' },
      { 'script.py': 'print(3)\n', 'README.md': null },
    ]);
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((workspace) => workspace.dispose()));
  });

  afterAll(async () => {
    await server.close();
  });

  it('checks out a commit that is not the tip, with that commit’s files, detached', async () => {
    const workspace = await checkout({ sha: shas[1]! });
    expect(await readFile(join(workspace.dir, 'script.py'), 'utf8')).toBe('print(2)\n');
    expect(await readFile(join(workspace.dir, 'README.md'), 'utf8')).toBe('first\n');
    expect(await readFile(join(workspace.dir, 'notes/a.txt'), 'utf8')).toBe('note\n');
    expect((await readFile(join(workspace.dir, '.git/HEAD'), 'utf8')).trim()).toBe(shas[1]);
  });

  it('falls back to fetching the ref when the server refuses to serve a commit by its sha', async () => {
    const legacy = await GitHttpServer.start({ token: TOKEN, protocolV2: false });
    try {
      const legacyShas = await legacy.createRepository('old', [{ 'a.txt': 'one\n' }, { 'a.txt': 'two\n' }]);
      const request = { cloneUrl: legacy.url('old'), sha: legacyShas[0]!, token: TOKEN };
      await expect(provider().checkout(request)).rejects.toBeInstanceOf(GitError);
      const workspace = await provider().checkout({ ...request, ref: 'main' });
      opened.push(workspace);
      expect(await readFile(join(workspace.dir, 'a.txt'), 'utf8')).toBe('one\n');
    } finally {
      await legacy.close();
    }
  });

  it('creates a selfdebug/ branch, commits and pushes it to the server', async () => {
    const workspace = await checkout();
    await workspace.createBranch('selfdebug/fix-1');
    await writeFile(join(workspace.dir, 'script.py'), 'print("fixed")\n');
    await writeFile(join(workspace.dir, 'untouched.txt'), 'not committed\n');
    const sha = await workspace.commit('Fix the script', AUTHOR, ['script.py']);
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    await workspace.push('selfdebug/fix-1', TOKEN);
    expect(await server.branchSha('project', 'selfdebug/fix-1')).toBe(sha);
    expect(await server.readFile('project', 'selfdebug/fix-1', 'script.py')).toBe('print("fixed")\n');
    await expect(server.readFile('project', 'selfdebug/fix-1', 'untouched.txt')).rejects.toThrow();
    // The commit sits on top of the checked-out commit, and main did not move.
    expect(await server.branchSha('project', 'main')).toBe(shas[2]);
  });

  it('commits everything when no paths are given, including deletions', async () => {
    const workspace = await checkout();
    await workspace.createBranch('selfdebug/all');
    await writeFile(join(workspace.dir, 'new.txt'), 'new\n');
    await writeFile(join(workspace.dir, 'README.md'), '');
    await rm(join(workspace.dir, 'notes/a.txt'));
    expect(await workspace.commit('Everything', AUTHOR)).toMatch(/^[0-9a-f]{40}$/);
    await workspace.push('selfdebug/all', TOKEN);
    expect(await server.readFile('project', 'selfdebug/all', 'new.txt')).toBe('new\n');
    await expect(server.readFile('project', 'selfdebug/all', 'notes/a.txt')).rejects.toThrow();
  });

  it('counts the commits carrying a trailer', async () => {
    const workspace = await checkout();
    await workspace.createBranch('selfdebug/rounds');
    await writeFile(join(workspace.dir, 'one.txt'), '1\n');
    await workspace.commit('First\n\nSelfdebug-Round: workflow-run', AUTHOR);
    await writeFile(join(workspace.dir, 'two.txt'), '2\n');
    await workspace.commit('Second', AUTHOR);
    expect(await workspace.countCommits('Selfdebug-Round: workflow-run')).toBe(1);
  });

  it('returns null from commit when nothing changed', async () => {
    const workspace = await checkout();
    await workspace.createBranch('selfdebug/nothing');
    expect(await workspace.commit('Nothing', AUTHOR)).toBeNull();
    expect(await workspace.commit('Nothing', AUTHOR, ['script.py'])).toBeNull();
    expect(await workspace.commit('Nothing', AUTHOR, [])).toBeNull();
  });

  it('refuses commit paths outside the work tree or inside .git', async () => {
    const workspace = await checkout();
    for (const path of ['../outside.txt', '/etc/passwd', '.git/config', 'a/../../b']) {
      await expect(workspace.commit('Bad', AUTHOR, [path])).rejects.toBeInstanceOf(WorkspacePathError);
    }
  });

  it.each(['main', 'feature/x', 'selfdebugger/x', 'selfdebug/../main', 'selfdebug/x:refs/heads/main'])(
    'refuses to push to %s before any request reaches the server',
    async (branch) => {
      const workspace = await checkout();
      await writeFile(join(workspace.dir, 'script.py'), 'print("x")\n');
      await workspace.commit('Change', AUTHOR);
      const tipBefore = await server.branchSha('project', branch);
      const before = server.requests.length;
      const refusal = workspace.push(branch, TOKEN);
      await expect(refusal).rejects.toSatisfy(
        (error) => error instanceof ProtectedBranchError || error instanceof GitError,
      );
      expect(server.requests.length).toBe(before);
      expect(server.requestsTo('git-receive-pack', before)).toHaveLength(0);
      expect(await server.branchSha('project', branch)).toBe(tipBefore);
    },
  );

  it('refuses main and feature branches with ProtectedBranchError', async () => {
    const workspace = await checkout();
    for (const branch of ['main', 'feature/x']) {
      const error = await workspace.push(branch, TOKEN).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProtectedBranchError);
      expect(error).toMatchObject({ branch, reason: 'outside-prefix', code: 'protected-branch' });
    }
  });

  it('raises GitAuthError without the token when the token is wrong, on checkout and on push', async () => {
    const wrong = 'ghs_wrongTOKEN9876543210zyxwvutsrqponmlk';
    const wrongBase64 = Buffer.from(`x-access-token:${wrong}`).toString('base64');
    const checkoutError = await checkout({ token: wrong }).catch((caught: unknown) => caught);
    expect(checkoutError).toBeInstanceOf(GitAuthError);
    expect(checkoutError).toMatchObject({ operation: 'checkout', retryable: false });

    const workspace = await checkout();
    await workspace.createBranch('selfdebug/auth');
    await writeFile(join(workspace.dir, 'script.py'), 'print("auth")\n');
    await workspace.commit('Auth', AUTHOR);
    const pushError = await workspace.push('selfdebug/auth', wrong).catch((caught: unknown) => caught);
    expect(pushError).toBeInstanceOf(GitAuthError);
    expect(pushError).toMatchObject({ operation: 'push' });
    expect((pushError as Error).message).toMatch(/Contents/);

    for (const error of [checkoutError, pushError]) {
      const text = everythingIn(error);
      expect(text).not.toContain(wrong);
      expect(text).not.toContain(wrongBase64);
      expectNoToken(text);
    }
    expect(await server.branchSha('project', 'selfdebug/auth')).toBeNull();
  });

  it('keeps the token out of the remote URL, .git/config, request URLs and errors', async () => {
    const before = server.requests.length;
    const workspace = await checkout();
    await workspace.createBranch('selfdebug/secret');
    await writeFile(join(workspace.dir, 'script.py'), 'print("secret")\n');
    await workspace.commit('Secret', AUTHOR);
    await workspace.push('selfdebug/secret', TOKEN);

    const config = await readFile(join(workspace.dir, '.git/config'), 'utf8');
    expect(config).toContain(`url = ${server.url('project')}`);
    expectNoToken(config);
    expect(config).not.toMatch(/extraHeader|Authorization/i);
    for (const request of server.requests) expectNoToken(request.url);
    // The token did travel, as a header, on the requests that needed it.
    const pushes = server.requestsTo('git-receive-pack', before);
    expect(pushes.length).toBeGreaterThan(0);
    for (const request of pushes) expect(request.headers.authorization).toBe(`Basic ${TOKEN_BASE64}`);

    const missing = await checkout({ repository: 'missing' }).catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(GitError);
    expectNoToken(everythingIn(missing));
  });

  it('refuses a clone URL with credentials or a protocol that is not allowed, without echoing secrets', async () => {
    const withCredentials = server.url('project').replace('http://', `http://x-access-token:${TOKEN}@`);
    const error = await provider()
      .checkout({ cloneUrl: withCredentials, sha: shas[0]!, token: TOKEN })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitError);
    expectNoToken(everythingIn(error));
    const https = new GitWorkspaceProvider({ host: process.env });
    await expect(
      https.checkout({ cloneUrl: server.url('project'), sha: shas[0]!, token: TOKEN }),
    ).rejects.toThrow(/only https is allowed/);
    // Plain http carries the token in clear text: only ever to this machine.
    const http = new GitWorkspaceProvider({ allowedProtocols: ['https', 'http'], host: process.env });
    await expect(
      http.checkout({ cloneUrl: 'http://example.com/o/r.git', sha: shas[0]!, token: TOKEN }),
    ).rejects.toThrow(/plain http is only allowed to 127\.0\.0\.1/);
    expect(server.requests.some((request) => request.url.includes('x-access-token'))).toBe(false);
  });

  it('raises BranchMovedError when another push moved the branch first', async () => {
    const first = await checkout();
    const second = await checkout();
    for (const [workspace, text] of [
      [first, 'first'],
      [second, 'second'],
    ] as const) {
      await workspace.createBranch('selfdebug/race');
      await writeFile(join(workspace.dir, 'script.py'), `print("${text}")\n`);
      await workspace.commit(`From ${text}`, AUTHOR);
    }
    await first.push('selfdebug/race', TOKEN);
    const firstSha = await server.branchSha('project', 'selfdebug/race');
    const error = await second.push('selfdebug/race', TOKEN).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BranchMovedError);
    expect(error).toMatchObject({ branch: 'selfdebug/race', code: 'branch-moved' });
    expect(await server.branchSha('project', 'selfdebug/race')).toBe(firstSha);
    expect(await server.readFile('project', 'selfdebug/race', 'script.py')).toBe('print("first")\n');
  });

  it('pushes again after a further commit on the same branch (fast-forward)', async () => {
    const workspace = await checkout();
    await workspace.createBranch('selfdebug/twice');
    await writeFile(join(workspace.dir, 'script.py'), 'print("one")\n');
    await workspace.commit('One', AUTHOR);
    await workspace.push('selfdebug/twice', TOKEN);
    await writeFile(join(workspace.dir, 'script.py'), 'print("two")\n');
    const second = await workspace.commit('Two', AUTHOR);
    await workspace.push('selfdebug/twice', TOKEN);
    expect(await server.branchSha('project', 'selfdebug/twice')).toBe(second);
  });

  it('does not run a hook placed in .git/hooks after checkout', async () => {
    const workspace = await checkout();
    const marker = join(await tempDir(), 'hook-ran');
    await mkdir(join(workspace.dir, '.git/hooks'), { recursive: true });
    for (const hook of ['pre-commit', 'commit-msg', 'post-commit', 'pre-push', 'post-checkout']) {
      const file = join(workspace.dir, '.git/hooks', hook);
      await writeFile(file, `#!/bin/sh\necho ${hook} >> '${marker}'\n`);
      await chmod(file, 0o755);
    }
    await workspace.createBranch('selfdebug/hooks');
    await writeFile(join(workspace.dir, 'script.py'), 'print("hooks")\n');
    expect(await workspace.commit('Hooks', AUTHOR)).not.toBeNull();
    await workspace.push('selfdebug/hooks', TOKEN);
    expect(await exists(marker)).toBe(false);
  });

  it('refuses to run git after .git/config was changed in the workspace', async () => {
    const workspace = await checkout();
    const marker = join(await tempDir(), 'filter-ran');
    await writeFile(join(workspace.dir, '.gitattributes'), '* filter=evil\n');
    const config = await readFile(join(workspace.dir, '.git/config'), 'utf8');
    await writeFile(
      join(workspace.dir, '.git/config'),
      `${config}[filter "evil"]\n\tclean = touch '${marker}'; cat\n`,
    );
    await writeFile(join(workspace.dir, 'script.py'), 'print("evil")\n');
    const error = await workspace.commit('Evil', AUTHOR).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitError);
    expect(error).toMatchObject({ operation: 'commit' });
    expect(await exists(marker)).toBe(false);
  });

  it('refuses to run git when .git/commondir points git at another config', async () => {
    const workspace = await checkout();
    const marker = join(await tempDir(), 'filter-ran');
    const elsewhere = await tempDir();
    await writeFile(join(elsewhere, 'config'), `[filter "evil"]\n\tclean = touch '${marker}'; cat\n`);
    await writeFile(join(workspace.dir, '.git/commondir'), elsewhere);
    await writeFile(join(workspace.dir, '.gitattributes'), '* filter=evil\n');
    const error = await workspace.commit('Evil', AUTHOR).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitError);
    expect(await exists(marker)).toBe(false);
  });

  it('refuses to run git with the token while simple-git debug logging is on', async () => {
    // The host's variables as the entry point handed them over; DEBUG is switched on after the checkout.
    const host: Record<string, string | undefined> = { ...process.env, DEBUG: undefined };
    const workspace = await new GitWorkspaceProvider({ allowedProtocols: ['http'], host }).checkout({
      cloneUrl: server.url('project'),
      sha: shas[1]!,
      token: TOKEN,
    });
    opened.push(workspace);
    await writeFile(join(workspace.dir, 'more.txt'), 'more\n');
    await workspace.createBranch('selfdebug/debug-guard');
    await workspace.commit('More', AUTHOR);
    host.DEBUG = 'simple-git*';
    await expect(workspace.push('selfdebug/debug-guard', TOKEN)).rejects.toThrow(/unset DEBUG/);
  });

  it('makes checkouts in the given folder, and dispose removes the checkout', async () => {
    const parent = await tempDir();
    const workspace = await provider(parent).checkout({
      cloneUrl: server.url('project'),
      sha: shas[0]!,
      token: TOKEN,
    });
    expect(workspace.dir.startsWith(parent)).toBe(true);
    expect(await exists(join(workspace.dir, '.git'))).toBe(true);
    await workspace.dispose();
    expect(await exists(workspace.dir)).toBe(false);
    await workspace.dispose();
  });

  it('removes the folder when checkout fails', async () => {
    const parent = await tempDir();
    const missingSha = 'f'.repeat(40);
    const error = await provider(parent)
      .checkout({ cloneUrl: server.url('project'), sha: missingSha, token: TOKEN, ref: 'main' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitError);
    expect((error as Error).message).toContain(missingSha);
    expect(await readdir(parent)).toEqual([]);
  });

  it('ignores GIT_* variables inherited from the environment', async () => {
    const elsewhere = await tempDir();
    process.env.GIT_DIR = elsewhere;
    process.env.GIT_TRACE_CURL = join(elsewhere, 'trace');
    process.env.GIT_CONFIG_PARAMETERS = "'core.hooksPath'='/tmp'";
    try {
      const workspace = await checkout({ sha: shas[0]! });
      expect(await readFile(join(workspace.dir, 'script.py'), 'utf8')).toBe('print(1)\n');
      expect(await exists(join(elsewhere, 'trace'))).toBe(false);
    } finally {
      for (const name of ['GIT_DIR', 'GIT_TRACE_CURL', 'GIT_CONFIG_PARAMETERS']) delete process.env[name];
    }
  });
});
