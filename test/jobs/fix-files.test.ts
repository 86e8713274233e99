import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixedScripts } from '../../src/jobs/fix-files.js';
import { readOnce } from '../../src/sandbox/read-once.js';
import type { WorkspaceFile } from '../../src/sandbox/sandbox.js';
import { copyBack } from '../../src/workspace/copy-back.js';
import { useTempDirs } from '../helpers/temp-dir.js';

/** A sandbox's files as its port hands them out, counting each read (each is a command in a real sandbox). */
function countingFiles(files: Record<string, string>) {
  const reads: string[] = [];
  return {
    reads,
    async readFile(path: string): Promise<WorkspaceFile | null> {
      reads.push(path);
      const text = files[path];
      return text === undefined ? null : { content: Buffer.from(text), mode: 0o644 };
    },
  };
}

describe('fix files: copy-back and the fixed scripts', () => {
  const tempDir = useTempDirs();

  it('reads each edited file from the sandbox once for both the copy-back and the scripts', async () => {
    const sandbox = countingFiles({ 'stats.py': 'print(7 / 3)\n', 'lib/util.py': 'X = 1\n' });
    const dir = await tempDir();
    const files = readOnce(sandbox);
    const changed = ['stats.py', 'lib/util.py'];
    const copied = await copyBack(files, changed, dir);
    const scripts = await fixedScripts(files, changed);
    expect(copied.refused).toEqual([]);
    expect(await readFile(join(dir, 'stats.py'), 'utf8')).toBe('print(7 / 3)\n');
    expect(scripts).toEqual([
      { path: 'stats.py', content: 'print(7 / 3)\n' },
      { path: 'lib/util.py', content: 'X = 1\n' },
    ]);
    expect(sandbox.reads).toEqual(['stats.py', 'lib/util.py']);
  });

  it('a file gone from the sandbox is refused by the copy-back and left out of the scripts, read once', async () => {
    const sandbox = countingFiles({});
    const files = readOnce(sandbox);
    const copied = await copyBack(files, ['gone.py'], await tempDir());
    expect(copied.refused.map((entry) => entry.path)).toEqual(['gone.py']);
    expect(await fixedScripts(files, ['gone.py'])).toEqual([]);
    expect(sandbox.reads).toEqual(['gone.py']);
  });
});
