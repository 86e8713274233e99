import type { Logger } from '../util/logger.js';
import type { Redactor } from './redact.js';

/** Fields nested deeper than this are logged as a placeholder: a log line is no place for a deep object. */
const MAX_DEPTH = 6;

/**
 * A job's logger that redacts every message and every string among its
 * fields: logs are shipped to wherever the operator sends them, and a
 * command's output or an error's message can carry a secret there as well
 * as into a comment.
 */
export function redactingLogger(logger: Logger, redactor: Redactor): Logger {
  const wrap =
    (level: keyof Logger) =>
    (fields: object, message: string): void =>
      logger[level](redactFields(fields, redactor, 0) as object, redactor.redact(message));
  return { debug: wrap('debug'), info: wrap('info'), warn: wrap('warn'), error: wrap('error') };
}

function redactFields(value: unknown, redactor: Redactor, depth: number): unknown {
  if (typeof value === 'string') return redactor.redact(value);
  if (value instanceof Error) return redactor.redact(String(value));
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return '[nested]';
  if (Array.isArray(value)) return value.map((item) => redactFields(item, redactor, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, redactFields(item, redactor, depth + 1)]),
  );
}
