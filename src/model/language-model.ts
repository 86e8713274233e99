/**
 * The LanguageModel port: one chat completion. Adapters: OpenAI-compatible
 * HTTP (src/adapters/openai) and a scripted model for tests and replays.
 * API retries happen inside adapters and never count as loop attempts.
 */

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments exactly as the model wrote them (JSON text, possibly invalid). */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** Why the loop calls the model; adapters log it, scripted models can check it. */
export type ModelPurpose = 'generate' | 'retry-decision' | 'reflect' | 'explain' | 'repair';

export interface ModelRequest {
  purpose: ModelPurpose;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  /** Ask for a JSON answer following this schema (structured output where the server supports it). */
  output?: { name: string; schema: Record<string, unknown> };
  signal?: AbortSignal;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ModelResponse {
  content: string | null;
  toolCalls: ToolCall[];
  usage: TokenUsage;
  /** True when the server sent no usage and the numbers are our estimate (characters / 4). */
  usageEstimated?: boolean;
  /** The model that answered, as the server names it. */
  model: string;
  finishReason: string;
}

/** What the model can hold: the loop sizes its prompts from this. */
export interface ModelWindow {
  contextTokens: number;
  /** Tokens kept for each answer (already fitted into the window). */
  outputTokens: number;
  /** Where contextTokens came from, for logs and `doctor --model`. */
  source: 'config' | 'server' | 'default';
}

export interface LanguageModel {
  /** The configured model name, for transcripts and cost. */
  readonly model: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
  /**
   * The context window, asked once per run. Models that do not implement it
   * (scripted ones) leave the loop's configured budget in place.
   */
  window?(signal?: AbortSignal): Promise<ModelWindow>;
  /**
   * False when tools are switched off or the server refused them: the loop then
   * asks for the structured answer straight away instead of offering tools.
   */
  readonly toolsEnabled?: boolean;
}
