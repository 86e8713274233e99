import { describe, expect, it } from 'vitest';
import { details, link, MarkdownWriter, safeUrl } from '../../src/report/markdown.js';
import { REDACTED, Redactor } from '../../src/report/redact.js';
import { ZERO_WIDTH_JOINER } from '../../src/report/sanitize.js';

const secret = 'a-secret-value-123';
const md = new MarkdownWriter(new Redactor([secret]));

describe('MarkdownWriter', () => {
  it('keeps a line on one line, even when it starts like a fence or a heading', () => {
    expect(md.line('```js\nconsole.log(1)')).toBe(`${ZERO_WIDTH_JOINER}\`\`\`js console.log(1)`);
    expect(md.line('# not a heading')).toBe(`${ZERO_WIDTH_JOINER}# not a heading`);
    expect(md.line('x'.repeat(500), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('redacts before clipping, so a cut never leaves part of a secret', () => {
    expect(md.line(`key ${secret}`, 12)).toBe('key [REDACT…');
    expect(md.code(`deploy --key ${secret}`)).toBe(`\`deploy --key ${REDACTED}\``);
    expect(md.html(`<b>${secret}</b>`)).toBe(`&lt;b&gt;${REDACTED}&lt;/b&gt;`);
  });

  it('redacts the finished body once more, template text included', () => {
    expect(md.body([`written by a template: ${secret}\n`, md.output(secret)])).toBe(
      `written by a template: ${REDACTED}\n\`\`\`text\n${REDACTED}\n\`\`\``,
    );
  });
});

describe('details', () => {
  it('leaves blank lines around the content so GitHub renders its Markdown', () => {
    expect(details('Output', ['text']).join('')).toBe(
      '<details><summary>Output</summary>\n\ntext\n\n</details>\n\n',
    );
  });
});

describe('links', () => {
  it('links only URLs that cannot break the link syntax', () => {
    expect(safeUrl('https://github.com/acme/reports/pull/13')).toBe(
      'https://github.com/acme/reports/pull/13',
    );
    expect(safeUrl('javascript:alert(1)')).toBeNull();
    expect(safeUrl('https://x/a) [y](z')).toBeNull();
    expect(link('PR', 'https://x/1')).toBe('[PR](https://x/1)');
    expect(link('PR', null)).toBe('PR');
  });
});
