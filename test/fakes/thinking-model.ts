import type { ChatMessage, ModelRequest } from '../../src/model/language-model.js';
import { type ScriptedAnswer, ScriptedModel } from '../../src/model/scripted-model.js';
import { type ChatBody, think } from './model-servers/shared.js';

/**
 * A scripted answer that decides as the fake model servers do (shared.ts
 * `think`): the first offered tool once, then JSON built from the requested
 * schema, otherwise talk. So the LanguageModel port contract asks the
 * ScriptedModel and the servers the same questions and gets comparable answers.
 */
export function thinkingAnswer(request: ModelRequest): ScriptedAnswer {
  const said = think(chatBodyOf(request));
  if (said.refusal !== undefined) return { content: said.refusal, finishReason: 'refusal' };
  return {
    content: said.content ?? null,
    toolCalls: (said.toolCalls ?? []).map((call) => ({
      name: call.name,
      arguments: JSON.stringify(call.arguments),
    })),
  };
}

/** A ScriptedModel with `answers` thinking answers: one is used up per call. */
export function thinkingModel(answers = 50, name?: string): ScriptedModel {
  return new ScriptedModel(
    Array.from({ length: answers }, () => thinkingAnswer),
    name,
  );
}

/** The request as the adapter would send it, in the fields `think` reads. */
function chatBodyOf(request: ModelRequest): ChatBody {
  return {
    messages: request.messages.map(messageOf),
    ...(request.tools
      ? { tools: request.tools.map((tool) => ({ type: 'function', function: { name: tool.name } })) }
      : {}),
    ...(request.output
      ? {
          response_format: {
            type: 'json_schema',
            json_schema: { name: request.output.name, schema: request.output.schema },
          },
        }
      : {}),
  };
}

function messageOf(message: ChatMessage): NonNullable<ChatBody['messages']>[number] {
  if (message.role === 'assistant' && message.toolCalls !== undefined)
    return { role: message.role, content: message.content, tool_calls: message.toolCalls };
  return { role: message.role, content: message.content };
}
