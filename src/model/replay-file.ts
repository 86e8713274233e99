import { z } from 'zod';
import { ConfigError } from '../errors/index.js';
import type { ModelRequest } from './language-model.js';
import { type ScriptedAnswer, ScriptedModel } from './scripted-model.js';

/**
 * A replay file: the model's side of a session, one entry per model call,
 * so `selfdebug fix --replay FILE` runs without any model server. Written by
 * `--record FILE` or by hand; the format is documented in docs/replay.md.
 */
const usageSchema = z.object({
  promptTokens: z.int().min(0),
  completionTokens: z.int().min(0),
  totalTokens: z.int().min(0).optional(),
});

const responseSchema = z
  .object({
    purpose: z.enum(['generate', 'retry-decision', 'reflect', 'explain', 'repair']).optional(),
    content: z.string().nullable().optional(),
    json: z.unknown().optional(),
    toolCalls: z
      .array(
        z.object({
          name: z.string().min(1),
          arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
        }),
      )
      .optional(),
    usage: usageSchema.optional(),
  })
  .refine((entry) => !(entry.content !== undefined && entry.json !== undefined), {
    message: 'give either "content" or "json", not both',
  });

const replayFileSchema = z.object({
  model: z.string().min(1).default('replay'),
  responses: z.array(responseSchema).min(1),
});

export type ReplayFile = z.input<typeof replayFileSchema>;
type ReplayResponse = z.infer<typeof responseSchema>;

export function parseReplayFile(text: string, source: string): ScriptedModel {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(source, `✖ not valid JSON: ${(error as Error).message}`);
  }
  const parsed = replayFileSchema.safeParse(data);
  if (!parsed.success) throw new ConfigError(source, z.prettifyError(parsed.error));
  return new ScriptedModel(
    parsed.data.responses.map((entry, index) => answerFor(entry, index, source)),
    parsed.data.model,
  );
}

function answerFor(entry: ReplayResponse, index: number, source: string): ScriptedAnswer {
  return (request: ModelRequest) => {
    if (entry.purpose && entry.purpose !== request.purpose) {
      return new ConfigError(
        source,
        `✖ response ${index + 1} is for "${entry.purpose}" but the loop asked for "${request.purpose}"; ` +
          'the replay no longer matches this run.',
      );
    }
    const usage = entry.usage
      ? {
          ...entry.usage,
          totalTokens: entry.usage.totalTokens ?? entry.usage.promptTokens + entry.usage.completionTokens,
        }
      : undefined;
    return {
      content: entry.json !== undefined ? JSON.stringify(entry.json) : (entry.content ?? null),
      toolCalls: (entry.toolCalls ?? []).map((call) => ({
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      })),
      ...(usage ? { usage } : {}),
    };
  };
}
