import type { LoopEvent } from '../loop/events.js';
import type { FixProposal } from '../loop/schemas.js';
import type { TestFinding } from '../loop/test-guard/findings.js';
import type { TokenUsage, ToolCall } from '../model/language-model.js';
import type { ExecResult } from '../sandbox/sandbox.js';

/**
 * One attempt as the reports show it, and the events that change it alone
 * (job-view.ts folds the rest of a job's events).
 */

export interface ModelCall {
  /** generate, retry-decision, reflect, explain or repair (the loop's ModelPurpose, as a string in events). */
  purpose: string;
  content: string | null;
  toolCalls: ToolCall[];
  usage: TokenUsage;
  costUsd: number;
  durationMs: number;
}

export interface ToolCallRecord {
  name: string;
  arguments: string;
  result: string;
  ok: boolean;
}

export interface CommandRun {
  command: string;
  result: ExecResult;
}

/** An answer that stayed unusable after its repair round, and what the loop did instead. */
export interface RejectedAnswer {
  purpose: string;
  problem: string;
  consequence: string;
  advice: string;
}

export interface AttemptView {
  number: number;
  maxAttempts: number;
  modelCalls: ModelCall[];
  toolCalls: ToolCallRecord[];
  proposal: FixProposal | null;
  applied: { paths: string[]; diff: string } | null;
  /** Why the edits were not applied; nothing was run then. */
  rejected: string[] | null;
  /** What the test guard found when it refused the edits (tests: protect); `rejected` holds what the model read. */
  guardFindings: TestFinding[] | null;
  run: CommandRun | null;
  decision: { retry: boolean; reason: string } | null;
  /** Answers of this attempt that could not be used (the fix proposal, the retry decision). */
  rejectedAnswers: RejectedAnswer[];
  usage: TokenUsage;
  costUsd: number;
}

export const NO_USAGE: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

export function newAttempt(number: number, maxAttempts: number): AttemptView {
  return {
    number,
    maxAttempts,
    modelCalls: [],
    toolCalls: [],
    proposal: null,
    applied: null,
    rejected: null,
    guardFindings: null,
    run: null,
    decision: null,
    rejectedAnswers: [],
    usage: NO_USAGE,
    costUsd: 0,
  };
}

/** The loop's events about one attempt's own steps: a tool call, the proposal, its edits, its run, the decision. */
export type AttemptEvent = Extract<
  LoopEvent,
  { type: 'tool-called' | 'proposal' | 'edits-applied' | 'edits-rejected' | 'executed' | 'retry-decided' }
>;

/** One such event more on `attempt`; returns a new attempt and leaves the old one untouched. */
export function reduceAttempt(attempt: AttemptView, event: AttemptEvent): AttemptView {
  switch (event.type) {
    case 'tool-called': {
      const { name, arguments: text, result, ok } = event;
      return { ...attempt, toolCalls: [...attempt.toolCalls, { name, arguments: text, result, ok }] };
    }
    case 'proposal':
      return { ...attempt, proposal: event.proposal };
    case 'edits-applied':
      return { ...attempt, applied: { paths: event.paths, diff: event.diff } };
    case 'edits-rejected':
      return { ...attempt, rejected: event.problems, guardFindings: event.guardFindings ?? null };
    case 'executed':
      return { ...attempt, run: { command: event.command, result: event.result } };
    case 'retry-decided':
      return { ...attempt, decision: { retry: event.retry, reason: event.reason } };
  }
}

export function addUsage(left: TokenUsage, right: TokenUsage): TokenUsage {
  return {
    promptTokens: left.promptTokens + right.promptTokens,
    completionTokens: left.completionTokens + right.completionTokens,
    totalTokens: left.totalTokens + right.totalTokens,
  };
}
