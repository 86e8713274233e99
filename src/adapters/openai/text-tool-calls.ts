import type { ToolCall } from '../../model/language-model.js';

/**
 * Tool calls some servers leave in the content as text, when their parser for
 * the model's format is missing or off (vLLM without --tool-call-parser,
 * llama.cpp without --jinja, Hermes/Qwen templates): `<tool_call>{…}</tool_call>`
 * blocks, or the whole answer being `{"name": …, "arguments": …}`. Only names of
 * tools we offered count, so a JSON answer that happens to have a "name" is left alone.
 */
export function toolCallsFromText(
  content: string | null,
  offered: readonly string[],
  idPrefix: string,
): { toolCalls: ToolCall[]; content: string | null } {
  if (content === null || offered.length === 0) return { toolCalls: [], content };
  const { blocks, rest } = toolCallBlocks(content);
  const candidates = blocks.length > 0 ? blocks : [stripFence(content)];
  const toolCalls: ToolCall[] = [];
  for (const candidate of candidates) {
    const call = parseCall(candidate, offered);
    if (call === undefined) return { toolCalls: [], content };
    toolCalls.push({ id: `${idPrefix}_${toolCalls.length}`, ...call });
  }
  const left = blocks.length > 0 ? rest.trim() : '';
  return { toolCalls, content: left === '' ? null : left };
}

function parseCall(text: string, offered: readonly string[]): Omit<ToolCall, 'id'> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const name = record.name;
  if (typeof name !== 'string' || !offered.includes(name)) return undefined;
  const args = record.arguments ?? record.parameters ?? {};
  return { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';

/**
 * Each `<tool_call>…</tool_call>` block's inside, trimmed, and the text around them. Found by
 * substring search: as a pattern (`<tool_call>\s*([\s\S]*?)\s*<\/tool_call>`) an unclosed block of
 * blanks backtracked in time the cube of its length, and a model's answer is not ours to trust.
 */
function toolCallBlocks(content: string): { blocks: string[]; rest: string } {
  const blocks: string[] = [];
  let rest = '';
  let position = 0;
  for (;;) {
    const open = content.indexOf(OPEN, position);
    const close = open === -1 ? -1 : content.indexOf(CLOSE, open + OPEN.length);
    if (close === -1) break;
    blocks.push(content.slice(open + OPEN.length, close).trim());
    rest += content.slice(position, open);
    position = close + CLOSE.length;
  }
  return { blocks, rest: rest + content.slice(position) };
}

/**
 * The inside of a fence that is the whole answer (`` ```json ``, a line break, the JSON, `` ``` ``),
 * trimmed, or the answer trimmed. Read by hand, for the reason above.
 */
function stripFence(text: string): string {
  let start = text.length - text.trimStart().length;
  if (!text.startsWith('```', start)) return text.trim();
  start += 3;
  if (text.startsWith('json', start) && opensLine(text, start + 4) !== -1) start += 4;
  const inside = opensLine(text, start);
  const end = text.trimEnd().length - 3;
  if (inside === -1 || end < inside || !text.startsWith('```', end)) return text.trim();
  return text.slice(inside, end).trim();
}

/** After the blanks from `from`, where the text goes on past the last line break among them, or -1 without one. */
function opensLine(text: string, from: number): number {
  let index = from;
  let after = -1;
  while (index < text.length && /\s/.test(text[index]!)) {
    if (text[index] === '\n') after = index + 1;
    index++;
  }
  return after;
}
