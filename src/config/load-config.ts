import { z } from 'zod';
import { ConfigError } from '../errors/index.js';
import { type Environment, readEnvironment } from './read-environment.js';
import { type SandboxConfig, sandboxConfigSchema, sandboxEnvironment } from './sandbox-config.js';

/**
 * Reads the sandbox settings from the environment, naming the variable behind
 * any bad value. The sidecars' image is fixed here, to the operator's: a
 * repository's `sandbox.image` or a `--image` flag replaces `image` later,
 * and the job's image (an official one has no socat) must not run them.
 */
export function loadSandboxConfig(env: Environment): SandboxConfig {
  const config = readEnvironment(sandboxConfigSchema, sandboxEnvironment, env);
  return { ...config, sidecarImage: config.sidecarImage ?? config.image };
}

export function parseSandboxConfig(input: unknown, source = 'the sandbox settings'): SandboxConfig {
  const parsed = sandboxConfigSchema.safeParse(input ?? {});
  if (!parsed.success) throw new ConfigError(source, z.prettifyError(parsed.error));
  return parsed.data;
}
