import { lstat, mkdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkspacePathError } from '../../src/errors/index.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { copyBack } from '../../src/workspace/copy-back.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import type { ContractSubject } from './sandbox-contract.js';

/** What a call refused with, or null when it did not. */
async function refusal(call: () => Promise<unknown>): Promise<unknown> {
  return call().then(
    () => null,
    (caught: unknown) => caught,
  );
}

/**
 * Links in the workspace, as both sandboxes must treat them: a link is
 * followed only while it stays inside the workspace; one that leads out (an
 * absolute target, `..`, a chain of links) or loops is a WorkspacePathError
 * naming the part that does it, for reading, writing and copying back alike.
 */
export function sandboxLinksContract(subject: ContractSubject): void {
  describe(`Sandbox contract, links: ${subject.name}`, () => {
    const tempDir = useTempDirs();
    const open: Sandbox[] = [];
    let opened = 0;
    afterEach(async () => {
      await Promise.all(open.splice(0).map((sandbox) => sandbox.dispose()));
    });

    async function openWith(setup: string): Promise<Sandbox> {
      const host = await tempDir();
      await mkdir(join(host, 'src'));
      await writeFile(join(host, 'src', 'real.py'), 'VALUE = 1\n');
      const sandbox = await subject.provider().open({ jobId: `links-${++opened}`, workspace: host });
      open.push(sandbox);
      expect((await sandbox.exec(setup)).exitCode).toBe(0);
      return sandbox;
    }

    it('reads and writes through a link that stays inside, and says where it led', async () => {
      const sandbox = await openWith(
        'ln -s src/real.py alias.py && ln -s src lib && ln -s ../alias.py src/again.py',
      );
      expect(await sandbox.readFile('alias.py')).toMatchObject({
        content: Buffer.from('VALUE = 1\n'),
        realPath: 'src/real.py',
        symlink: { path: 'alias.py', target: 'src/real.py' },
      });
      const throughFolder = await sandbox.readFile('lib/real.py');
      expect(throughFolder).toMatchObject({ realPath: 'src/real.py' });
      expect(throughFolder?.symlink).toBeUndefined();
      // A chain that stays inside is fine too.
      expect((await sandbox.readFile('src/again.py'))?.content.toString()).toBe('VALUE = 1\n');
      // Written through, as `echo > alias.py` would: the link stays a link.
      await sandbox.writeFile('alias.py', 'VALUE = 2\n');
      await sandbox.writeFile('lib/new.py', 'NEW = 1\n');
      const after = await sandbox.exec('cat src/real.py src/new.py; readlink alias.py lib');
      expect(after.stdout).toBe('VALUE = 2\nNEW = 1\nsrc/real.py\nsrc\n');
    });

    it('refuses links that lead out, by an absolute target, by .. or by a chain, reading and writing', async () => {
      // Targets outside are a folder of the test's own: a write that got through must harm nothing.
      const outside = await tempDir();
      await writeFile(join(outside, 'canary.txt'), 'canary\n');
      const sandbox = await openWith(
        [
          `ln -s ${outside}/canary.txt absolute`,
          'ln -s ../canary.txt climbing',
          'ln -s .. up',
          'mkdir -p d && ln -s .. d/b && ln -s d/b/.. chained',
          `ln -s hop1 hop0 && ln -s hop2 hop1 && ln -s ${outside} hop2`,
        ].join(' && '),
      );
      for (const [path, blocker] of [
        ['absolute', 'absolute'],
        ['climbing', 'climbing'],
        ['up/src/real.py', 'up'],
        ['chained/escaped.txt', 'chained'],
        ['hop0/escaped.txt', 'hop0'],
      ] as const) {
        for (const attempt of [() => sandbox.readFile(path), () => sandbox.writeFile(path, 'x')]) {
          const error = await refusal(attempt);
          expect(error, path).toBeInstanceOf(WorkspacePathError);
          expect(error, path).toMatchObject({ path, problem: 'outside-link' });
          expect((error as Error).message).toContain(`"${blocker}" leads out of the workspace`);
        }
      }
      expect((await sandbox.exec('cat src/real.py')).stdout).toBe('VALUE = 1\n');
      expect(await readFile(join(outside, 'canary.txt'), 'utf8')).toBe('canary\n');
      expect(await lstat(join(outside, 'escaped.txt')).catch(() => null)).toBeNull();
    });

    it('refuses links that loop and chains longer than the kernel follows', async () => {
      const chain = Array.from({ length: 60 }, (_, index) => `ln -s l${index + 1} l${index}`).join(' && ');
      const sandbox = await openWith(`ln -s b a && ln -s a b && ${chain} && ln -s src/real.py l60`);
      for (const path of ['a', 'a/x.py', 'l0']) {
        const error = await refusal(() => sandbox.readFile(path));
        expect(error, path).toBeInstanceOf(WorkspacePathError);
        expect(error, path).toMatchObject({ problem: 'link-loop' });
      }
      // A chain the kernel does follow is read.
      expect((await sandbox.readFile('l50'))?.content.toString()).toBe('VALUE = 1\n');
    });

    it('reads no fifo (without waiting for a writer) and writes over one', async () => {
      const sandbox = await openWith('mkfifo pipe && ln -s pipe to-pipe');
      expect(await sandbox.readFile('pipe')).toBeNull();
      expect(await sandbox.readFile('to-pipe')).toBeNull();
      await sandbox.writeFile('pipe', 'now a file\n');
      expect((await sandbox.exec('[ -f pipe ] && cat pipe')).stdout).toBe('now a file\n');
    });

    it('copies a link that stays inside back as a link, and refuses one that leads out with its reason', async () => {
      const sandbox = await openWith(
        'ln -s src/real.py alias.py && ln -s /etc/passwd leak.txt && mkdir -p d && ln -s .. d/b && ln -s d/b/../.. far',
      );
      await sandbox.writeFile('alias.py', 'VALUE = 3\n');
      const checkout = await tempDir();
      const report = await copyBack(sandbox, ['alias.py', 'leak.txt', 'far/etc/passwd'], checkout);
      expect(report.written).toEqual(['alias.py']);
      expect(report.refused.map((entry) => entry.path)).toEqual(['leak.txt', 'far/etc/passwd']);
      for (const entry of report.refused) expect(entry.reason).toMatch(/leads out of the workspace/);
      expect(await readlink(join(checkout, 'alias.py'))).toBe('src/real.py');
      expect(await readFile(join(checkout, 'src', 'real.py'), 'utf8')).toBe('VALUE = 3\n');
      for (const name of ['leak.txt', 'far']) {
        expect(await lstat(join(checkout, name)).catch(() => null), name).toBeNull();
      }
    });

    it('copies the workspace out without a link that leads out of the folder', async () => {
      const sandbox = await openWith(
        [
          'ln -s src/real.py alias.py',
          'ln -s /etc/passwd absolute',
          'ln -s ../outside climbing',
          'mkdir -p d && ln -s .. d/b && ln -s d/b/.. chained',
          'ln -s ../src d/inside',
        ].join(' && '),
      );
      const out = await tempDir();
      const { refused } = await sandbox.copyOut(out);
      expect(refused.map((entry) => entry.path).sort()).toEqual(['absolute', 'chained', 'climbing']);
      for (const entry of refused) expect(entry.reason).toMatch(/link .*leads out/);
      expect(await readlink(join(out, 'alias.py'))).toBe('src/real.py');
      expect(await readlink(join(out, 'd', 'inside'))).toBe('../src');
      expect(await readlink(join(out, 'd', 'b'))).toBe('..');
      for (const name of ['absolute', 'climbing', 'chained']) {
        expect(await lstat(join(out, name)).catch(() => null), name).toBeNull();
      }
    });
  });
}
