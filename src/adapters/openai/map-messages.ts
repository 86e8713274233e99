import type {
  ChatCompletion,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { ModelApiError } from '../../errors/index.js';
import type { ChatMessage, ModelResponse, ToolCall, ToolDefinition } from '../../model/language-model.js';

/**
 * Our messages in the Chat Completions shape. `extraSystemText` is appended to
 * the first system message rather than sent as a second one, because some chat
 * templates (vLLM, Ollama) refuse a system message anywhere but first.
 */
export function toApiMessages(
  messages: ChatMessage[],
  extraSystemText?: string,
): ChatCompletionMessageParam[] {
  const mapped = messages.map(toApiMessage);
  if (extraSystemText === undefined) return mapped;
  const first = mapped[0];
  if (first?.role === 'system' && typeof first.content === 'string') {
    return [{ role: 'system', content: `${first.content}\n\n${extraSystemText}` }, ...mapped.slice(1)];
  }
  return [{ role: 'system', content: extraSystemText }, ...mapped];
}

function toApiMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant': {
      const toolCalls = message.toolCalls ?? [];
      // Several servers reject an empty tool_calls array, so it is left out instead.
      if (toolCalls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        content: message.content,
        tool_calls: toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

export function toApiTools(tools: ToolDefinition[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/**
 * The server's answer in our shape. Compatible servers leave out fields the SDK
 * types as present (usage, tool call type), so each is read defensively.
 */
export function toModelResponse(completion: ChatCompletion, configuredModel: string): ModelResponse {
  const choice = completion.choices?.[0];
  if (choice === undefined) {
    throw new ModelApiError(
      `The model server answered without any choice for model "${configuredModel}". ` +
        'Check that SELFDEBUG_MODEL names a chat model the server serves.',
    );
  }
  const message = choice.message;
  let content = message?.content ?? null;
  let finishReason: string = choice.finish_reason ?? 'unknown';
  // A refusal arrives beside an empty content; surfacing it lets the transcript show why.
  if (
    (content === null || content === '') &&
    typeof message?.refusal === 'string' &&
    message.refusal !== ''
  ) {
    content = message.refusal;
    finishReason = 'refusal';
  }
  const usage = completion.usage;
  const promptTokens = usage?.prompt_tokens ?? 0;
  const completionTokens = usage?.completion_tokens ?? 0;
  return {
    content,
    toolCalls: (message?.tool_calls ?? []).flatMap(fromApiToolCall),
    usage: {
      promptTokens,
      completionTokens,
      totalTokens: usage?.total_tokens ?? promptTokens + completionTokens,
    },
    model: completion.model || configuredModel,
    finishReason,
  };
}

function fromApiToolCall(call: ChatCompletionMessageToolCall): ToolCall[] {
  if ('function' in call && call.function) {
    return [{ id: call.id, name: call.function.name, arguments: argumentsText(call.function.arguments) }];
  }
  if ('custom' in call && call.custom) {
    return [{ id: call.id, name: call.custom.name, arguments: argumentsText(call.custom.input) }];
  }
  return [];
}

/** Some servers send the arguments as an object rather than JSON text. */
function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}
