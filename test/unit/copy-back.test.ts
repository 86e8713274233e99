import { lstat, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertCommitPaths } from '../../src/adapters/git/commit-paths.js';
import { WorkspacePathError } from '../../src/errors/sandbox-errors.js';
import type { WorkspaceFile } from '../../src/sandbox/sandbox.js';
import { workspacePath } from '../../src/sandbox/workspace-path.js';
import { copyBack } from '../../src/workspace/copy-back.js';
import { useTempDirs } from '../helpers/temp-dir.js';

/** A sandbox whose workspace is a map of regular files. */
function sandboxOf(files: Record<string, WorkspaceFile>) {
  return { readFile: async (path: string) => files[path] ?? null };
}

const file = (text: string, mode = 0o644): WorkspaceFile => ({ content: Buffer.from(text), mode });

describe('copyBack', () => {
  const tempDir = useTempDirs();

  it('writes regular files, making folders, with permission bits only', async () => {
    const dir = await tempDir();
    const report = await copyBack(
      sandboxOf({ 'a/b/run.sh': file('#!/bin/sh\n', 0o6755), 'x.txt': file('x') }),
      ['a/b/run.sh', 'x.txt'],
      dir,
    );
    expect(report).toEqual({ written: ['a/b/run.sh', 'x.txt'], refused: [] });
    expect((await stat(join(dir, 'a/b/run.sh'))).mode & 0o7777).toBe(0o755);
  });

  it("keeps the checkout's logins: a stripped .npmrc is left as it is, a credential file never comes back", async () => {
    const dir = await tempDir();
    const npmrc = 'registry=https://registry.example/\n//registry.example/:_authToken=abc123\n';
    await writeFile(join(dir, '.npmrc'), npmrc);
    await mkdir(join(dir, 'web'));
    await writeFile(join(dir, 'web/.npmrc'), 'save-exact=true\n');
    const report = await copyBack(
      sandboxOf({
        // What the sandbox saw was the stripped copy; the model changed a setting beside the login.
        '.npmrc': file('registry=https://registry.example/\nsave-exact=true\n'),
        'web/.npmrc': file('save-exact=false\n'),
        '.git-credentials': file('https://user:pw@host.example\n'),
      }),
      ['.npmrc', 'web/.npmrc', '.git-credentials'],
      dir,
    );
    expect(report.written).toEqual(['web/.npmrc']);
    expect(report.refused.map((entry) => entry.path)).toEqual(['.npmrc', '.git-credentials']);
    expect(report.refused[0]?.reason).toMatch(/holds logins the sandbox never saw/);
    expect(report.refused[1]?.reason).toMatch(/never brought back/);
    expect(await readFile(join(dir, '.npmrc'), 'utf8')).toBe(npmrc);
    expect(await readFile(join(dir, 'web/.npmrc'), 'utf8')).toBe('save-exact=false\n');
    await expect(lstat(join(dir, '.git-credentials'))).rejects.toThrow();
  });

  it('never writes through a link on the host, and replaces a link standing where the file goes', async () => {
    const dir = await tempDir();
    const outside = await tempDir();
    await symlink(outside, join(dir, 'src'));
    await writeFile(join(outside, 'target.txt'), 'outside\n');
    await symlink(join(outside, 'target.txt'), join(dir, 'config.txt'));
    const report = await copyBack(
      sandboxOf({ 'src/evil.txt': file('pwned'), 'config.txt': file('mine\n') }),
      ['src/evil.txt', 'config.txt'],
      dir,
    );
    expect(report.written).toEqual(['config.txt']);
    expect(report.refused).toEqual([
      { path: 'src/evil.txt', reason: expect.stringContaining('symbolic link') },
    ]);
    expect(await readdir(outside)).toEqual(['target.txt']);
    expect(await readFile(join(outside, 'target.txt'), 'utf8')).toBe('outside\n');
    expect((await lstat(join(dir, 'config.txt'))).isFile()).toBe(true);
    expect(await readlink(join(dir, 'src'))).toBe(outside);
  });

  it('lists paths it cannot bring back instead of throwing', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'folder'));
    await writeFile(join(dir, 'plain'), 'file');
    const report = await copyBack(
      sandboxOf({ folder: file('x'), 'plain/below': file('x'), 'lib/.git/config': file('x') }),
      ['../up', '/etc/passwd', 'lib/.git/config', '.GIT/hooks/pre-commit', 'gone', 'folder', 'plain/below'],
      dir,
    );
    expect(report.written).toEqual([]);
    expect(report.refused.map((entry) => entry.path)).toEqual([
      '../up',
      '/etc/passwd',
      'lib/.git/config',
      '.GIT/hooks/pre-commit',
      'gone',
      'folder',
      'plain/below',
    ]);
    expect(await readFile(join(dir, 'plain'), 'utf8')).toBe('file');
  });
});

describe('paths into a .git folder', () => {
  it('are refused at any depth and in any case, for edits and for commits', () => {
    for (const path of ['.git/config', 'lib/.git/config', 'a/.Git/hooks/x', '.GIT']) {
      expect(() => workspacePath(path)).toThrow(WorkspacePathError);
      expect(() => assertCommitPaths([path])).toThrow(WorkspacePathError);
    }
    expect(workspacePath('lib/.gitignore')).toBe('lib/.gitignore');
    expect(() => assertCommitPaths(['.gitattributes', 'a/.github/x.yml'])).not.toThrow();
  });
});
