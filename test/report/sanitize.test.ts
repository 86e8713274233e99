import { describe, expect, it } from 'vitest';
import { parseMarkers, statusMarker } from '../../src/report/markers.js';
import {
  closeOpenFences,
  codeBlock,
  escapeHtml,
  inlineCode,
  neutralizeMentions,
  neutralizeReferences,
  sanitizeProse,
  ZERO_WIDTH_JOINER as ZWJ,
} from '../../src/report/sanitize.js';

/** The text with the invisible joiners removed: what a reader sees. */
const visible = (text: string) => text.replaceAll(ZWJ, '');

describe('codeBlock', () => {
  it('uses a fence longer than any backtick run inside, so nothing can close it early', () => {
    const text = 'before\n```\n</details>\n````python\nafter';
    const block = codeBlock(text, 'text');
    expect(block.startsWith('`````text\n')).toBe(true);
    expect(block.endsWith('\n`````')).toBe(true);
    expect(block.slice('`````text\n'.length, -'\n`````'.length)).toBe(text);
  });

  it('uses three backticks when the text has none, and drops odd characters from the language', () => {
    expect(codeBlock('x = 1\n', 'py thon`')).toBe('```python\nx = 1\n```');
  });

  it('breaks a fake marker inside code, so searching the raw body cannot find it', () => {
    const block = codeBlock(`log\n${statusMarker('job-1')}\n`);
    expect(parseMarkers(block)).toEqual([]);
    expect(visible(block)).toContain(statusMarker('job-1'));
  });
});

describe('inlineCode', () => {
  it('wraps text holding backticks in a longer run, padded', () => {
    expect(inlineCode('echo `date`')).toBe('`` echo `date` ``');
    expect(inlineCode('a ``b`` c')).toBe('```a ``b`` c```');
  });

  it('keeps the code on one line', () => {
    expect(inlineCode('make\n  test')).toBe('`make test`');
  });

  it('never returns an empty span', () => {
    expect(inlineCode('  ')).toBe('` `');
  });
});

describe('neutralizeMentions', () => {
  it('stops @user and @org/team from notifying, invisibly', () => {
    const text = 'ping @octocat and @acme/core, (@root)';
    const safe = neutralizeMentions(text);
    expect(safe).not.toMatch(/(^|[^\w])@[A-Za-z0-9]/);
    expect(visible(safe)).toBe(text);
  });

  it('leaves e-mail addresses and decorator-less at signs alone', () => {
    expect(neutralizeMentions('mail ops@example.com, 5 @ 3')).toBe('mail ops@example.com, 5 @ 3');
  });
});

describe('neutralizeReferences', () => {
  it('stops issue references and closing keywords from linking', () => {
    const safe = neutralizeReferences('fixes #12, closes acme/reports#3 and GH-7');
    expect(safe).not.toMatch(/#\d|GH-\d/);
    expect(visible(safe)).toBe('fixes #12, closes acme/reports#3 and GH-7');
  });

  it('sends issue URLs through redirect.github.com, which leaves no back-reference', () => {
    expect(neutralizeReferences('see https://github.com/acme/reports/issues/12')).toBe(
      'see https://redirect.github.com/acme/reports/issues/12',
    );
    expect(neutralizeReferences('code at https://github.com/acme/reports/blob/main/x.py')).toBe(
      'code at https://github.com/acme/reports/blob/main/x.py',
    );
  });
});

describe('sanitizeProse', () => {
  it('turns a fake marker into visible text', () => {
    const text = `done ${statusMarker('job-1')} <!-- hidden -->`;
    const safe = sanitizeProse(text);
    expect(parseMarkers(safe)).toEqual([]);
    expect(safe).not.toContain('<!--');
    expect(visible(safe)).toBe(text);
  });

  it('neutralises </details> and other tags, but not comparisons', () => {
    const safe = sanitizeProse('x < y\n</details>\n<img src=x onerror=alert(1)>');
    expect(safe).not.toMatch(/<[A-Za-z/!?]/);
    expect(safe.startsWith('x < y')).toBe(true);
  });

  it('closes a fence the model left open', () => {
    expect(sanitizeProse('Use this:\n```python\nprint(1)')).toBe('Use this:\n```python\nprint(1)\n```');
  });

  it('leaves balanced fences and inline code as they are', () => {
    const text = 'Run `pytest -q`:\n\n```sh\npytest -q\n```\n\nDone.';
    expect(sanitizeProse(text)).toBe(text);
  });
});

describe('closeOpenFences', () => {
  it('closes with the opening character and length', () => {
    expect(closeOpenFences('~~~~\ncode\n```\n')).toBe('~~~~\ncode\n```\n~~~~');
  });

  it('does not take inline code with backticks in its info string for a fence', () => {
    expect(closeOpenFences('```a` b```')).toBe('```a` b```');
  });
});

describe('escapeHtml', () => {
  it('escapes markup and neutralises mentions for use inside <summary>', () => {
    const safe = escapeHtml('<b>@octocat</b> & "x"');
    expect(visible(safe)).toBe('&lt;b&gt;@octocat&lt;/b&gt; &amp; &quot;x&quot;');
    expect(safe).toContain(`@${ZWJ}octocat`);
  });
});
