import type { ChatMessage } from '../model/language-model.js';
import type { ExecResult } from '../sandbox/sandbox.js';
import type { LoopOutcome } from './events.js';
import { excerptOutput } from './excerpt.js';
import type { DebugTask } from './task.js';
import { charsForTokens, clip } from './tokens.js';

/** One finished attempt as later prompts see it: never its whole output, only an excerpt. */
export interface AttemptRecord {
  attempt: number;
  analysis: string | null;
  diff: string;
  problems: string[] | null;
  result: ExecResult | null;
  decision: { retry: boolean; reason: string } | null;
}

const GENERATE_SYSTEM = `You are selfdebug, fixing a failing command in a software repository.
You get the task, the command that must succeed, and how it fails. You may call the read-only tools
(list_files, read_file, search_text) to look at the repository before answering; read a file before editing it.
Then answer with a JSON object: {"analysis": string, "edits": [{"path", "search", "replace"}]}.
- "search" must be copied exactly from the current file and occur once; "replace" is its new text.
- An empty "search" creates the file (or replaces its whole content) with "replace".
- Fix the cause in the code; do not weaken, skip or delete tests, and do not change the command.
- Keep the change as small as the fix allows.`;

const DECIDE_SYSTEM = `You are selfdebug, deciding whether another attempt at fixing a failing command can succeed.
Answer with a JSON object: {"retry": boolean, "reason": string}.
Say retry=false when the failure cannot be fixed by editing the repository (missing network, credentials,
services or hardware; a broken environment; a task that asks for something impossible), or when attempts repeat
themselves without progress. Otherwise say retry=true and, in the reason, what the next attempt should change.`;

const REFLECT_SYSTEM = `You are selfdebug, writing the final report on an attempt to fix a failing command.
Answer with a JSON object: {"summary", "rootCause", "changes", "confidence": "low"|"medium"|"high", "risks": [string]}.
Be concrete and honest: name files and functions; if it was not fixed, say why and what a person should try next.
When the outcome is "explained", no fix was attempted: diagnose the cause and say how it could be fixed.
This text becomes the pull request description and the final comment, read by the repository's maintainers.`;

/** How a prompt's character budget is shared between its parts (the system prompt comes off first). */
const SHARES = { task: 0.2, diff: 0.1, history: 0.15, failure: 0.25, tools: 0.22 } as const;

export interface PromptBudget {
  /** Characters for the whole prompt, system prompt included. */
  total: number;
  /** Characters each tool result may take, so every tool call of an attempt fits. */
  perToolResult: number;
}

export function promptBudget(tokenBudget: number, maxToolCalls: number): PromptBudget {
  const total = charsForTokens(tokenBudget);
  const available = total - GENERATE_SYSTEM.length;
  return { total, perToolResult: Math.floor((available * SHARES.tools) / Math.max(1, maxToolCalls)) };
}

/** Characters a generate prompt gives the latest failure. */
function failureRoom(budget: PromptBudget): number {
  return Math.floor((budget.total - GENERATE_SYSTEM.length) * SHARES.failure);
}

/**
 * What the latest run's output may take: its room in the generate prompt, less what a note on why
 * nothing ran again may add (see `notRun`), so the prompt never cuts the excerpt a second time
 * (a cut from the middle would land inside the first failure, which the excerpt keeps whole).
 */
export function latestRunRoom(budget: PromptBudget): number {
  const room = failureRoom(budget);
  return room - Math.min(NOTE_ROOM, Math.floor(room / 4));
}

/** Most characters of a note put before the latest run when nothing was run again. */
export const NOTE_ROOM = 1500;

export function generateMessages(input: {
  task: DebugTask;
  timeoutSeconds: number;
  currentDiff: string;
  history: readonly AttemptRecord[];
  latestFailure: string;
  /** The latest run passed (a revision asked for in a review): the changes must keep it passing. */
  latestPassed?: boolean;
  budget: PromptBudget;
}): ChatMessage[] {
  const available = input.budget.total - GENERATE_SYSTEM.length;
  const latestHeading = input.latestPassed
    ? '## Latest run (the command passes now; make the changes asked for and keep it passing)'
    : '## Latest failure';
  const sections = [
    taskSection(input.task, input.timeoutSeconds, available * SHARES.task),
    input.currentDiff
      ? `## Changes made so far (against the original files)\n${clip(input.currentDiff, available * SHARES.diff)}`
      : '',
    input.history.length > 0
      ? `## Earlier attempts\n${summarise(input.history, available * SHARES.history)}`
      : '',
    `${latestHeading}\n${clip(input.latestFailure, failureRoom(input.budget))}`,
  ];
  return [
    { role: 'system', content: GENERATE_SYSTEM },
    { role: 'user', content: sections.filter(Boolean).join('\n\n') },
  ];
}

export function decideMessages(input: {
  task: DebugTask;
  timeoutSeconds: number;
  current: AttemptRecord;
  history: readonly AttemptRecord[];
  budget: PromptBudget;
}): ChatMessage[] {
  const available = input.budget.total - DECIDE_SYSTEM.length;
  const sections = [
    taskSection(input.task, input.timeoutSeconds, available * 0.2),
    input.history.length > 0 ? `## Earlier attempts\n${summarise(input.history, available * 0.15)}` : '',
    `## This attempt (${input.current.attempt})`,
    `Analysis: ${clip(input.current.analysis ?? '(none)', available * 0.1)}`,
    `Diff:\n${clip(input.current.diff || '(no change)', available * 0.15)}`,
    `Result:\n${describeFailure(input.current, available * 0.3)}`,
  ];
  return [
    { role: 'system', content: DECIDE_SYSTEM },
    { role: 'user', content: sections.filter(Boolean).join('\n\n') },
  ];
}

export function reflectMessages(input: {
  task: DebugTask;
  timeoutSeconds: number;
  outcome: LoopOutcome;
  reason: string;
  reproduction: ExecResult | null;
  history: readonly AttemptRecord[];
  finalDiff: string;
  budget: PromptBudget;
}): ChatMessage[] {
  const available = input.budget.total - REFLECT_SYSTEM.length;
  const last = input.history.at(-1);
  const sections = [
    taskSection(input.task, input.timeoutSeconds, available * 0.2),
    `## Outcome\n${input.outcome}: ${clip(input.reason, 500)}`,
    input.reproduction
      ? `## The original failure\n${describeResult(input.reproduction, available * 0.15)}`
      : '',
    input.history.length > 0
      ? `## Attempts\n${summarise(input.history, available * 0.25)}`
      : '## Attempts\nNone.',
    `## Final diff\n${clip(input.finalDiff || '(no change)', available * 0.2)}`,
    last?.result ? `## Final result\n${describeResult(last.result, available * 0.15)}` : '',
  ];
  return [
    { role: 'system', content: REFLECT_SYSTEM },
    { role: 'user', content: sections.filter(Boolean).join('\n\n') },
  ];
}

function taskSection(task: DebugTask, timeoutSeconds: number, maxChars: number): string {
  const setup = task.setupCommands?.length
    ? `\nSetup commands (already run): ${task.setupCommands.join(' && ')}`
    : '';
  return (
    `## Task\n${clip(task.description, maxChars)}\n\n` +
    `## Command that must succeed\n\`${clip(task.command, 1000)}\` (timeout ${timeoutSeconds} s)${setup}`
  );
}

/** The output of a command as a prompt shows it: exit code, reason, and an excerpt that fits. */
export function describeResult(result: ExecResult, maxChars: number): string {
  const header = `exit code ${result.exitCode}${result.reason ? ` (${result.reason})` : ''}, ${result.durationMs} ms`;
  return `${header}\n${excerptOutput(result.output, Math.max(200, Math.floor(maxChars) - header.length - 1))}`;
}

function describeFailure(record: AttemptRecord, maxChars: number): string {
  if (record.problems) return `The edits did not apply:\n${clip(record.problems.join('\n'), maxChars)}`;
  if (record.result) return describeResult(record.result, maxChars);
  return '(not run)';
}

/** Newest attempts matter most: when they do not all fit, the oldest are dropped and counted. */
function summarise(history: readonly AttemptRecord[], maxChars: number): string {
  const minimum = 400;
  const fitting = Math.max(1, Math.min(history.length, Math.floor(maxChars / minimum)));
  const shown = history.slice(-fitting);
  const each = Math.floor(maxChars / shown.length);
  const lines = shown.map((record) => {
    const decision = record.decision
      ? `\nDecision: ${record.decision.retry ? 'retry' : 'stop'} — ${clip(record.decision.reason, each / 8)}`
      : '';
    const head = clip(
      `### Attempt ${record.attempt}\nAnalysis: ${record.analysis ?? '(none)'}\nDiff:\n${record.diff || '(no change)'}`,
      each / 2,
    );
    // The result gets the rest whole: clipping the body from the middle would cut inside its first failure.
    const result = describeFailure(record, each - head.length - decision.length - 10);
    return `${head}\nResult: ${result}${decision}`;
  });
  const omitted = history.length - shown.length;
  return (omitted > 0 ? `(${omitted} earlier attempts omitted)\n` : '') + lines.join('\n\n');
}
