import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { loadSandboxProvider } from '../compose/command-sandbox.js';
import { loadLanguageModel } from '../compose/language-model.js';
import { loadSandboxConfig } from '../config/load-config.js';
import { loadModelConfig, type ModelConfig } from '../config/model-config.js';
import type { Environment } from '../config/read-environment.js';
import { defaultRepoConfig } from '../config/repo-config.js';
import {
  ConfigError,
  EngineUnreachableError,
  ImageNotAllowedError,
  ImageNotFoundError,
  ModelAuthError,
} from '../errors/index.js';
import { EQUAL_BUDGET_NAME, renderTable } from '../eval/eval-table.js';
import type { EvalTask } from '../eval/eval-task.js';
import { loadSuite, SuiteNotFoundError } from '../eval/load-suite.js';
import type { ModeResult } from '../eval/results-file.js';
import { type EvalProgress, ResultsMismatchError, runEval } from '../eval/run-eval.js';
import { scriptedModel } from '../eval/scripted-models.js';
import { mergeSettings, type RunSettings } from '../fix/index.js';
import type { LanguageModel } from '../model/language-model.js';
import { EVAL_USAGE, type EvalOptions, EvalUsageError, parseEvalOptions } from './eval-options.js';
import type { OutputStream } from './output-stream.js';
import { plural } from './terminal.js';

export interface EvalIO {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Environment;
  /** Where relative paths start; the process's folder unless a test passes its own. */
  cwd?: string;
}

const EXIT_RAN = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const EXIT_CANCELLED = 130;

/**
 * `selfdebug eval DIR`: the suite through the loop and the one-shot baseline,
 * a Markdown table to stdout and --out, JSON results resumable after an
 * interruption. The exit code says whether the eval ran, never how well the model did.
 */
export async function runEvalCommand(argv: readonly string[], io: EvalIO): Promise<number> {
  const controller = new AbortController();
  const onInterrupt = () => {
    if (controller.signal.aborted) process.exit(EXIT_CANCELLED);
    io.stderr.write('\nCancelling: the tasks done so far are kept (Ctrl-C again to quit at once)…\n');
    controller.abort(new Error('cancelled by Ctrl-C'));
  };
  process.on('SIGINT', onInterrupt);
  try {
    const request = parseEvalOptions(argv);
    if (request.kind === 'help') {
      io.stdout.write(`${EVAL_USAGE}\n`);
      return EXIT_RAN;
    }
    return await evaluate(request.options, io, controller.signal);
  } catch (error) {
    if (controller.signal.aborted) {
      io.stderr.write('Cancelled.\n');
      return EXIT_CANCELLED;
    }
    io.stderr.write(`selfdebug eval: ${error instanceof Error ? error.message : String(error)}\n`);
    return isSetupProblem(error) ? EXIT_USAGE : EXIT_FAILED;
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

async function evaluate(options: EvalOptions, io: EvalIO, signal: AbortSignal): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const suite = await loadSuite(resolve(cwd, options.dir), options.tasks);
  const { sandbox, model, limits, prices } = evalSettings(options, io.env);
  const { modelFor, modelName } = await models(options, model);
  const { outDir, resultsPath, tablePath } = await resultPaths(cwd, options, suite.name);
  const shown = (path: string) => relative(cwd, path) || '.';
  const modes = options.baseline ? 'the loop and one-shot' : 'the loop only';
  io.stdout.write(
    `Eval ${suite.name}: ${plural(suite.tasks.length, 'task')} with ${modelName}, ${modes} ` +
      `(up to ${plural(limits.maxAttempts, 'attempt')}), ${sandbox.kind} sandbox; results in ${shown(outDir)}\n`,
  );
  const run = await runEval({
    suite,
    provider: await loadSandboxProvider(sandbox, { host: io.env }),
    modelFor,
    limits,
    timeoutOverride: options.timeoutSeconds,
    prices,
    baseline: options.baseline,
    equalBudget: options.equalBudget,
    concurrency: options.concurrency,
    resultsPath,
    identity: {
      suite: suite.name,
      source: suite.source,
      model: modelName,
      maxAttempts: limits.maxAttempts,
      sandbox: sandbox.kind,
      baseline: options.baseline,
    },
    fresh: options.fresh,
    onProgress: (event) => io.stdout.write(`${progressLine(event, suite.tasks.length)}\n`),
    signal,
  });
  const table = renderTable(run.results);
  await writeFile(tablePath, table);
  io.stdout.write(`\n${table}\n`);
  io.stdout.write(`Wrote ${shown(tablePath)} and ${shown(resultsPath)}.\n`);
  return finish(run, io);
}

/** The folder the results go to (made if missing) and its two files: the records, and the table of them. */
async function resultPaths(cwd: string, options: EvalOptions, suiteName: string) {
  const outDir = resolve(cwd, options.out ?? join('eval-results', suiteName));
  await mkdir(outDir, { recursive: true });
  return { outDir, resultsPath: join(outDir, 'results.json'), tablePath: join(outDir, 'results.md') };
}

/** What is left to run, and the exit code: cancelled, or ran. */
function finish(run: { missing: string[]; cancelled: boolean }, io: EvalIO): number {
  if (run.missing.length > 0)
    io.stdout.write(
      `${plural(run.missing.length, 'task')} still to run (${run.missing.join(', ')}): ` +
        'run the same command again to resume.\n',
    );
  if (run.cancelled) {
    io.stderr.write('Cancelled; the tasks done so far are kept.\n');
    return EXIT_CANCELLED;
  }
  return EXIT_RAN;
}

/**
 * The sandbox, the model, the loop's limits and prices, through the one merger
 * (docs/settings-precedence.md): the environment, then the flags. A suite has
 * no `.github/selfdebug.yml`; a scripted model reads no model settings.
 */
function evalSettings(options: EvalOptions, env: Environment): RunSettings {
  const scripted = options.scripted !== undefined;
  return mergeSettings({
    operator: { sandbox: loadSandboxConfig(env), model: scripted ? {} : loadModelConfig(env) },
    repo: defaultRepoConfig,
    door: {
      sandbox: { kind: options.sandbox, image: options.image },
      model: { model: options.model, baseUrl: options.baseUrl },
      limits: { maxAttempts: options.maxAttempts },
    },
    source: 'the command-line options',
  });
}

interface Models {
  modelFor: (task: EvalTask, sample: number) => LanguageModel;
  modelName: string;
}

async function models(options: EvalOptions, config: ModelConfig): Promise<Models> {
  const scripted = options.scripted;
  if (scripted !== undefined) {
    // A fresh one per task and mode: each counts its own attempts.
    return {
      modelFor: (task, sample) => scriptedModel(scripted, task, sample),
      modelName: `scripted-${scripted}`,
    };
  }
  // Loaded on demand (in compose): scripted runs never load the OpenAI SDK. One client for every task,
  // so what it learns about the server (structured output, tools, context length) is probed once.
  const model = await loadLanguageModel(config);
  return { modelFor: () => model, modelName: config.model };
}

function progressLine(event: EvalProgress, count: number): string {
  const width = String(count).length;
  switch (event.type) {
    case 'resumed':
      return `Resuming: ${event.done} of ${plural(event.total, 'task')} already done (--fresh starts over).`;
    case 'task-started':
      return `[${String(event.position).padStart(width)}/${event.total}] ${event.task.name}: started`;
    case 'task-finished': {
      const { result } = event;
      const parts = [`loop ${modeText(result.loop)}`];
      if (result.oneShot) parts.push(`one-shot ${modeText(result.oneShot)}`);
      // Its attempts are fresh one-shot samples, drawn until one passes or the loop's tokens are spent.
      if (result.oneShotEqualBudget)
        parts.push(`${EQUAL_BUDGET_NAME} ${modeText(result.oneShotEqualBudget, 'sample')}`);
      return `[${String(event.position).padStart(width)}/${event.total}] ${result.name}: ${parts.join('; ')}`;
    }
  }
}

function modeText(result: ModeResult, attempt = 'attempt'): string {
  const facts = [
    plural(result.attempts, attempt),
    plural(result.spend.totalTokens, 'token'),
    `${(result.durationMs / 1000).toFixed(1)} s`,
  ];
  return `${result.fixed ? 'fixed' : `not fixed (${result.outcome})`}, ${facts.join(', ')}`;
}

/** Problems the person fixes before running again, as opposed to an eval that did not work out. */
function isSetupProblem(error: unknown): boolean {
  return (
    error instanceof EvalUsageError ||
    error instanceof SuiteNotFoundError ||
    error instanceof ResultsMismatchError ||
    error instanceof ConfigError ||
    error instanceof ModelAuthError ||
    error instanceof EngineUnreachableError ||
    error instanceof ImageNotFoundError ||
    error instanceof ImageNotAllowedError
  );
}
