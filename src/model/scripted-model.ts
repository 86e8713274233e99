import type { LanguageModel, ModelRequest, ModelResponse, TokenUsage, ToolCall } from './language-model.js';

/** One scripted answer: a response (fields default sensibly), an error to throw, or a function of the request. */
export type ScriptedAnswer =
  | (Partial<Omit<ModelResponse, 'toolCalls'>> & {
      toolCalls?: (Omit<ToolCall, 'id'> & { id?: string })[];
      delayMs?: number;
    })
  | Error
  | ((request: ModelRequest) => ScriptedAnswer);

/**
 * A LanguageModel that answers from a list, one entry per call, and keeps
 * every request it got (messages copied as they were at the time) for
 * assertions. Tests need no HTTP; demos replay recorded sessions with it.
 */
export class ScriptedModel implements LanguageModel {
  readonly calls: ModelRequest[] = [];
  private readonly answers: ScriptedAnswer[];

  constructor(
    answers: ScriptedAnswer[],
    readonly model = 'scripted-model',
  ) {
    this.answers = [...answers];
  }

  /** An answer whose content is `value` as JSON, the way a structured-output model replies. */
  static json(value: unknown, usage?: Partial<TokenUsage>): ScriptedAnswer {
    return { content: JSON.stringify(value), ...(usage ? { usage: fullUsage(usage) } : {}) };
  }

  static toolCall(name: string, args: Record<string, unknown>): ScriptedAnswer {
    return { content: null, toolCalls: [{ name, arguments: JSON.stringify(args) }] };
  }

  get remaining(): number {
    return this.answers.length;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    request.signal?.throwIfAborted();
    this.calls.push({ ...request, messages: structuredClone(request.messages), signal: undefined });
    let answer = this.answers.shift();
    if (answer === undefined) {
      throw new Error(`ScriptedModel: no answer scripted for call ${this.calls.length} (${request.purpose})`);
    }
    while (typeof answer === 'function') answer = answer(request);
    if (answer instanceof Error) throw answer;
    if (answer.delayMs) await delay(answer.delayMs, request.signal);
    const content = answer.content ?? null;
    const promptTokens = Math.ceil(JSON.stringify(request.messages).length / 4);
    const completionTokens = Math.ceil((content ?? '').length / 4) + 1;
    return {
      content,
      toolCalls: (answer.toolCalls ?? []).map((call, index) => ({
        id: call.id ?? `call_${this.calls.length}_${index}`,
        name: call.name,
        arguments: call.arguments,
      })),
      usage: answer.usage ?? { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
      model: answer.model ?? this.model,
      finishReason: answer.finishReason ?? ((answer.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop'),
    };
  }
}

function fullUsage(usage: Partial<TokenUsage>): TokenUsage {
  const promptTokens = usage.promptTokens ?? 0;
  const completionTokens = usage.completionTokens ?? 0;
  return {
    promptTokens,
    completionTokens,
    totalTokens: usage.totalTokens ?? promptTokens + completionTokens,
  };
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
