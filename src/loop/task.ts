import { z } from 'zod';
import { promptTokenBudgetFor } from '../model/context-window.js';
import type { ModelWindow } from '../model/language-model.js';
import { TEST_POLICIES } from './test-guard/findings.js';

/** What the loop is asked to fix. */
export interface DebugTask {
  /** What is wrong, in the words of whoever asked: an issue's text, a CI failure excerpt, review comments. */
  description: string;
  /** The command whose success (exit code 0) proves the fix. */
  command: string;
  /** Commands run once before reproducing (installing dependencies and the like). */
  setupCommands?: string[];
}

/**
 * The loop's own time limit per run of the command, in seconds, when no one
 * names one: the App's jobs run with it unless the mention or the
 * repository says otherwise (docs/settings-precedence.md); the other doors
 * take the sandbox's, whose default is the operator's.
 */
export const DEFAULT_COMMAND_TIMEOUT_SECONDS = 300;

export const loopLimitsSchema = z.object({
  maxAttempts: z.int().min(1).max(20).default(5),
  /** Extra runs when the first reproduction passes, to tell flaky from cannot-reproduce. */
  reproduceRuns: z.int().min(0).max(10).default(2),
  commandTimeoutSeconds: z.number().positive().max(86_400).default(DEFAULT_COMMAND_TIMEOUT_SECONDS),
  maxToolCallsPerAttempt: z.int().min(0).max(50).default(10),
  /**
   * Upper bound for any single prompt, in estimated tokens, for models that do
   * not report their window (scripted ones); a real model's window replaces it
   * through promptTokenBudgetForWindow.
   */
  promptTokenBudget: z.int().min(2000).max(1_000_000).default(16_000),
  /** Per-job budgets; 0 means no limit. */
  maxTotalTokens: z.int().min(0).default(0),
  maxCostUsd: z.number().min(0).default(0),
  maxDurationSeconds: z.number().min(0).default(0),
  /**
   * What an attempt may do to the tests and to what judges them (docs/test-policy.md): `protect` rejects
   * the attempt, `flag` lets it through and lists it in the pull request, `allow` does not look.
   */
  tests: z.enum(TEST_POLICIES).default('protect'),
  /** Globs of further files an attempt may not change (or, under `flag`, that are listed when it does). */
  protectedPaths: z.array(z.string().min(1)).default([]),
});

export type LoopLimits = z.infer<typeof loopLimitsSchema>;
export type LoopLimitsInput = z.input<typeof loopLimitsSchema>;

/** USD per million tokens; zero when unknown, which makes every cost zero rather than a guess. */
export interface ModelPrices {
  inputPerMillion: number;
  outputPerMillion: number;
}

export const UNKNOWN_PRICES: ModelPrices = { inputPerMillion: 0, outputPerMillion: 0 };

/**
 * The prompt budget a model's window allows: the window minus the answer's
 * allowance and a safety margin (src/model/context-window.ts), so a prompt
 * plus its answer always fits, even in a 4k model.
 */
export function promptTokenBudgetForWindow(window: ModelWindow): number {
  return promptTokenBudgetFor(window.contextTokens, window.outputTokens);
}
