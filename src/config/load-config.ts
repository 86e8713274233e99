import { z } from 'zod';
import { ConfigError } from '../errors/config-errors.js';
import { type SandboxConfig, sandboxConfigSchema, sandboxEnvironment } from './sandbox-config.js';

type Environment = Record<string, string | undefined>;

/**
 * Reads the sandbox settings from the environment. Numbers and booleans are
 * parsed strictly ("1e3", "abc" or "" are errors, never NaN), and a bad value
 * is reported with the variable's name.
 */
export function loadSandboxConfig(env: Environment = process.env): SandboxConfig {
  const raw: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, variable] of Object.entries(sandboxEnvironment)) {
    const text = env[variable];
    if (text === undefined || text === '') continue;
    const value = parseScalar(text, sandboxConfigSchema.shape[key as keyof SandboxConfig]);
    if (value === undefined) problems.push(`✖ ${variable}: "${text}" is not a valid value`);
    else raw[key] = value;
  }
  if (problems.length > 0) throw new ConfigError('the environment', problems.join('\n'));
  const parsed = sandboxConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError('the environment', renameToVariables(z.prettifyError(parsed.error)));
  }
  return parsed.data;
}

export function parseSandboxConfig(input: unknown, source = 'the sandbox settings'): SandboxConfig {
  const parsed = sandboxConfigSchema.safeParse(input ?? {});
  if (!parsed.success) throw new ConfigError(source, z.prettifyError(parsed.error));
  return parsed.data;
}

function parseScalar(text: string, schema: z.ZodType): unknown {
  const kind = innerType(schema);
  if (kind === 'number' || kind === 'int') {
    return /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : undefined;
  }
  if (kind === 'boolean') {
    const lowered = text.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(lowered)) return true;
    if (['0', 'false', 'no', 'off'].includes(lowered)) return false;
    return undefined;
  }
  return text;
}

function innerType(schema: z.ZodType): string {
  let current: z.ZodType = schema;
  while (current instanceof z.ZodDefault) current = current.unwrap() as z.ZodType;
  if (current instanceof z.ZodNumber) return current.format?.includes('int') ? 'int' : 'number';
  if (current instanceof z.ZodBoolean) return 'boolean';
  return 'string';
}

function renameToVariables(message: string): string {
  let renamed = message;
  for (const [key, variable] of Object.entries(sandboxEnvironment)) {
    renamed = renamed.replaceAll(`at ${key}`, `at ${variable}`);
  }
  return renamed;
}
