import { z } from 'zod';
import { ConfigError } from '../errors/config-errors.js';
import { type Environment, readEnvironment } from './read-environment.js';
import { type SandboxConfig, sandboxConfigSchema, sandboxEnvironment } from './sandbox-config.js';

/** Reads the sandbox settings from the environment, naming the variable behind any bad value. */
export function loadSandboxConfig(env: Environment): SandboxConfig {
  return readEnvironment(sandboxConfigSchema, sandboxEnvironment, env);
}

export function parseSandboxConfig(input: unknown, source = 'the sandbox settings'): SandboxConfig {
  const parsed = sandboxConfigSchema.safeParse(input ?? {});
  if (!parsed.success) throw new ConfigError(source, z.prettifyError(parsed.error));
  return parsed.data;
}
