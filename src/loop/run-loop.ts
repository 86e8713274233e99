import { InvalidModelOutputError, ModelApiError, ModelAuthError } from '../errors/model-errors.js';
import { SelfdebugError } from '../errors/selfdebug-error.js';
import type { LanguageModel, ModelPurpose, ModelResponse } from '../model/language-model.js';
import type { ExecResult, Sandbox } from '../sandbox/sandbox.js';
import { environmentProblem } from './environment-check.js';
import type { EventSink, LoopEvent, LoopOutcome, ReproductionStatus, Spend } from './events.js';
import {
  type AttemptRecord,
  decideMessages,
  describeResult,
  generateMessages,
  type PromptBudget,
  promptBudget,
  reflectMessages,
} from './prompts.js';
import {
  fallbackDecision,
  invalidAnswer,
  notRun,
  rejectedProposal,
  rejectedReflection,
} from './rejected-answer.js';
import {
  fixProposalSchema,
  type Reflection,
  type RetryDecision,
  reflectionSchema,
  retryDecisionSchema,
} from './schemas.js';
import { SpendMeter } from './spend.js';
import { completeStructured } from './structured-call.js';
import {
  type DebugTask,
  type LoopLimits,
  type ModelPrices,
  promptTokenBudgetForWindow,
  UNKNOWN_PRICES,
} from './task.js';
import { WorkspaceEditor } from './workspace-editor.js';
import { WorkspaceTools, workspaceToolDefinitions } from './workspace-tools.js';

export interface LoopInput {
  task: DebugTask;
  limits: LoopLimits;
  model: LanguageModel;
  sandbox: Sandbox;
  prices?: ModelPrices;
  emit?: EventSink;
  signal?: AbortSignal;
  /**
   * `explain` reproduces and reflects without attempting a fix (no edits, no PR).
   * `revise` makes changes someone asked for (a review of the App's own fix):
   * the command may already pass, and must pass after the changes.
   */
  mode?: 'fix' | 'explain' | 'revise';
}

export interface LoopResult {
  outcome: LoopOutcome;
  reason: string;
  attempts: number;
  reflection: Reflection | null;
  diff: string;
  changedFiles: string[];
  total: Spend;
  durationMs: number;
  /** Every event of the run, in order: the full transcript. */
  events: LoopEvent[];
}

/** Ends the attempts early; caught by the loop, never seen outside it. */
class StopRun extends Error {
  constructor(
    readonly outcome: LoopOutcome,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/**
 * The self-debugging loop: reproduce, then up to `maxAttempts` rounds of
 * generate → apply → execute → decide, then always a reflection. It only
 * talks to its ports (model, sandbox, event sink) and knows nothing of
 * GitHub, Docker or OpenAI, so the App, the CLI and the tests share it.
 */
export async function runLoop(input: LoopInput): Promise<LoopResult> {
  return new LoopRun(input).run();
}

class LoopRun {
  private readonly events: LoopEvent[] = [];
  private readonly spend: SpendMeter;
  private readonly editor: WorkspaceEditor;
  private readonly tools: WorkspaceTools;
  private budget: PromptBudget;
  private readonly history: AttemptRecord[] = [];
  private readonly started = performance.now();
  private reproduction: ExecResult | null = null;
  private attempt = 0;
  private attemptsStarted = 0;

  constructor(private readonly input: LoopInput) {
    this.spend = new SpendMeter(input.prices ?? UNKNOWN_PRICES, input.limits);
    this.editor = new WorkspaceEditor(input.sandbox);
    this.tools = new WorkspaceTools(input.sandbox, input.signal);
    this.budget = promptBudget(input.limits.promptTokenBudget, input.limits.maxToolCallsPerAttempt);
  }

  async run(): Promise<LoopResult> {
    const { task, limits, model } = this.input;
    await this.emit({ type: 'started', task, limits, model: model.model });
    // A model that knows its context window sizes the prompts (docs/models.md); others keep the configured budget.
    const window = await model.window?.(this.input.signal).catch(() => undefined);
    if (window) {
      this.budget = promptBudget(promptTokenBudgetForWindow(window), limits.maxToolCallsPerAttempt);
    }
    let outcome: LoopOutcome;
    let reason: string;
    let modelUnavailable = false;
    try {
      await this.setup();
      const status = await this.reproduce();
      if (status === 'failing') await this.checkEnvironment();
      if (status === 'passing' && this.input.mode !== 'revise') {
        throw new StopRun('cannot-reproduce', this.passingReason());
      }
      if (status === 'flaky') throw new StopRun('flaky', this.flakyReason());
      if (this.input.mode === 'explain') {
        outcome = 'explained';
        reason = 'reproduced the failure; explaining it without changing code';
      } else {
        ({ outcome, reason } = await this.attempts());
      }
    } catch (error) {
      ({ outcome, reason } = this.classify(error));
      // A model that is down or refuses our key would only fail the reflection too.
      modelUnavailable = error instanceof ModelApiError || error instanceof ModelAuthError;
    }

    let reflection: Reflection | null = null;
    // An environment problem is reported without a word from the model: nothing it could say would fix it.
    if (outcome !== 'cancelled' && outcome !== 'environment' && !modelUnavailable) {
      try {
        reflection = await this.reflect(outcome, reason);
      } catch (error) {
        const failure = this.classify(error);
        if (error instanceof InvalidModelOutputError && failure.outcome !== 'cancelled') {
          const rejected = rejectedReflection(error, reason);
          await this.emit(rejected.event);
          reason = rejected.reason;
        } else if (failure.outcome === 'cancelled') ({ outcome, reason } = failure);
        else if (outcome !== 'error') reason = `${reason} (no reflection: ${failure.reason})`;
      }
    }

    const { diff, changedFiles } = await this.editor.diff().catch(() => ({ diff: '', changedFiles: [] }));
    const durationMs = Math.round(performance.now() - this.started);
    const total = this.spend.snapshot();
    await this.emit({
      type: 'finished',
      outcome,
      reason,
      attempts: this.attemptsStarted,
      diff,
      changedFiles,
      total,
      durationMs,
    });
    return {
      outcome,
      reason,
      attempts: this.attemptsStarted,
      reflection,
      diff,
      changedFiles,
      total,
      durationMs,
      events: this.events,
    };
  }

  /** Setup the sandbox already ran (with its network) is reported; otherwise it runs here, offline. */
  private async setup(): Promise<void> {
    const preparation = this.input.sandbox.preparation;
    if (preparation) {
      await this.emit({ type: 'environment-prepared', preparation });
      for (const { command, result } of preparation.setup)
        await this.emit({ type: 'setup-ran', command: command.command, result });
      return;
    }
    for (const command of this.input.task.setupCommands ?? []) {
      const result = await this.execute(command);
      await this.emit({ type: 'setup-ran', command, result });
      if (result.exitCode !== 0) {
        throw new StopRun(
          'error',
          `the setup command \`${command}\` failed with exit code ${result.exitCode}`,
        );
      }
    }
  }

  /** A reproduction that failed for want of a tool, a dependency or a host costs no model attempt. */
  private async checkEnvironment(): Promise<void> {
    const { sandbox, task } = this.input;
    const problem = await environmentProblem(
      sandbox,
      task.command,
      sandbox.preparation?.setup.map((run) => run.command.command) ?? task.setupCommands ?? [],
      this.reproduction!,
      sandbox.preparation,
    );
    if (problem) throw new StopRun('environment', problem);
  }

  /** Runs the command once; if it passes, a few more times to tell flaky from cannot-reproduce. */
  private async reproduce(): Promise<ReproductionStatus> {
    const runs = [await this.execute(this.input.task.command)];
    if (runs[0]!.exitCode !== 0) {
      this.reproduction = runs[0]!;
      await this.emit({ type: 'reproduced', status: 'failing', runs });
      return 'failing';
    }
    if (this.input.mode === 'revise') {
      // A passing command is the expected start of a revision: its output is the model's starting point.
      this.reproduction = runs[0]!;
      await this.emit({ type: 'reproduced', status: 'passing', runs });
      return 'passing';
    }
    for (let index = 0; index < this.input.limits.reproduceRuns; index++) {
      const result = await this.execute(this.input.task.command);
      runs.push(result);
      if (result.exitCode !== 0) break;
    }
    const failed = runs.find((run) => run.exitCode !== 0);
    this.reproduction = failed ?? null;
    const status = failed ? 'flaky' : 'passing';
    await this.emit({ type: 'reproduced', status, runs });
    return status;
  }

  private async attempts(): Promise<{ outcome: LoopOutcome; reason: string }> {
    const { limits, task } = this.input;
    // What the last run printed, kept apart so a rejected answer or edit can repeat it without nesting.
    let latestRun = describeResult(this.reproduction!, this.budget.total);
    let latestFailure = latestRun;
    for (this.attempt = 1; this.attempt <= limits.maxAttempts; this.attempt++) {
      this.checkBudgets();
      const attempt = this.attempt;
      this.attemptsStarted = attempt;
      await this.emit({ type: 'attempt-started', attempt, maxAttempts: limits.maxAttempts });
      const record: AttemptRecord = {
        attempt,
        analysis: null,
        diff: '',
        problems: null,
        result: null,
        decision: null,
      };

      const proposal = await completeStructured({
        model: this.input.model,
        purpose: 'generate',
        messages: generateMessages({
          task,
          timeoutSeconds: limits.commandTimeoutSeconds,
          currentDiff: (await this.editor.diff()).diff,
          history: this.history,
          latestFailure,
          // Only a revision starts from a passing run; after a failed attempt the latest run is a failure.
          latestPassed: attempt === 1 && this.reproduction?.exitCode === 0,
          budget: this.budget,
        }),
        schema: fixProposalSchema,
        schemaName: 'fix_proposal',
        tools: {
          definitions: workspaceToolDefinitions,
          maxCalls: limits.maxToolCallsPerAttempt,
          run: async (call) => {
            const outcome = await this.tools.run(call.name, call.arguments, this.budget.perToolResult);
            await this.emit({
              type: 'tool-called',
              attempt,
              name: call.name,
              arguments: call.arguments,
              ...outcome,
            });
            return outcome.result;
          },
        },
        signal: this.input.signal,
        onResponse: (response, purpose, tokens, ms) => this.recordResponse(response, purpose, tokens, ms),
      }).catch(invalidAnswer);
      if (proposal instanceof InvalidModelOutputError) {
        // A bad answer costs this attempt, not the job: the next one is told what was wrong with it.
        const rejected = rejectedProposal(attempt, proposal, latestRun);
        record.problems = [rejected.problem];
        await this.emit(rejected.event);
        this.history.push(record);
        latestFailure = rejected.latestFailure;
        continue;
      }
      record.analysis = proposal.analysis;
      await this.emit({ type: 'proposal', attempt, proposal });

      const applied = await this.editor.apply(proposal.edits);
      if (!applied.ok) {
        record.problems = applied.problems;
        await this.emit({ type: 'edits-rejected', attempt, problems: applied.problems });
        this.history.push(record);
        latestFailure = notRun(
          `The edits of attempt ${attempt} did not apply, so nothing was run:\n${applied.problems.join('\n')}`,
          latestRun,
        );
        continue;
      }
      record.diff = applied.diff;
      await this.emit({ type: 'edits-applied', attempt, paths: applied.paths, diff: applied.diff });

      const result = await this.execute(task.command);
      record.result = result;
      await this.emit({ type: 'executed', attempt, command: task.command, result });
      if (result.exitCode === 0) {
        this.history.push(record);
        return { outcome: 'fixed', reason: `the command passed on attempt ${attempt}` };
      }
      if (attempt === limits.maxAttempts) {
        this.history.push(record);
        break;
      }

      this.checkBudgets();
      const answer = await completeStructured({
        model: this.input.model,
        purpose: 'retry-decision',
        messages: decideMessages({
          task,
          timeoutSeconds: limits.commandTimeoutSeconds,
          current: record,
          history: this.history,
          budget: this.budget,
        }),
        schema: retryDecisionSchema,
        schemaName: 'retry_decision',
        signal: this.input.signal,
        onResponse: (response, purpose, tokens, ms) => this.recordResponse(response, purpose, tokens, ms),
      }).catch(invalidAnswer);
      const decision =
        answer instanceof InvalidModelOutputError ? await this.fallbackDecision(attempt, answer) : answer;
      record.decision = decision;
      this.history.push(record);
      await this.emit({ type: 'retry-decided', attempt, retry: decision.retry, reason: decision.reason });
      if (!decision.retry) return { outcome: 'declined', reason: decision.reason };
      latestRun = describeResult(result, this.budget.total);
      latestFailure = latestRun;
    }
    return { outcome: 'not-fixed', reason: `still failing after ${limits.maxAttempts} attempts` };
  }

  private async fallbackDecision(attempt: number, error: InvalidModelOutputError): Promise<RetryDecision> {
    const fallback = fallbackDecision(attempt, error);
    await this.emit(fallback.event);
    return fallback.decision;
  }

  private async reflect(outcome: LoopOutcome, reason: string): Promise<Reflection> {
    const reflection = await completeStructured({
      model: this.input.model,
      purpose: 'reflect',
      messages: reflectMessages({
        task: this.input.task,
        timeoutSeconds: this.input.limits.commandTimeoutSeconds,
        outcome,
        reason,
        reproduction: this.reproduction,
        history: this.history,
        finalDiff: (await this.editor.diff()).diff,
        budget: this.budget,
      }),
      schema: reflectionSchema,
      schemaName: 'reflection',
      signal: this.input.signal,
      onResponse: (response, purpose, tokens, ms) => this.recordResponse(response, purpose, tokens, ms),
    });
    await this.emit({ type: 'reflected', reflection });
    return reflection;
  }

  private async execute(command: string): Promise<ExecResult> {
    this.input.signal?.throwIfAborted();
    const result = await this.input.sandbox.exec(command, {
      timeoutSeconds: this.input.limits.commandTimeoutSeconds,
      signal: this.input.signal,
    });
    this.input.signal?.throwIfAborted();
    return result;
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

  private checkBudgets(): void {
    const exhausted = this.spend.exhausted();
    if (exhausted) throw new StopRun('budget-exhausted', exhausted);
    const maxSeconds = this.input.limits.maxDurationSeconds;
    if (maxSeconds > 0 && performance.now() - this.started > maxSeconds * 1000) {
      throw new StopRun('budget-exhausted', `time budget used up (${maxSeconds} s)`);
    }
  }

  private classify(error: unknown): { outcome: LoopOutcome; reason: string } {
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

  private passingReason(): string {
    const runs = this.input.limits.reproduceRuns + 1;
    return `\`${this.input.task.command}\` passed ${runs} time${runs === 1 ? '' : 's'} out of ${runs}: the failure could not be reproduced`;
  }

  private flakyReason(): string {
    return `\`${this.input.task.command}\` passed, then failed: the failure is intermittent (flaky); no code was changed`;
  }

  private async emit(event: LoopEvent): Promise<void> {
    this.events.push(event);
    await this.input.emit?.(event);
  }
}
