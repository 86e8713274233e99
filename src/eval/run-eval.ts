import { SelfdebugError } from '../errors/index.js';
import { type FixPlan, runFixPlan } from '../fix/index.js';
import type { LoopResult } from '../loop/run-loop.js';
import type { LoopLimits, ModelPrices } from '../loop/task.js';
import type { LanguageModel } from '../model/language-model.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import { sampleToBudget } from './equal-budget.js';
import type { EvalSuite, EvalTask } from './eval-task.js';
import { oneShotLimits, oneShotModel } from './one-shot.js';
import {
  identityMismatch,
  type ModeResult,
  type ResultsFile,
  type RunIdentity,
  readResults,
  type TaskResult,
  writeResults,
} from './results-file.js';

export interface EvalOptions {
  suite: EvalSuite;
  provider: SandboxProvider;
  /**
   * Called once per task and mode, and per one-shot sample: a shared server
   * model, or a scripted one built from the task. `sample` numbers the calls
   * of one task: 0 for the loop, 1, 2… for one-shot's samples.
   */
  modelFor: (task: EvalTask, sample: number) => LanguageModel;
  /** The loop's limits; each task's own time limit replaces the command timeout unless `timeoutOverride`. */
  limits: LoopLimits;
  timeoutOverride?: number | undefined;
  prices: ModelPrices;
  /** Also run the one-shot baseline for each task. */
  baseline: boolean;
  /** With the baseline, also sample one-shot to the loop's tokens (equal-budget.ts); default true. */
  equalBudget?: boolean;
  concurrency: number;
  resultsPath: string;
  identity: RunIdentity;
  /** Ignore earlier results instead of resuming from them. */
  fresh: boolean;
  onProgress?: (event: EvalProgress) => void;
  signal?: AbortSignal;
}

export type EvalProgress =
  | { type: 'resumed'; done: number; total: number }
  | { type: 'task-started'; task: EvalTask; position: number; total: number }
  | { type: 'task-finished'; result: TaskResult; position: number; total: number };

export interface EvalRun {
  results: ResultsFile;
  /** Tasks of this suite that still have no result (the run was cancelled before them). */
  missing: string[];
  cancelled: boolean;
}

/** Earlier results came from other settings; mixing rows would make the table meaningless. */
export class ResultsMismatchError extends SelfdebugError {
  constructor(path: string, difference: string) {
    super(
      'eval-results-mismatch',
      `${path} holds results of a different run (${difference}). ` +
        'Rerun with --fresh to replace them, or give another --out folder.',
    );
  }
}

/**
 * Runs every task of the suite that has no result yet, through the loop and
 * (with `baseline`) the one-shot baseline, each in its own fresh sandbox, and
 * rewrites the results file after each task.
 */
export async function runEval(options: EvalOptions): Promise<EvalRun> {
  const { suite, signal } = options;
  const results = await startingResults(options);
  const done = new Set(results.tasks.map((task) => task.name));
  const pending = suite.tasks.filter((task) => !done.has(task.name));
  const total = suite.tasks.length;
  if (pending.length < total) options.onProgress?.({ type: 'resumed', done: total - pending.length, total });

  const order = new Map(suite.tasks.map((task, index) => [task.name, index]));
  const saver = resultsSaver(results, options.resultsPath, { order, total });
  let next = 0;
  const worker = async () => {
    while (next < pending.length && !signal?.aborted) {
      const task = pending[next++]!;
      const position = (order.get(task.name) ?? 0) + 1;
      options.onProgress?.({ type: 'task-started', task, position, total });
      const result = await runTask(task, options);
      if (result === null) return;
      await saver.save(result);
      options.onProgress?.({ type: 'task-finished', result, position, total });
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency, pending.length));
  await Promise.all(Array.from({ length: workers }, worker));
  await saver.saved();
  if (pending.length === 0) await writeResults(options.resultsPath, results);

  const finished = new Set(results.tasks.map((task) => task.name));
  return {
    results,
    missing: suite.tasks.filter((task) => !finished.has(task.name)).map((task) => task.name),
    cancelled: signal?.aborted ?? false,
  };
}

/** The earlier results to resume from, when they came from the same settings; else a new file's. */
async function startingResults(options: EvalOptions): Promise<ResultsFile> {
  const now = new Date().toISOString();
  const earlier = options.fresh ? null : await readResults(options.resultsPath);
  if (earlier) {
    const difference = identityMismatch(earlier.run, options.identity);
    if (difference) throw new ResultsMismatchError(options.resultsPath, difference);
  }
  return earlier ?? { version: 1, run: options.identity, startedAt: now, updatedAt: now, tasks: [] };
}

/** Adds each finished task's result in the suite's order (a task no longer in it goes last) and rewrites the file. */
function resultsSaver(
  results: ResultsFile,
  path: string,
  { order, total }: { order: ReadonlyMap<string, number>; total: number },
) {
  let saving = Promise.resolve();
  return {
    save: (result: TaskResult): Promise<void> => {
      results.tasks.push(result);
      results.tasks.sort((a, b) => (order.get(a.name) ?? total) - (order.get(b.name) ?? total));
      results.updatedAt = new Date().toISOString();
      // One write at a time, each with everything finished so far.
      saving = saving.then(() => writeResults(path, results));
      return saving;
    },
    /** Resolves once every save so far is written. */
    saved: (): Promise<void> => saving,
  };
}

/**
 * The loop, and with `baseline` one-shot once and one-shot sampled to the
 * loop's tokens (equal-budget.ts), for one task; null when the run was
 * cancelled in the middle (the task reruns next time).
 */
async function runTask(task: EvalTask, options: EvalOptions): Promise<TaskResult | null> {
  const limits: LoopLimits = {
    ...options.limits,
    commandTimeoutSeconds:
      options.timeoutOverride ?? task.timeoutSeconds ?? options.limits.commandTimeoutSeconds,
    // A task whose command passes before any fix is a broken task: one run says so.
    reproduceRuns: 0,
  };
  const loop = await runMode(task, 'loop', limits, options.modelFor(task, 0), options);
  if (loop === null) return null;
  let baselines: Pick<TaskResult, 'oneShot' | 'oneShotEqualBudget'> = {};
  if (options.baseline) {
    // Each sample a fresh model, as a new request to a server is: sampled anew.
    let samples = 0;
    const sample = () => {
      const model = oneShotModel(options.modelFor(task, ++samples));
      return runMode(task, 'one-shot', oneShotLimits(limits), model, options);
    };
    const oneShot = await sample();
    if (oneShot === null) return null;
    baselines = { oneShot };
    if (options.equalBudget !== false) {
      const oneShotEqualBudget = await sampleToBudget(oneShot, loop.spend.totalTokens, sample);
      if (oneShotEqualBudget === null) return null;
      baselines = { oneShot, oneShotEqualBudget };
    }
  }
  return {
    name: task.name,
    language: task.language,
    loop,
    ...baselines,
    finishedAt: new Date().toISOString(),
  };
}

async function runMode(
  task: EvalTask,
  mode: 'loop' | 'one-shot',
  limits: LoopLimits,
  model: LanguageModel,
  options: EvalOptions,
): Promise<ModeResult | null> {
  const { signal } = options;
  if (signal?.aborted) return null;
  const workspace = await task.prepare();
  try {
    const plan: FixPlan = {
      jobId: `eval-${options.suite.name}-${task.name}-${mode}`.replace(/[^\w.-]/g, '-'),
      task: { description: task.description, command: task.command, setupCommands: task.setup },
      limits,
      prices: options.prices,
      workspace: workspace.dir,
      // The table is the delivery: the task's folder is thrown away.
      copyBack: 'never',
    };
    const result = await runFixPlan(plan, {
      sandboxes: options.provider,
      model,
      ...(signal ? { signal } : {}),
      deliver: async ({ loop }) => loop,
    });
    return result.outcome === 'cancelled' ? null : modeResult(result);
  } catch (error) {
    if (signal?.aborted) return null;
    throw error;
  } finally {
    await workspace.dispose();
  }
}

function modeResult(result: LoopResult): ModeResult {
  return {
    fixed: result.outcome === 'fixed',
    outcome: result.outcome,
    reason: result.reason,
    attempts: result.attempts,
    spend: { ...result.total.usage, costUsd: result.total.costUsd },
    durationMs: result.durationMs,
  };
}
