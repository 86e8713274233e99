import type { ModelRequest, ModelResponse } from '../../model/language-model.js';
import { toolCallsFromText } from './text-tool-calls.js';

/** Tool calls written as text become real ones; a server without usage gets an estimate. */
export function finishAnswer(
  answer: ModelResponse & { sawUsage: boolean },
  request: ModelRequest,
  offered: string[],
): ModelResponse {
  const { sawUsage, ...response } = answer;
  if (response.toolCalls.length === 0 && offered.length > 0) {
    const parsed = toolCallsFromText(response.content, offered, 'call_text');
    if (parsed.toolCalls.length > 0) {
      response.toolCalls = parsed.toolCalls;
      response.content = parsed.content;
      response.finishReason = 'tool_calls';
    }
  }
  if (!sawUsage || response.usage.totalTokens === 0) {
    const promptTokens = estimate(JSON.stringify(request.messages));
    const completionTokens = estimate(
      (response.content ?? '') + response.toolCalls.map((call) => call.name + call.arguments).join(''),
    );
    response.usage = { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
    response.usageEstimated = true;
  }
  return response;
}

/** About four characters a token: enough for a budget when the server reports no usage. */
function estimate(text: string): number {
  return Math.ceil(text.length / 4);
}
