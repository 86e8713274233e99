import { z } from 'zod';
import { ConfigError } from '../errors/index.js';
import { type Environment, readEnvironment } from './read-environment.js';

/**
 * The operator's settings for the App as a whole. Sandbox and model settings
 * live in sandbox-config.ts and model-config.ts; what is here is the App's
 * identity, its queue, how much it runs at once, and the ceilings that no
 * repository's `.github/selfdebug.yml` may go past.
 */
export const appConfigSchema = z.object({
  /** The name people mention (`@selfdebug fix`): the App's slug. */
  handle: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]*$/, 'must be the App\'s slug without "@", e.g. "selfdebug"')
    .default('selfdebug'),
  /** memory loses queued jobs on restart; sqlite survives restarts of one process; redis serves several. */
  queue: z.enum(['memory', 'sqlite', 'redis']).default('sqlite'),
  redisUrl: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
  /** Jobs run at once by one worker process. */
  concurrency: z.int().min(1).max(32).default(2),
  /** Containers alive at once on this host, counting setup and reproduction runs. */
  maxContainers: z.int().min(1).max(256).default(4),
  /** Ceiling for a repository's `sandbox.memory_mb`. */
  maxMemoryMb: z.int().min(16).max(1_048_576).default(4096),
  /** Ceiling for a repository's `sandbox.workspace_mb` (held in memory: see docs/sandbox.md). */
  maxWorkspaceMb: z.int().min(16).max(1_048_576).default(8192),
  /**
   * Hosts (globs) a repository's `sandbox.allowed_hosts` may add to setup's
   * allowlist. Private, loopback and link-local addresses stay refused
   * whatever a repository lists; only the operator's trusted hosts reach them.
   */
  repoEgressCeiling: z
    .preprocess(
      (value) => (typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : value),
      z.array(z.string().min(1)),
    )
    .default(['*']),
  /**
   * Whether a failed run without `setup` in its repository's file takes its
   * image, setup steps and services from the failing workflow job. Off for
   * an App whose engine cannot reach the registries those steps need.
   */
  deriveEnvironment: z.boolean().default(true),
  /** Whether a repository may choose `sandbox.network: host`; off because host networking reaches the App's own network. */
  allowHostNetwork: z.boolean().default(false),
  /**
   * Whether a repository may choose `model.base_url`. Off because the App's
   * API key goes wherever that URL points, so any repository could collect it.
   */
  allowRepoModelUrl: z.boolean().default(false),
  /**
   * Whether git may clone and push over plain http to 127.0.0.1 (a GitHub
   * stand-in or a test instance on this machine). Never to another host.
   */
  gitLoopbackHttp: z.boolean().default(false),
  /**
   * What one installation's jobs may cost (USD) per `costPeriod`; unset, no
   * ceiling. Past it, new jobs are refused with a comment and nothing runs.
   */
  costCeilingUsd: z.number().positive().optional(),
  /** The ceiling's period, in UTC: a day, a week from Monday, or a calendar month. */
  costPeriod: z.enum(['day', 'week', 'month']).default('month'),
  /** Who a refused job's comment tells people to ask (a team, a person, a link). */
  costContact: z.string().trim().min(1).default('the operator of this selfdebug App'),
  /** Opens the jobs page (`/jobs`); unset, the page is off. Long enough not to be guessed. */
  operatorToken: z
    .string()
    .min(24, 'must be at least 24 characters (e.g. `openssl rand -hex 24`)')
    .optional(),
  commitName: z.string().trim().min(1).default('selfdebug[bot]'),
  commitEmail: z
    .string()
    .regex(/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/, 'must be an e-mail address')
    .default('selfdebug[bot]@users.noreply.github.com'),
});

export type AppConfig = z.infer<typeof appConfigSchema>;

/** Environment variable for each setting; unset or empty variables keep the default. */
export const appEnvironment = {
  handle: ['SELFDEBUG_HANDLE'],
  queue: ['SELFDEBUG_QUEUE'],
  redisUrl: ['REDIS_URL'],
  concurrency: ['SELFDEBUG_CONCURRENCY'],
  maxContainers: ['SELFDEBUG_MAX_CONTAINERS'],
  maxMemoryMb: ['SELFDEBUG_MAX_MEMORY_MB'],
  maxWorkspaceMb: ['SELFDEBUG_MAX_WORKSPACE_MB'],
  allowHostNetwork: ['SELFDEBUG_ALLOW_HOST_NETWORK'],
  repoEgressCeiling: ['SELFDEBUG_REPO_EGRESS_CEILING'],
  deriveEnvironment: ['SELFDEBUG_DERIVE_ENVIRONMENT'],
  allowRepoModelUrl: ['SELFDEBUG_ALLOW_REPO_MODEL_URL'],
  gitLoopbackHttp: ['SELFDEBUG_GIT_LOOPBACK_HTTP'],
  costCeilingUsd: ['SELFDEBUG_COST_CEILING_USD'],
  costPeriod: ['SELFDEBUG_COST_PERIOD'],
  costContact: ['SELFDEBUG_COST_CONTACT'],
  operatorToken: ['SELFDEBUG_OPERATOR_TOKEN'],
  commitName: ['SELFDEBUG_COMMIT_NAME'],
  commitEmail: ['SELFDEBUG_COMMIT_EMAIL'],
} as const satisfies Record<keyof AppConfig, readonly string[]>;

/**
 * Reads the App's settings from the environment. Every problem names the
 * variable behind it; REDIS_URL and the operator token are never echoed.
 */
export function loadAppConfig(env: Environment): AppConfig {
  const config = readEnvironment(appConfigSchema, appEnvironment, env, ['redisUrl', 'operatorToken']);
  // Checked here rather than in the schema so the message can name REDIS_URL even though it is unset.
  if (config.queue === 'redis' && config.redisUrl === undefined) {
    throw new ConfigError(
      'the environment',
      '✖ REDIS_URL is required when SELFDEBUG_QUEUE=redis\n  → at REDIS_URL (e.g. redis://127.0.0.1:6379)',
    );
  }
  return config;
}
