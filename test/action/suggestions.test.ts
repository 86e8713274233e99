import { describe, expect, it } from 'vitest';
import { placeable, suggestionsFrom } from '../../src/action/suggestions.js';
import { unifiedDiff } from '../../src/loop/unified-diff.js';

describe('suggestionsFrom', () => {
  it('turns each hunk into one suggestion over its old lines, context included', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'].join('\n');
    const after = before.replace('b', 'B').replace('k', 'K\nK2');
    const { comments, leftOver } = suggestionsFrom(unifiedDiff('src/x.txt', `${before}\n`, `${after}\n`));
    expect(leftOver).toEqual([]);
    expect(comments).toEqual([
      { path: 'src/x.txt', startLine: 1, line: 5, body: '```suggestion\na\nB\nc\nd\ne\n```' },
      { path: 'src/x.txt', startLine: 8, line: 12, body: '```suggestion\nh\ni\nj\nK\nK2\nl\n```' },
    ]);
  });

  it('fences code holding backticks with a longer fence', () => {
    const { comments } = suggestionsFrom(unifiedDiff('README.md', '```js\nold\n```\n', '```js\nnew\n```\n'));
    expect(comments[0]?.body).toBe('````suggestion\n```js\nnew\n```\n````');
  });

  it('leaves new and deleted files out of the suggestions, as diffs for the review text', () => {
    const created = unifiedDiff('new.txt', null, 'hello\n');
    const deleted = unifiedDiff('old.txt', 'bye\n', null);
    const { comments, leftOver } = suggestionsFrom(`${created}${deleted}`);
    expect(comments).toEqual([]);
    expect(leftOver).toHaveLength(2);
    expect(leftOver[0]).toContain('+hello');
    expect(leftOver[1]).toContain('-bye');
  });
});

describe('placeable', () => {
  it('keeps the suggestions inside one hunk of the pull request and writes out the rest', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'].join('\n');
    const after = before.replace('b', 'B').replace('k', 'K');
    const all = suggestionsFrom(unifiedDiff('src/x.txt', `${before}\n`, `${after}\n`));
    const { comments, leftOver } = placeable(all, [
      { filename: 'src/x.txt', patch: '@@ -1,4 +1,6 @@\n a\n+new\n+new\n b\n c\n d' },
      { filename: 'other.txt' },
    ]);
    // Lines 1–5 lie inside the hunk's new lines 1–6; lines 8–12 lie outside every hunk.
    expect(comments.map((comment) => [comment.startLine, comment.line])).toEqual([[1, 5]]);
    expect(leftOver).toEqual(['src/x.txt, lines 8–12, becomes:\n```suggestion\nh\ni\nj\nK\nl\n```']);
  });
});
