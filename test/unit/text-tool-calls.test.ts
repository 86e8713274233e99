import { describe, expect, it } from 'vitest';
import { toolCallsFromText } from '../../src/adapters/openai/text-tool-calls.js';
import { outputAllowance, promptTokenBudgetFor } from '../../src/model/context-window.js';

describe('tool calls written as text', () => {
  it('reads <tool_call> blocks of offered tools and keeps the prose around them', () => {
    const text =
      'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n</tool_call>\n' +
      '<tool_call>{"name": "list_files", "parameters": {}}</tool_call>';
    expect(toolCallsFromText(text, ['read_file', 'list_files'], 'call_text')).toEqual({
      toolCalls: [
        { id: 'call_text_0', name: 'read_file', arguments: '{"path":"a.py"}' },
        { id: 'call_text_1', name: 'list_files', arguments: '{}' },
      ],
      content: 'Let me look.',
    });
  });

  it('reads a whole answer that is one call, fenced or not', () => {
    expect(
      toolCallsFromText(
        '```json\n{"name":"read_file","arguments":"{\\"path\\":\\"b\\"}"}\n```',
        ['read_file'],
        'x',
      ),
    ).toEqual({
      toolCalls: [{ id: 'x_0', name: 'read_file', arguments: '{"path":"b"}' }],
      content: null,
    });
  });

  it('leaves answers alone: JSON with a "name" that is no offered tool, prose, or no tools offered', () => {
    const answer = '{"name": "fix_proposal", "analysis": "x"}';
    expect(toolCallsFromText(answer, ['read_file'], 'x')).toEqual({ toolCalls: [], content: answer });
    expect(toolCallsFromText('just words', ['read_file'], 'x').toolCalls).toEqual([]);
    expect(toolCallsFromText('{"name":"read_file","arguments":{}}', [], 'x').toolCalls).toEqual([]);
  });
});

/** The former patterns, for comparison on answers where they stay fast. */
function formerly(content: string, offered: string[]): ReturnType<typeof toolCallsFromText> {
  const stripFence = (text: string) =>
    (/^\s*```(?:json)?\s*\n([\s\S]*?)```\s*$/.exec(text)?.[1] ?? text).trim();
  const blocks = [...content.matchAll(/<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g)];
  const candidates = blocks.length > 0 ? blocks.map((match) => match[1] ?? '') : [stripFence(content)];
  const toolCalls = [];
  for (const candidate of candidates) {
    let value: { name?: unknown; arguments?: unknown };
    try {
      value = JSON.parse(candidate);
    } catch {
      return { toolCalls: [], content };
    }
    if (
      typeof value !== 'object' ||
      value === null ||
      typeof value.name !== 'string' ||
      !offered.includes(value.name)
    )
      return { toolCalls: [], content };
    const args = value.arguments ?? {};
    toolCalls.push({
      id: `x_${toolCalls.length}`,
      name: value.name,
      arguments: typeof args === 'string' ? args : JSON.stringify(args),
    });
  }
  const rest = blocks.length > 0 ? content.replace(/<tool_call>[\s\S]*?<\/tool_call>/g, '').trim() : '';
  return { toolCalls, content: rest === '' ? null : rest };
}

describe('tool calls written as text, found without backtracking patterns', () => {
  it('reads every answer built from a few telling pieces as the former patterns did', () => {
    const pieces = ['<tool_call>', '</tool_call>', ' ', '\n', '```', 'json', '{"name":"run"}', 'x'];
    let answers = [''];
    const all: string[] = [];
    for (let size = 1; size <= 5; size++) {
      answers = answers.flatMap((answer) => pieces.map((piece) => answer + piece));
      for (const answer of answers) all.push(answer);
    }
    for (const answer of all)
      expect(toolCallsFromText(answer, ['run'], 'x'), JSON.stringify(answer)).toEqual(
        formerly(answer, ['run']),
      );
  });

  it('answers at once on a long unclosed block or fence of blanks (the former patterns took minutes)', () => {
    expect(toolCallsFromText(`<tool_call>${'\t'.repeat(64_000)}`, ['run'], 'x').toolCalls).toEqual([]);
    expect(toolCallsFromText(`\`\`\`\n${'\n'.repeat(64_000)}`, ['run'], 'x').toolCalls).toEqual([]);
    expect(toolCallsFromText('<tool_call>'.repeat(6000), ['run'], 'x').toolCalls).toEqual([]);
  });
});

describe('context window split', () => {
  it('keeps a quarter of a small window for the answer and fits prompt + answer inside it', () => {
    expect(outputAllowance(4096, 4096)).toBe(1024);
    expect(promptTokenBudgetFor(4096, 4096)).toBe(2662);
    expect(promptTokenBudgetFor(4096, 4096) + outputAllowance(4096, 4096)).toBeLessThan(4096);
    expect(outputAllowance(128_000, 4096)).toBe(4096);
    expect(promptTokenBudgetFor(16_384, 4096)).toBe(10_649);
  });
});
