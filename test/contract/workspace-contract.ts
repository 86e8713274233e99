import { access, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BranchMovedError,
  GitAuthError,
  GitError,
  ProtectedBranchError,
} from '../../src/errors/git-errors.js';
import { WorkspacePathError } from '../../src/errors/sandbox-errors.js';
import type { CheckoutRequest, Workspace, WorkspaceProvider } from '../../src/workspace/workspace.js';
import { failure } from './failure.js';

/** The repository every remote starts with: three commits on `main`; null deletes a file. */
export const WORKSPACE_FILES: Record<string, string | null>[] = [
  { 'README.md': 'first\n', 'script.py': 'print(1)\n' },
  { 'script.py': 'print(2)\n', 'notes/a.txt': 'note\n' },
  { 'script.py': 'print(3)\n', 'README.md': null },
];

const AUTHOR = { name: 'selfdebug[bot]', email: 'selfdebug[bot]@users.noreply.github.com' };
const SHA = /^[0-9a-f]{40}$/;

/** The git server a subject's workspaces talk to, seen from outside the port. */
export interface WorkspaceRemote {
  /** A repository made of WORKSPACE_FILES. */
  cloneUrl: string;
  /** A repository that does not exist on the same server. */
  missingCloneUrl: string;
  /** The shas of WORKSPACE_FILES' commits, oldest first; `main` is at the last. */
  commits: string[];
  token: string;
  /** A token of the right shape that the server refuses. */
  wrongToken: string;
  branchSha(branch: string): Promise<string | null>;
  /** A file at a branch's tip, or null when the branch has none. */
  readFile(branch: string, path: string): Promise<string | null>;
  /** Points `branch` at `sha` on the remote, as someone else's push would. */
  setBranch(branch: string, sha: string): Promise<void>;
}

export interface WorkspaceSubject {
  provider: WorkspaceProvider;
  remote: WorkspaceRemote;
  close(): Promise<void>;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * What the job runner relies on from a Workspace, whatever git server and
 * whatever wrapper is behind the port: a checkout of one commit, branches
 * and commits made there, and pushes only to `selfdebug/` branches, never
 * forced. Failures arrive as the typed git errors.
 */
export function workspaceContract(name: string, start: () => Promise<WorkspaceSubject>): void {
  describe(`Workspace contract: ${name}`, () => {
    let subject: WorkspaceSubject;
    const opened: Workspace[] = [];

    async function checkout(request: Partial<CheckoutRequest> = {}): Promise<Workspace> {
      const workspace = await subject.provider.checkout({
        cloneUrl: subject.remote.cloneUrl,
        sha: subject.remote.commits[1]!,
        token: subject.remote.token,
        ...request,
      });
      opened.push(workspace);
      return workspace;
    }

    beforeAll(async () => {
      subject = await start();
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((workspace) => workspace.dispose()));
    });
    afterAll(async () => {
      await subject?.close();
    });

    it('checks out a commit that is not the tip, with exactly that commit’s files', async () => {
      const workspace = await checkout({ sha: subject.remote.commits[1]! });
      expect(await readFile(join(workspace.dir, 'script.py'), 'utf8')).toBe('print(2)\n');
      expect(await readFile(join(workspace.dir, 'README.md'), 'utf8')).toBe('first\n');
      expect(await readFile(join(workspace.dir, 'notes/a.txt'), 'utf8')).toBe('note\n');
      const tip = await checkout({ sha: subject.remote.commits[2]! });
      expect(tip.dir).not.toBe(workspace.dir);
      expect(await readFile(join(tip.dir, 'script.py'), 'utf8')).toBe('print(3)\n');
      expect(await exists(join(tip.dir, 'README.md'))).toBe(false);
    });

    it('commits the paths given on a new selfdebug/ branch and pushes it on top of the checkout', async () => {
      const workspace = await checkout();
      await workspace.createBranch('selfdebug/contract-paths');
      await writeFile(join(workspace.dir, 'script.py'), 'print("fixed")\n');
      await writeFile(join(workspace.dir, 'untouched.txt'), 'not committed\n');
      const sha = await workspace.commit('Fix the script', AUTHOR, ['script.py']);
      expect(sha).toMatch(SHA);
      expect(await subject.remote.branchSha('selfdebug/contract-paths')).toBeNull();

      await workspace.push('selfdebug/contract-paths', subject.remote.token);

      const { remote } = subject;
      expect(await remote.branchSha('selfdebug/contract-paths')).toBe(sha);
      expect(await remote.readFile('selfdebug/contract-paths', 'script.py')).toBe('print("fixed")\n');
      expect(await remote.readFile('selfdebug/contract-paths', 'README.md')).toBe('first\n');
      expect(await remote.readFile('selfdebug/contract-paths', 'untouched.txt')).toBeNull();
      expect(await remote.branchSha('main')).toBe(remote.commits[2]);
    });

    it('commits every change when no paths are given, deletions included', async () => {
      const workspace = await checkout();
      await workspace.createBranch('selfdebug/contract-all');
      await writeFile(join(workspace.dir, 'new.txt'), 'new\n');
      await rm(join(workspace.dir, 'notes/a.txt'));
      const sha = await workspace.commit('Everything', AUTHOR);
      expect(sha).toMatch(SHA);
      await workspace.push('selfdebug/contract-all', subject.remote.token);
      expect(await subject.remote.branchSha('selfdebug/contract-all')).toBe(sha);
      expect(await subject.remote.readFile('selfdebug/contract-all', 'new.txt')).toBe('new\n');
      expect(await subject.remote.readFile('selfdebug/contract-all', 'notes/a.txt')).toBeNull();
    });

    it('commits nothing, and says so with null, when nothing changed', async () => {
      const workspace = await checkout();
      await workspace.createBranch('selfdebug/contract-nothing');
      expect(await workspace.commit('Nothing', AUTHOR)).toBeNull();
      expect(await workspace.commit('Nothing', AUTHOR, ['script.py'])).toBeNull();
      await writeFile(join(workspace.dir, 'other.txt'), 'changed\n');
      expect(await workspace.commit('Nothing listed', AUTHOR, [])).toBeNull();
      expect(await workspace.countCommits('Nothing')).toBe(0);
    });

    it('refuses commit paths outside the checkout', async () => {
      const workspace = await checkout();
      await workspace.createBranch('selfdebug/contract-outside');
      for (const path of ['../escape.txt', '/etc/passwd', '.git/config']) {
        const refused = await failure(workspace.commit('Bad', AUTHOR, [path]));
        expect(refused).toBeInstanceOf(WorkspacePathError);
      }
    });

    it('counts the commits carrying a trailer, and pushes again after a further commit', async () => {
      const workspace = await checkout();
      await workspace.createBranch('selfdebug/contract-rounds');
      await writeFile(join(workspace.dir, 'one.txt'), '1\n');
      await workspace.commit('First\n\nSelfdebug-Round: workflow-run', AUTHOR);
      await workspace.push('selfdebug/contract-rounds', subject.remote.token);
      await writeFile(join(workspace.dir, 'two.txt'), '2\n');
      const second = await workspace.commit('Second\n\nSelfdebug-Round: workflow-run', AUTHOR);
      await writeFile(join(workspace.dir, 'three.txt'), '3\n');
      const third = await workspace.commit('Third', AUTHOR);
      expect(third).not.toBe(second);
      expect(await workspace.countCommits('Selfdebug-Round: workflow-run')).toBe(2);
      await workspace.push('selfdebug/contract-rounds', subject.remote.token);
      expect(await subject.remote.branchSha('selfdebug/contract-rounds')).toBe(third);
    });

    it('refuses to push any branch outside selfdebug/, before anything reaches the remote', async () => {
      const workspace = await checkout();
      await writeFile(join(workspace.dir, 'script.py'), 'print("sneaky")\n');
      await workspace.commit('Change', AUTHOR);
      for (const branch of ['main', 'feature/selfdebug/x', 'selfdebugger/x']) {
        const refused = await failure(workspace.push(branch, subject.remote.token));
        expect(refused).toBeInstanceOf(ProtectedBranchError);
        expect(refused).toMatchObject({ branch, reason: 'outside-prefix', retryable: false });
      }
      expect(await subject.remote.branchSha('main')).toBe(subject.remote.commits[2]);
      expect(await subject.remote.branchSha('feature/selfdebug/x')).toBeNull();
      expect(await subject.remote.branchSha('selfdebugger/x')).toBeNull();
    });

    it('never forces: a branch someone else moved stays where they put it', async () => {
      const { remote } = subject;
      // Their commit is not an ancestor of ours, so only a forced push could replace it.
      await remote.setBranch('selfdebug/contract-race', remote.commits[2]!);
      const workspace = await checkout({ sha: remote.commits[0]! });
      await workspace.createBranch('selfdebug/contract-race');
      await writeFile(join(workspace.dir, 'script.py'), 'print("ours")\n');
      await workspace.commit('Ours', AUTHOR);
      const refused = await failure(workspace.push('selfdebug/contract-race', remote.token));
      expect(refused).toBeInstanceOf(BranchMovedError);
      expect(refused).toMatchObject({ branch: 'selfdebug/contract-race', retryable: false });
      expect(await remote.branchSha('selfdebug/contract-race')).toBe(remote.commits[2]);
    });

    it('refuses a branch name git could misread, before git runs', async () => {
      const workspace = await checkout();
      for (const branch of ['-delete', 'selfdebug/a..b', 'selfdebug/x:main']) {
        const refused = await failure(workspace.createBranch(branch));
        expect(refused).toBeInstanceOf(GitError);
        expect(refused).toMatchObject({ operation: 'branch' });
      }
    });

    it('maps a refused token to GitAuthError, on checkout and on push, without the token in it', async () => {
      const { remote } = subject;
      const onCheckout = await failure(checkout({ token: remote.wrongToken }));
      expect(onCheckout).toBeInstanceOf(GitAuthError);
      expect(onCheckout).toMatchObject({ operation: 'checkout', retryable: false });
      expect(String(onCheckout)).not.toContain(remote.wrongToken);

      const workspace = await checkout();
      await workspace.createBranch('selfdebug/contract-auth');
      await writeFile(join(workspace.dir, 'auth.txt'), 'auth\n');
      await workspace.commit('Auth', AUTHOR);
      const onPush = await failure(workspace.push('selfdebug/contract-auth', remote.wrongToken));
      expect(onPush).toBeInstanceOf(GitAuthError);
      expect(onPush).toMatchObject({ operation: 'push' });
      expect(String(onPush)).not.toContain(remote.wrongToken);
      expect(await remote.branchSha('selfdebug/contract-auth')).toBeNull();
    });

    it('maps a commit the remote does not have, and a bad sha, to GitError on checkout', async () => {
      const unknown = await failure(checkout({ sha: 'f'.repeat(40) }));
      expect(unknown).toBeInstanceOf(GitError);
      expect(unknown).toMatchObject({ operation: 'checkout' });
      const malformed = await failure(checkout({ sha: 'HEAD' }));
      expect(malformed).toBeInstanceOf(GitError);
      expect(malformed).toMatchObject({ operation: 'checkout' });
    });

    it('fails checkout of a repository that does not exist with a typed error', async () => {
      const missing = await failure(checkout({ cloneUrl: subject.remote.missingCloneUrl }));
      expect(missing).toBeInstanceOf(GitError);
      expect(missing).toMatchObject({ operation: 'checkout', retryable: false });
      expect((missing as Error).message).toContain('does not exist or is hidden from the App');
    });

    it('keeps the token out of the checkout', async () => {
      const workspace = await checkout();
      const config = await readFile(join(workspace.dir, '.git/config'), 'utf8');
      expect(config).not.toContain(subject.remote.token);
      expect(config).toContain(subject.remote.cloneUrl);
    });

    it('removes the checkout on dispose', async () => {
      const workspace = await subject.provider.checkout({
        cloneUrl: subject.remote.cloneUrl,
        sha: subject.remote.commits[0]!,
        token: subject.remote.token,
      });
      expect(await exists(join(workspace.dir, 'script.py'))).toBe(true);
      await workspace.dispose();
      expect(await exists(workspace.dir)).toBe(false);
    });
  });
}
