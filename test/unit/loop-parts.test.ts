import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { applySearchReplace } from '../../src/loop/apply-search-replace.js';
import { excerptOutput } from '../../src/loop/excerpt.js';
import { fixProposalSchema, jsonSchemaOf } from '../../src/loop/schemas.js';
import { parseAnswer } from '../../src/loop/structured-call.js';
import { clip, estimateTokens } from '../../src/loop/tokens.js';
import { unifiedDiff } from '../../src/loop/unified-diff.js';

describe('applySearchReplace', () => {
  const edit = (search: string, replace: string) => ({ path: 'a.py', search, replace });

  it('replaces a unique match, and keeps Windows line endings', () => {
    expect(applySearchReplace('a.py', 'x = 1\ny = 2\n', edit('y = 2', 'y = 3'))).toEqual({
      ok: true,
      content: 'x = 1\ny = 3\n',
    });
    expect(applySearchReplace('a.py', 'x = 1\r\ny = 2\r\n', edit('x = 1\ny = 2', 'x = 0\ny = 0'))).toEqual({
      ok: true,
      content: 'x = 0\r\ny = 0\r\n',
    });
  });

  it('creates or overwrites a file when the search is empty', () => {
    expect(applySearchReplace('a.py', null, edit('', 'new'))).toEqual({ ok: true, content: 'new' });
  });

  it('explains a missing match with the closest line, and an ambiguous one with its count', () => {
    const missing = applySearchReplace(
      'a.py',
      'def main():\n    print("hi")\n',
      edit('    print("hello")', 'x'),
    );
    expect(missing).toEqual({
      ok: false,
      problem: expect.stringMatching(/a\.py: the search text was not found.*closest line.*print\(\\"hi\\"\)/),
    });
    expect(applySearchReplace('a.py', 'x\nx\n', edit('x', 'y'))).toEqual({
      ok: false,
      problem: 'a.py: the search text occurs 2 times; include more surrounding lines so it is unique.',
    });
    expect(applySearchReplace('a.py', null, edit('x', 'y'))).toMatchObject({ ok: false });
  });
});

describe('excerptOutput', () => {
  it('keeps the error with the line above it, then the end, marking what it dropped', () => {
    const lines = Array.from({ length: 5000 }, (_, index) => `line ${index}`);
    lines[2500] = 'AssertionError: expected 3 got 4';
    const excerpt = excerptOutput(lines.join('\n'), 4000);
    expect(excerpt.length).toBeLessThanOrEqual(4000);
    expect(excerpt).toContain(
      '[... 2499 lines omitted ...]\nline 2499\nAssertionError: expected 3 got 4\n[...',
    );
    expect(excerpt).toMatch(/line 4998\nline 4999$/);
  });

  it('returns short output unchanged and stays within budget on 5 MB of errors', () => {
    expect(excerptOutput('ok\n', 100)).toBe('ok\n');
    const noisy = 'error: x\n'.repeat(600_000);
    expect(excerptOutput(noisy, 3000).length).toBeLessThanOrEqual(3000);
  });
});

describe('parseAnswer', () => {
  const schema = z.object({ retry: z.boolean(), reason: z.string() });
  it('accepts bare JSON, fenced JSON and JSON inside prose', () => {
    for (const text of [
      '{"retry": true, "reason": "r"}',
      'Here:\n```json\n{"retry": true, "reason": "r"}\n```',
      'I think {"retry": true, "reason": "r"} is right',
    ]) {
      expect(parseAnswer(text, schema)).toEqual({ ok: true, value: { retry: true, reason: 'r' } });
    }
  });

  it('says what is wrong with an answer that does not fit', () => {
    expect(parseAnswer(null, schema)).toEqual({ ok: false, problem: 'the answer was empty.' });
    const result = parseAnswer('{"retry": "yes"}', schema);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problem).toMatch(/retry[\s\S]*reason|reason[\s\S]*retry/);
  });
});

describe('prompt helpers', () => {
  it('generates a flat JSON Schema for the fix proposal', () => {
    const schema = jsonSchemaOf(fixProposalSchema);
    expect(schema).toMatchObject({ type: 'object', required: ['analysis', 'edits'] });
    expect(JSON.stringify(schema)).not.toMatch(/anyOf|oneOf|\$schema/);
  });

  it('clips keeping both ends, and estimates tokens from characters', () => {
    const clipped = clip('a'.repeat(1000) + 'b'.repeat(1000), 200);
    expect(clipped.length).toBeLessThanOrEqual(200);
    expect(clipped.startsWith('a')).toBe(true);
    expect(clipped.endsWith('b')).toBe(true);
    expect(estimateTokens('x'.repeat(400))).toBe(100);
  });

  it('writes git-style diffs, including new files', () => {
    expect(unifiedDiff('a.py', 'x = 1\n', 'x = 2\n')).toBe(
      'diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,1 @@\n-x = 1\n+x = 2\n',
    );
    expect(unifiedDiff('new.py', null, 'print(1)\n')).toContain('--- /dev/null\n+++ b/new.py');
    expect(unifiedDiff('same.py', 'x', 'x')).toBe('');
  });
});
