import type { LoopLimitsInput } from '../loop/task.js';
import type { ModelConfigInput } from './model-config.js';
import type { RepoConfig } from './repo-config-schema.js';
import type { SandboxConfigInput } from './sandbox-config.js';

/*
 * The only place where the file's snake_case keys become the camelCase
 * settings of the sandbox, the model and the loop. Each mapper returns only
 * what the repository set, so the operator's values stand for the rest.
 */

/**
 * What the webhook handlers need (src/app's HandlerRepoConfig has the same
 * shape). Declared here rather than imported, so config/ never imports the
 * app/ that reads it.
 */
export interface RepoHandlerConfig {
  allowedUsers: readonly string[];
  mentions: boolean;
  reviews: boolean;
  workflowRuns: {
    enabled: boolean;
    workflows: readonly string[];
    branches: readonly string[];
    maxRounds: number;
  };
}

export function handlerConfig(config: RepoConfig): RepoHandlerConfig {
  const { workflow_runs: runs } = config.triggers;
  return {
    allowedUsers: [...config.allowed_users],
    mentions: config.triggers.mentions,
    reviews: config.triggers.reviews,
    workflowRuns: {
      enabled: runs.enabled,
      workflows: [...runs.workflows],
      branches: [...runs.branches],
      maxRounds: runs.max_rounds,
    },
  };
}

/** Overrides for the operator's sandbox settings (apply operator ceilings first). */
export function sandboxOverrides(config: RepoConfig): Partial<SandboxConfigInput> {
  const { sandbox } = config;
  return definedOnly({
    image: sandbox.image,
    memoryMb: sandbox.memory_mb,
    workspaceMb: sandbox.workspace_mb,
    cpus: sandbox.cpus,
    pidsLimit: sandbox.pids_limit,
    commandTimeoutSeconds: sandbox.timeout_seconds,
    network: sandbox.network,
  });
}

/** Overrides for the operator's model settings. */
export function modelOverrides(config: RepoConfig): Partial<ModelConfigInput> {
  const { model } = config;
  return definedOnly({
    model: model.name,
    baseUrl: model.base_url,
    temperature: model.temperature,
    contextTokens: model.context_tokens,
    maxOutputTokens: model.max_output_tokens,
    structuredOutput: model.structured_output,
    tools: model.tools,
  });
}

/** How the job reports: `single` keeps every attempt's transcript in the status comment. */
export function reportSettings(config: RepoConfig): { comments: 'per-attempt' | 'single' } {
  return { comments: config.report.comments };
}

/** A request's own options (e.g. `@selfdebug fix --attempts 3`); JobOptions fits. */
export interface LimitOptions {
  maxAttempts?: number;
  timeoutSeconds?: number;
}

/**
 * The loop's limits: the request's options win over the file, which wins over
 * the loop's defaults. The run timeout is the sandbox's too, as in the CLI, so
 * one number governs how long a single run may take.
 */
export function loopLimitsFrom(config: RepoConfig, options: LimitOptions = {}): LoopLimitsInput {
  const { budget } = config;
  return definedOnly({
    maxAttempts: options.maxAttempts ?? config.max_attempts,
    commandTimeoutSeconds: options.timeoutSeconds ?? config.sandbox.timeout_seconds,
    maxTotalTokens: budget.max_tokens,
    maxCostUsd: budget.max_cost_usd,
    maxDurationSeconds: budget.max_minutes * 60,
    tests: config.tests,
    protectedPaths: config.protected_paths,
  });
}

/** Drops undefined values so spreading the result over defaults keeps the defaults. */
function definedOnly<Value extends Record<string, unknown>>(value: Value): Partial<Value> {
  return Object.fromEntries(
    Object.entries(value).filter(([, entry]) => entry !== undefined),
  ) as Partial<Value>;
}

/** How long to follow a fix's CI, in milliseconds; null when `ci_verdict: off` says never to wait. */
export function ciVerdictWaitMs(config: RepoConfig): number | null {
  const setting = config.ci_verdict;
  return setting === 'off' ? null : setting.wait_minutes * 60_000;
}
