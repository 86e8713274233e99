/**
 * The string methods the excerpt calls on every line and byte, taken once
 * from String.prototype and called through these constant references.
 *
 * Why not `text.charCodeAt(i)`: V8 compiles a method call on a string to its
 * fast inline form only while String.prototype keeps a stable shape, and any
 * `class … extends String` in the process ends that (ioredis defines one, so
 * every App or worker with the Redis queue has it). The excerpt then ran a
 * third slower. A call through a constant reference compiles the same either
 * way (docs/excerpts.md, "Speed").
 */
const prototype = String.prototype;
const charCodeAtOf = prototype.charCodeAt;
const startsWithOf = prototype.startsWith;
const endsWithOf = prototype.endsWith;
const trimOf = prototype.trim;
const trimEndOf = prototype.trimEnd;

export function codeAt(text: string, index: number): number {
  return charCodeAtOf.call(text, index);
}

export function startsWith(text: string, prefix: string, position?: number): boolean {
  return startsWithOf.call(text, prefix, position);
}

export function endsWith(text: string, suffix: string): boolean {
  return endsWithOf.call(text, suffix);
}

export function trim(text: string): string {
  return trimOf.call(text);
}

export function trimEnd(text: string): string {
  return trimEndOf.call(text);
}
