import { z } from 'zod';
import { ConfigError } from '../errors/index.js';

export type Environment = Record<string, string | undefined>;

/**
 * Reads an object schema's settings from environment variables (for each
 * key, the first variable that is set wins) and validates them. Numbers and
 * booleans are parsed strictly — "1e3", "abc" or "maybe" are errors, never
 * NaN — and every problem names the variable it came from. Values are not
 * echoed for keys listed in `secret`.
 */
export function readEnvironment<Shape extends z.ZodRawShape>(
  schema: z.ZodObject<Shape>,
  variables: { [Key in keyof Shape]: readonly string[] },
  env: Environment,
  secret: readonly (keyof Shape)[] = [],
): z.infer<z.ZodObject<Shape>> {
  const raw: Record<string, unknown> = {};
  const usedVariable: Record<string, string> = {};
  const problems: string[] = [];
  for (const [key, names] of Object.entries(variables) as [string, readonly string[]][]) {
    const variable = names.find((name) => env[name] !== undefined && env[name] !== '');
    if (variable === undefined) continue;
    usedVariable[key] = variable;
    const text = env[variable]!;
    const value = parseScalar(text, schema.shape[key] as z.ZodType);
    const shown = secret.includes(key) ? 'the value' : `"${text}"`;
    if (value === undefined)
      problems.push(`✖ ${variable}: ${shown} is not a ${kindOf(schema.shape[key] as z.ZodType)}`);
    else raw[key] = value;
  }
  if (problems.length > 0) throw new ConfigError('the environment', problems.join('\n'));
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const details = parsed.error.issues.map((issue) => {
      const key = String(issue.path[0] ?? '');
      return `✖ ${issue.message}\n  → at ${usedVariable[key] ?? key}`;
    });
    throw new ConfigError('the environment', details.join('\n'));
  }
  return parsed.data;
}

function parseScalar(text: string, schema: z.ZodType): unknown {
  const kind = kindOf(schema);
  if (kind === 'number') return /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : undefined;
  if (kind === 'boolean') {
    const lowered = text.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(lowered)) return true;
    if (['0', 'false', 'no', 'off'].includes(lowered)) return false;
    return undefined;
  }
  return text;
}

function kindOf(schema: z.ZodType): 'number' | 'boolean' | 'string' {
  let current: z.ZodType = schema;
  while (current instanceof z.ZodDefault || current instanceof z.ZodOptional)
    current = current.unwrap() as z.ZodType;
  if (current instanceof z.ZodNumber) return 'number';
  if (current instanceof z.ZodBoolean) return 'boolean';
  return 'string';
}
