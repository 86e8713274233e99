import type { TokenUsage, ToolCall } from '../model/language-model.js';
import type { PreparationReport } from '../sandbox/environment.js';
import type { ExecResult } from '../sandbox/sandbox.js';
import type { FixProposal, Reflection } from './schemas.js';
import type { DebugTask, LoopLimits } from './task.js';
import type { TestEdits, TestFinding } from './test-guard/findings.js';

export type LoopOutcome =
  | 'fixed'
  | 'explained'
  | 'not-fixed'
  | 'declined'
  | 'flaky'
  | 'cannot-reproduce'
  | 'budget-exhausted'
  | 'cancelled'
  | 'environment'
  | 'error';

export type ReproductionStatus = 'failing' | 'flaky' | 'passing';

/** Usage and cost so far, attached to every model response and to the end of the run. */
export interface Spend {
  usage: TokenUsage;
  costUsd: number;
}

/**
 * Every step of a run, in order. The list of events is the full transcript:
 * report/ renders it, tests assert on it, nothing is left out of it.
 */
export type LoopEvent =
  | { type: 'started'; task: DebugTask; limits: LoopLimits; model: string }
  | { type: 'environment-prepared'; preparation: PreparationReport }
  | { type: 'setup-ran'; command: string; result: ExecResult }
  | { type: 'reproduced'; status: ReproductionStatus; runs: ExecResult[] }
  | { type: 'attempt-started'; attempt: number; maxAttempts: number }
  | {
      type: 'model-responded';
      attempt: number | null;
      purpose: string;
      content: string | null;
      toolCalls: ToolCall[];
      usage: TokenUsage;
      costUsd: number;
      promptTokensEstimate: number;
      durationMs: number;
      total: Spend;
    }
  | { type: 'tool-called'; attempt: number; name: string; arguments: string; result: string; ok: boolean }
  | { type: 'proposal'; attempt: number; proposal: FixProposal }
  | { type: 'edits-applied'; attempt: number; paths: string[]; diff: string }
  | {
      type: 'edits-rejected';
      attempt: number;
      problems: string[];
      /** The test guard's findings when it refused edits that would apply (tests: protect); absent otherwise. */
      guardFindings?: TestFinding[];
    }
  /**
   * An answer that stayed unusable after its repair round. It never ends the
   * job: `consequence` says what the loop did instead (a failed attempt, a
   * fallback decision, no reflection). `attempt` is null for the reflection.
   */
  | {
      type: 'answer-rejected';
      attempt: number | null;
      purpose: 'generate' | 'retry-decision' | 'reflect';
      problem: string;
      consequence: string;
      /** What a person can do if it repeats (the model is not shown this). */
      advice: string;
    }
  | { type: 'executed'; attempt: number; command: string; result: ExecResult }
  | { type: 'retry-decided'; attempt: number; retry: boolean; reason: string }
  | { type: 'reflected'; reflection: Reflection }
  | ({ type: 'finished' } & LoopSummary);

/** How a run ended, as the `finished` event tells it and `runLoop` returns it. */
export interface LoopSummary {
  outcome: LoopOutcome;
  reason: string;
  attempts: number;
  diff: string;
  changedFiles: string[];
  /** The test files the fix touches and what the test guard found in them; absent when it touches none. */
  testEdits?: TestEdits;
  total: Spend;
  durationMs: number;
}

/**
 * Receives events as they happen; awaited, so a reporter can post before
 * the loop goes on. What it resolves to is the reporter's, not the loop's
 * (the App's report resolves to its view).
 */
export type EventSink = (event: LoopEvent) => unknown;
