import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../src/loop/unified-diff.js';
import { addedLineRanges, diffAnnotations } from '../../src/report/diff-annotations.js';
import { FINAL_DIFF, SECOND_DIFF } from './fixtures/diffs.js';

describe('addedLineRanges', () => {
  it('numbers added lines as in the changed file, one range per run of additions', () => {
    expect(addedLineRanges(SECOND_DIFF)).toEqual([
      { path: 'stats.py', startLine: 2, endLine: 2 },
      { path: 'stats.py', startLine: 10, endLine: 10 },
    ]);
    expect(addedLineRanges(FINAL_DIFF)).toEqual([{ path: 'stats.py', startLine: 2, endLine: 2 }]);
  });

  it('reads the diffs the loop makes, new files included', () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\nh\n';
    const after = 'a\nB1\nB2\nc\nd\ne\nf\ng\nh\ni\n';
    const diff = unifiedDiff('src/app.py', before, after) + unifiedDiff('new.sh', null, 'echo 1\necho 2\n');
    expect(addedLineRanges(diff)).toEqual([
      { path: 'src/app.py', startLine: 2, endLine: 3 },
      { path: 'src/app.py', startLine: 10, endLine: 10 },
      { path: 'new.sh', startLine: 1, endLine: 2 },
    ]);
  });

  it('gives deleted files no ranges', () => {
    const diff = unifiedDiff('old.py', 'x = 1\n', null);
    expect(addedLineRanges(diff)).toEqual([]);
  });

  it('does not mistake a removed "-- x" line for a file header', () => {
    const diff = [
      '--- a/notes.sql',
      '+++ b/notes.sql',
      '@@ -1,2 +1,2 @@',
      '--- a comment that starts with two dashes',
      '+++ another line that looks like a header',
      ' select 1;',
      '',
    ].join('\n');
    expect(addedLineRanges(diff)).toEqual([{ path: 'notes.sql', startLine: 1, endLine: 1 }]);
  });

  it('reads git-quoted paths and skips "no newline" markers', () => {
    const diff = [
      'diff --git "a/na\\303\\257ve file.py" "b/na\\303\\257ve file.py"',
      '--- "a/na\\303\\257ve file.py"',
      '+++ "b/na\\303\\257ve file.py"',
      '@@ -1 +1 @@',
      '-x = 1',
      '\\ No newline at end of file',
      '+x = 2',
      '\\ No newline at end of file',
      '',
    ].join('\n');
    expect(addedLineRanges(diff)).toEqual([{ path: 'naïve file.py', startLine: 1, endLine: 1 }]);
  });

  it('recovers when a hunk is shorter than its header says', () => {
    const diff = [
      '+++ b/a.py',
      '@@ -1,5 +1,5 @@',
      '+x',
      'diff --git a/b.py b/b.py',
      '--- /dev/null',
      '+++ b/b.py',
      '@@ -0,0 +1 @@',
      '+y',
      '',
    ].join('\n');
    expect(addedLineRanges(diff)).toEqual([
      { path: 'a.py', startLine: 1, endLine: 1 },
      { path: 'b.py', startLine: 1, endLine: 1 },
    ]);
  });
});

describe('diffAnnotations', () => {
  it('makes notices with the message on each added range', () => {
    expect(diffAnnotations(FINAL_DIFF, 'Import statistics')).toEqual([
      {
        path: 'stats.py',
        startLine: 2,
        endLine: 2,
        level: 'notice',
        message: 'Import statistics',
        title: 'Changed by selfdebug',
      },
    ]);
  });

  it('stops at 50, what GitHub takes in one request', () => {
    const before = Array.from({ length: 400 }, (_unused, index) => `line ${index}`).join('\n');
    const after = before.replace(/line (\d*0)$/gm, 'changed $1');
    const diff = unifiedDiff('big.txt', `${before}\n`, `${after}\n`);
    expect(addedLineRanges(diff).length).toBe(40);
    const many = unifiedDiff('big.txt', `${before}\n`, `${before.replace(/line (\d*[05])$/gm, 'x $1')}\n`);
    expect(addedLineRanges(many).length).toBe(80);
    expect(diffAnnotations(many, 'm')).toHaveLength(50);
    expect(diffAnnotations(many, 'm', { max: 10 })).toHaveLength(10);
  });
});
