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

describe('context window split', () => {
  it('keeps a quarter of a small window for the answer and fits prompt + answer inside it', () => {
    expect(outputAllowance(4096, 4096)).toBe(1024);
    expect(promptTokenBudgetFor(4096, 4096)).toBe(2662);
    expect(promptTokenBudgetFor(4096, 4096) + outputAllowance(4096, 4096)).toBeLessThan(4096);
    expect(outputAllowance(128_000, 4096)).toBe(4096);
    expect(promptTokenBudgetFor(16_384, 4096)).toBe(10_649);
  });
});
