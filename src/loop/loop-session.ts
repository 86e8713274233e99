import { SelfdebugError } from '../errors/index.js';
import type { LanguageModel, ModelPurpose, ModelResponse } from '../model/language-model.js';
import type { ExecResult, Sandbox } from '../sandbox/sandbox.js';
import { type Clock, realClock } from './clock.js';
import type { EventSink, LoopEvent, LoopOutcome } from './events.js';
import { type AttemptRecord, type PromptBudget, promptBudget } from './prompts.js';
import { SpendMeter } from './spend.js';
import { completeStructured, type StructuredCall } from './structured-call.js';
import {
  type DebugTask,
  type LoopLimits,
  type ModelPrices,
  promptTokenBudgetForWindow,
  UNKNOWN_PRICES,
} from './task.js';
import { WorkspaceEditor } from './workspace-editor.js';
import { WorkspaceTools } from './workspace-tools.js';

/** How the loop works: a review asks for changes to a fix that may already pass; `explain` changes nothing. */
export type LoopMode = 'fix' | 'explain' | 'revise';

export interface LoopInput {
  task: DebugTask;
  limits: LoopLimits;
  model: LanguageModel;
  sandbox: Sandbox;
  prices?: ModelPrices;
  emit?: EventSink;
  signal?: AbortSignal;
  /** Measures the time budget and durations; the real clock unless a test brings its own. */
  clock?: Clock;
  /**
   * `explain` reproduces and reflects without attempting a fix (no edits, no PR).
   * `revise` makes changes someone asked for (a review of the App's own fix):
   * the command may already pass, and must pass after the changes.
   */
  mode?: LoopMode;
}

/** How a run ended, before the reflection. */
export interface Ending {
  outcome: LoopOutcome;
  reason: string;
}

/** Ends the attempts early; caught by the loop, never seen outside it. */
export class StopRun extends Error {
  constructor(
    readonly outcome: LoopOutcome,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** The parts of a structured call the session fills in itself. */
export type ModelQuestion<T> = Omit<StructuredCall<T>, 'model' | 'signal' | 'clock' | 'onResponse'>;

/**
 * What every phase of one run shares: its ports (model, sandbox, event sink,
 * clock), the transcript, the spend and the attempt history. Every model call
 * and every command goes through here, so each is recorded the same way.
 */
export class LoopSession {
  readonly spend: SpendMeter;
  readonly editor: WorkspaceEditor;
  readonly tools: WorkspaceTools;
  readonly clock: Clock;
  private readonly transcript: LoopEvent[] = [];
  private readonly records: AttemptRecord[] = [];
  private promptBudget: PromptBudget;
  /** The attempt under way, 0 before the first: model responses are filed under it. */
  private attempt = 0;
  /** Attempts that got past the budget check: what the result reports. */
  private started = 0;
  private readonly startedAt: number;

  constructor(readonly input: LoopInput) {
    this.clock = input.clock ?? realClock;
    this.startedAt = this.clock.now();
    this.spend = new SpendMeter(input.prices ?? UNKNOWN_PRICES, input.limits);
    this.editor = new WorkspaceEditor(input.sandbox);
    this.tools = new WorkspaceTools(input.sandbox, input.signal);
    this.promptBudget = promptBudget(input.limits.promptTokenBudget, input.limits.maxToolCallsPerAttempt);
  }

  /** Every event of the run so far, in order. */
  get events(): readonly LoopEvent[] {
    return this.transcript;
  }

  /** The attempts that ended, in order: what the prompts and the reflection look back on. */
  get history(): readonly AttemptRecord[] {
    return this.records;
  }

  get budget(): PromptBudget {
    return this.promptBudget;
  }

  get attemptsStarted(): number {
    return this.started;
  }

  /**
   * Opens an attempt: model responses are filed under it from here on; it
   * counts once the budgets allow it, and then it is announced.
   */
  async beginAttempt(attempt: number): Promise<void> {
    this.attempt = attempt;
    this.checkBudgets();
    this.started = attempt;
    await this.emit({ type: 'attempt-started', attempt, maxAttempts: this.input.limits.maxAttempts });
  }

  /** An attempt that ended joins the history the next prompts show. */
  remember(record: AttemptRecord): void {
    this.records.push(record);
  }

  /** A model that knows its context window sizes the prompts (docs/models.md); others keep the configured budget. */
  async sizePrompts(): Promise<void> {
    const window = await this.input.model.window?.(this.input.signal).catch(() => undefined);
    if (window) {
      this.promptBudget = promptBudget(
        promptTokenBudgetForWindow(window),
        this.input.limits.maxToolCallsPerAttempt,
      );
    }
  }

  elapsedMs(): number {
    return Math.round(this.clock.now() - this.startedAt);
  }

  async emit(event: LoopEvent): Promise<void> {
    this.transcript.push(event);
    await this.input.emit?.(event);
  }

  async execute(command: string): Promise<ExecResult> {
    this.input.signal?.throwIfAborted();
    const result = await this.input.sandbox.exec(command, {
      timeoutSeconds: this.input.limits.commandTimeoutSeconds,
      signal: this.input.signal,
    });
    this.input.signal?.throwIfAborted();
    return result;
  }

  ask<T>(question: ModelQuestion<T>): Promise<T> {
    return completeStructured({
      ...question,
      model: this.input.model,
      signal: this.input.signal,
      clock: this.clock,
      onResponse: (response, purpose, tokens, ms) => this.recordResponse(response, purpose, tokens, ms),
    });
  }

  checkBudgets(): void {
    const exhausted = this.spend.exhausted();
    if (exhausted) throw new StopRun('budget-exhausted', exhausted);
    const maxSeconds = this.input.limits.maxDurationSeconds;
    if (maxSeconds > 0 && this.clock.now() - this.startedAt > maxSeconds * 1000) {
      throw new StopRun('budget-exhausted', `time budget used up (${maxSeconds} s)`);
    }
  }

  classify(error: unknown): Ending {
    if (this.input.signal?.aborted) {
      // Whoever aborted may say why (`stopped by @octocat`, a newer push); a bare abort says nothing useful.
      const cause: unknown = this.input.signal.reason;
      return {
        outcome: 'cancelled',
        reason: cause instanceof SelfdebugError ? cause.message : 'the job was cancelled',
      };
    }
    if (error instanceof StopRun) return { outcome: error.outcome, reason: error.reason };
    if (error instanceof SelfdebugError) return { outcome: 'error', reason: error.message };
    return {
      outcome: 'error',
      reason: `unexpected error: ${error instanceof Error ? error.message : String(error)}`,
    };
  }

  private async recordResponse(response: ModelResponse, purpose: ModelPurpose, tokens: number, ms: number) {
    const costUsd = this.spend.add(response.usage);
    await this.emit({
      type: 'model-responded',
      attempt: purpose === 'reflect' || this.attempt === 0 ? null : this.attempt,
      purpose,
      content: response.content,
      toolCalls: response.toolCalls,
      usage: response.usage,
      costUsd,
      promptTokensEstimate: tokens,
      durationMs: ms,
      total: this.spend.snapshot(),
    });
  }
}
