import { describe, expect, it } from 'vitest';
import { scriptBlocks } from '../../src/app/issue-text.js';

const RUNNABLE = new Map([
  ['python', 'python'],
  ['sh', 'sh'],
  ['node', 'node'],
]);

/** The former reading: one multi-line pattern (fast on these texts; it backtracked on hostile ones). */
function formerly(text: string) {
  const blocks = [];
  for (const match of text.matchAll(/^\s*(`{3,}|~{3,})\s*([\w+-]*)[^\n]*\n([\s\S]*?)^\s*\1\s*$/gm)) {
    const language = RUNNABLE.get((match[2] ?? '').toLowerCase());
    if (language) blocks.push({ language, code: match[3] ?? '' });
  }
  return blocks;
}

describe("an issue's runnable code blocks, read line by line", () => {
  it('are the blocks the former pattern found, on issues built from a few kinds of lines and blocks', () => {
    const prose = ['Run this:', '', 'it fails', '  '];
    const openings = ['```python', '~~~sh', '````node', '  ```python', '```text', '```Python x'];
    const bodies = [[], ['print(1)'], ['print(1)', '', 'x = 2'], ['echo hi', '   '], ['  indented', '']];
    let compared = 0;
    for (const before of prose)
      for (const opening of openings)
        for (const body of bodies)
          for (const after of prose) {
            const fence = opening.trim().match(/^(`+|~+)/)![1]!;
            for (const closing of [fence, `  ${fence}  `]) {
              const text = [before, opening, ...body, closing, after, '```sh', 'echo two', '```', ''].join(
                '\n',
              );
              expect(scriptBlocks(text), JSON.stringify(text)).toEqual(formerly(text));
              compared++;
            }
          }
    expect(compared).toBeGreaterThan(900);
  });

  it('answers at once on a long open fence over line breaks (the former pattern took 25 s on 3 KB)', () => {
    expect(scriptBlocks(`\`\`\`\r${'\r\n\r'.repeat(20_000)}~`)).toEqual([]);
    expect(scriptBlocks('```python\n'.repeat(10_000))).toEqual([]);
  });
});
