import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { StructuredOutputMode } from '../../config/model-config.js';
import type { ModelRequest } from '../../model/language-model.js';

type ResponseFormat = NonNullable<ChatCompletionCreateParamsNonStreaming['response_format']>;
type OutputRequest = NonNullable<ModelRequest['output']>;

/** The next weaker mode to try when a server refuses one. */
export const weakerMode: Record<StructuredOutputMode, StructuredOutputMode> = {
  json_schema: 'json_object',
  json_object: 'none',
  none: 'none',
};

export function responseFormatFor(
  output: OutputRequest,
  mode: StructuredOutputMode,
): ResponseFormat | undefined {
  if (mode === 'json_schema') {
    // strict: false because strict mode rejects common schemas (optional fields,
    // open objects); the loop validates with zod and repairs anyway.
    return {
      type: 'json_schema',
      json_schema: { name: schemaName(output.name), schema: output.schema, strict: false },
    };
  }
  if (mode === 'json_object') return { type: 'json_object' };
  return undefined;
}

/**
 * Without json_schema the server cannot see the schema, so the model is told in
 * words. json_object also needs this: OpenAI rejects it unless the messages say "JSON".
 */
export function schemaInstruction(output: OutputRequest, mode: StructuredOutputMode): string | undefined {
  if (mode === 'json_schema') return undefined;
  return (
    'Answer with a single JSON object and nothing else (no prose, no code fences). ' +
    `It must follow this JSON Schema ("${output.name}"):\n${JSON.stringify(output.schema)}`
  );
}

/** OpenAI accepts only [a-zA-Z0-9_-]{1,64} as a schema name. */
function schemaName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return cleaned === '' ? 'output' : cleaned;
}
