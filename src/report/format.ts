import { modelEnvironment } from '../config/model-config.js';
import type { TokenUsage } from '../model/language-model.js';

/**
 * Numbers, durations and short lines as every report writes them. Fixed
 * formats (no locale from the machine), so bodies and snapshots are the
 * same everywhere.
 */
export function formatNumber(value: number): string {
  const [whole = '0', fraction] = String(Math.abs(value)).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',');
  return `${value < 0 ? '-' : ''}${grouped}${fraction ? `.${fraction}` : ''}`;
}

export function plural(count: number, word: string, pluralWord = `${word}s`): string {
  return `${formatNumber(count)} ${count === 1 ? word : pluralWord}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) {
    const rounded = Math.round(seconds * 10) / 10;
    return rounded < 60 ? `${rounded} s` : '1 min';
  }
  const totalSeconds = Math.round(seconds);
  const minutes = Math.floor(totalSeconds / 60);
  if (minutes < 60) {
    const rest = totalSeconds % 60;
    return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
  }
  const hours = Math.floor(minutes / 60);
  const restMinutes = minutes % 60;
  return restMinutes === 0 ? `${hours} h` : `${hours} h ${restMinutes} min`;
}

/** Dollars with four decimals below $1, where model costs usually are; two above. */
export function formatCost(usd: number): string {
  if (usd > 0 && usd < 0.0001) return '<$0.0001';
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/** What a report says instead of a price when the operator set none (a cost of 0 means unknown). */
const UNKNOWN_COST =
  `cost unknown: set \`${modelEnvironment.inputPricePerMillion[0]}\` and ` +
  `\`${modelEnvironment.outputPricePerMillion[0]}\` (USD per million tokens) to see it`;

/** The cost beside a token count: dollars when prices are set, else how to get them; null without tokens. */
export function costFact(usage: TokenUsage, costUsd: number): string | null {
  if (costUsd > 0) return formatCost(costUsd);
  return usage.totalTokens > 0 ? UNKNOWN_COST : null;
}

export function formatUsage(usage: TokenUsage): string {
  return `${formatNumber(usage.promptTokens)} prompt + ${formatNumber(usage.completionTokens)} completion tokens`;
}

/** Whitespace collapsed to single spaces and the text clipped with an ellipsis. */
export function oneLine(text: string, maxChars: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return clip(line, maxChars);
}

/** The first sentence (or line) of a text, for titles and lists. */
export function firstSentence(text: string, maxChars: number): string {
  const line = oneLine(text.split(/\n\s*\n/)[0] ?? '', Math.max(maxChars * 4, 400));
  const end = /[.!?](?=\s|$)/.exec(line);
  return clip(end ? line.slice(0, end.index + 1) : line, maxChars);
}

/** Cuts at a character boundary (never inside a surrogate pair) and marks the cut with `…`. */
export function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = Math.max(0, maxChars - 1);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end).trimEnd()}…`;
}
