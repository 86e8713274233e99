/**
 * Prompt sizes are estimated, not counted: tokenizers differ per model and
 * server. Four characters per token is close for English and a little
 * generous for code, so budgets are applied to 90 % of the limit.
 */
const CHARS_PER_TOKEN = 4;
const SAFETY = 0.9;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function charsForTokens(tokens: number): number {
  return Math.floor(tokens * CHARS_PER_TOKEN * SAFETY);
}

/** Cuts text to at most `maxChars`, keeping its start and end and saying how much went. */
export function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars < 80) return text.slice(0, Math.max(0, maxChars));
  const marker = `\n[... ${text.length - maxChars} characters omitted ...]\n`;
  const keep = Math.max(0, maxChars - marker.length);
  const head = Math.ceil(keep * 0.4);
  return `${text.slice(0, head)}${marker}${text.slice(text.length - (keep - head))}`;
}
