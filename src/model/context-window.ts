/**
 * How a model's context window is split between the prompt and the answer.
 * Shared by the adapter (which must not ask for more output than fits, or
 * vLLM refuses the request) and the loop (which sizes its prompts).
 */

/** What a server that does not report its window is assumed to have; the loop's old fixed budget. */
export const DEFAULT_CONTEXT_TOKENS = 16_384;

/** The smallest window selfdebug can work in: a task, a failure excerpt and a fix must fit. */
export const MINIMUM_CONTEXT_TOKENS = 4096;

/**
 * Tokens kept for the answer: the configured maximum, but never more than a
 * quarter of the window, so a 4k model still has room for the prompt.
 */
export function outputAllowance(contextTokens: number, maxOutputTokens: number): number {
  return Math.max(256, Math.min(maxOutputTokens, Math.floor(contextTokens / 4)));
}

/**
 * The loop's prompt budget for a window: what the answer leaves, minus 10 %
 * because our token estimate (characters / 4) undercounts code and other
 * languages, and the chat template adds tokens of its own.
 */
export function promptTokenBudgetFor(contextTokens: number, maxOutputTokens: number): number {
  const left = contextTokens - outputAllowance(contextTokens, maxOutputTokens);
  return Math.max(1000, Math.floor(left - contextTokens * 0.1));
}
