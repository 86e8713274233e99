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
  const blocks = [...content.matchAll(/<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g)];
  const candidates = blocks.length > 0 ? blocks.map((match) => match[1] ?? '') : [stripFence(content)];
  const toolCalls: ToolCall[] = [];
  for (const candidate of candidates) {
    const call = parseCall(candidate, offered);
    if (call === undefined) return { toolCalls: [], content };
    toolCalls.push({ id: `${idPrefix}_${toolCalls.length}`, ...call });
  }
  const rest = blocks.length > 0 ? content.replace(/<tool_call>[\s\S]*?<\/tool_call>/g, '').trim() : '';
  return { toolCalls, content: rest === '' ? null : rest };
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

function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)```\s*$/.exec(text);
  return (fenced?.[1] ?? text).trim();
}
