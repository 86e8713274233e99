import { stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { loadSandboxProvider } from '../compose/command-sandbox.js';
import { setupSecrets } from '../compose/setup-extras.js';
import { type FolderConfig, readFolderConfig } from '../config/folder-config.js';
import type { Environment } from '../config/read-environment.js';
import { localScope } from '../environment/cache-scope.js';
import type { EnvironmentPlan } from '../environment/plan-environment.js';
import {
  ConfigError,
  EngineUnreachableError,
  ImageNotAllowedError,
  ImageNotFoundError,
  ImagePullError,
  ModelAuthError,
  ModelUnreachableError,
  RepoConfigFileError,
} from '../errors/index.js';
import { type FixPlan, runFixPlan } from '../fix/index.js';
import type { LoopResult } from '../loop/run-loop.js';
import { RecordingModel } from '../model/recording-model.js';
import { ScriptedModel } from '../model/scripted-model.js';
import { Redactor } from '../report/index.js';
import { EnvironmentSetupError } from '../sandbox/setup-error.js';
import type { CopyBackReport } from '../workspace/copy-back.js';
import { planFixEnvironment } from './fix-environment.js';
import { FIX_USAGE, type FixOptions, parseFixOptions, UsageError } from './fix-options.js';
import { FixProgress } from './fix-progress.js';
import { createModel, type FixSettings, resolveSettings } from './fix-settings.js';
import { GuardedModel, ReplayTooShortError } from './guarded-model.js';
import { EXIT_CANCELLED, listenForInterrupts } from './interrupts.js';
import { checkOutputPath, writeOrRescue } from './output-files.js';
import type { OutputStream } from './output-stream.js';

export interface FixIO {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Environment;
  /** Whether stdout is a terminal: colors (unless NO_COLOR) and a spinner. */
  isTTY: boolean;
}

const EXIT_FIXED = 0;
const EXIT_NOT_FIXED = 1;
const EXIT_USAGE = 2;

/**
 * `selfdebug fix`: runs the self-debugging loop on a local folder and writes
 * the fix back only when the command passes. Returns the exit code: 0 fixed,
 * 1 any other outcome, 2 usage or configuration problems, 130 cancelled by
 * Ctrl-C (143 by SIGTERM, 129 by SIGHUP).
 */
export async function runFix(argv: readonly string[], io: FixIO): Promise<number> {
  const controller = new AbortController();
  const jobId = `cli-${Date.now()}`;
  const interrupts = listenForInterrupts(controller, jobId, io.stderr);
  let progress: FixProgress | undefined;
  let redactor = Redactor.none;
  try {
    const request = parseFixOptions(argv);
    if (request.kind === 'help') {
      io.stdout.write(`${FIX_USAGE}\n`);
      return 0;
    }
    const options = request.options;
    const dir = await existingDirectory(options.dir);
    // Before the run, so a typo in a path costs seconds, not a whole run.
    if (options.patch !== undefined) await checkOutputPath('--patch', options.patch);
    if (options.record !== undefined) await checkOutputPath('--record', options.record);
    const folder = await readFolderConfig(dir, io.env);
    const settings = resolveSettings(options, io.env, folder);
    // What the terminal and the files (--patch, --record) show passes the same redactor as all the App posts.
    redactor = new Redactor([
      ...setupSecrets(settings.setupExtras),
      settings.model.apiKey,
      ...folder.config.secret_env.map((name) => io.env[name]),
    ]);
    const { guarded, recorder } = await fixModel(options, settings);
    const view = progressFor(io, settings, redactor);
    progress = view;
    if (folder.path) view.note(`Read ${folder.path}.`);
    for (const note of folder.notes) view.note(note);
    try {
      const run = {
        options,
        settings,
        folder,
        dir,
        jobId,
        model: guarded,
        progress: view,
        host: io.env,
        redactor,
      };
      const code = await runInSandbox(run, controller.signal);
      return code === EXIT_CANCELLED ? interrupts.exitCode() : code;
    } finally {
      if (recorder && options.record !== undefined)
        await saveRecording(recorder, options.record, view, redactor);
    }
  } catch (error) {
    progress?.stop();
    const stderr = { write: (text: string) => io.stderr.write(redactor.redact(text)) };
    return exitFor(error, controller.signal.aborted ? interrupts.exitCode() : null, stderr);
  } finally {
    progress?.stop();
    interrupts.stop();
  }
}

/** The exit code of a run that threw: cancelled (the signal's code), settings to fix (2), or any other failure (1). */
function exitFor(error: unknown, cancelledWith: number | null, stderr: OutputStream): number {
  if (cancelledWith !== null) {
    stderr.write('Cancelled.\n');
    return cancelledWith;
  }
  stderr.write(`selfdebug fix: ${error instanceof Error ? error.message : String(error)}\n`);
  return isSetupProblem(error) ? EXIT_USAGE : EXIT_NOT_FIXED;
}

/** What setup prints may echo the operator's setup values (a mirror URL with its token): `redactor` hides them. */
function progressFor(io: FixIO, settings: FixSettings, redactor: Redactor): FixProgress {
  const out = { write: (text: string) => io.stdout.write(redactor.redact(text)) };
  return new FixProgress(out, {
    isTTY: io.isTTY,
    color: !io.env.NO_COLOR,
    showCost: settings.prices.inputPerMillion > 0 || settings.prices.outputPerMillion > 0,
  });
}

function providerFor(options: FixOptions, settings: FixSettings, host: Environment) {
  return loadSandboxProvider(settings.sandbox, {
    host,
    setupExtras: settings.setupExtras,
    // The banner names the flag that chose the local sandbox, not the variable.
    ...(options.sandbox === 'local' ? { backToDocker: 'use --sandbox docker (the default)' } : {}),
  });
}

/** The model the loop talks to: the configured or scripted one, recorded when --record asks, guarded. */
async function fixModel(
  options: FixOptions,
  settings: FixSettings,
): Promise<{ guarded: GuardedModel; recorder: RecordingModel | undefined }> {
  const model = await createModel(options, settings.model);
  const recorder = options.record === undefined ? undefined : new RecordingModel(model);
  const guarded = new GuardedModel(recorder ?? model, {
    baseUrl: options.baseUrl,
    replay:
      options.replay !== undefined && model instanceof ScriptedModel
        ? { path: options.replay, model }
        : undefined,
  });
  return { guarded, recorder };
}

/** Writes the recorded answers to `path` (or, when it cannot, somewhere it can) and says where. */
async function saveRecording(
  recorder: RecordingModel,
  path: string,
  view: FixProgress,
  redactor: Redactor,
): Promise<void> {
  const text = redactor.redact(`${JSON.stringify(recorder.replayFile(), null, 2)}\n`);
  const written = await writeOrRescue(path, text);
  if (written.rescued)
    view.note(`Could not write --record ${path} (${written.why}); saved it to ${written.path} instead.`);
  view.note(`Recorded the model's answers in ${written.path}; rerun with --replay ${written.path}.`);
}

interface FixRun {
  options: FixOptions;
  settings: FixSettings;
  folder: FolderConfig;
  /** Absolute. */
  dir: string;
  jobId: string;
  model: GuardedModel;
  progress: FixProgress;
  /** The variables the command was started with. */
  host: Environment;
  redactor: Redactor;
}

async function runInSandbox(run: FixRun, signal: AbortSignal): Promise<number> {
  const { options, settings, model, progress } = run;
  const provider = await providerFor(options, settings, run.host);
  const plan = fixPlanOf(run, await environmentFor(run));
  return runFixPlan(plan, {
    sandboxes: provider,
    model,
    emit: progress.sink,
    onProgress: (line: string) => progress.note(line),
    signal,
    deliver: ({ loop, copied }) => finish(run, loop, copied),
  });
}

/** The folder's fix: its command, the folder as the workspace, and the changed files back only for a fix without --patch. */
function fixPlanOf(run: FixRun, environment: EnvironmentPlan): FixPlan {
  const { settings, dir } = run;
  return {
    jobId: run.jobId,
    task: { description: settings.description, command: settings.command },
    limits: settings.limits,
    prices: settings.prices,
    workspace: dir,
    // A folder on this machine is a repository of its own, under a tenant no App or Action job can be.
    environment: { ...environment.request, cacheScope: localScope(String(userInfo().uid), dir) },
    copyBack: run.options.patch === undefined ? 'when-fixed' : 'never',
  };
}

/** The exit code of a run, after its fix went out as a patch file or into the folder. */
async function finish(run: FixRun, result: LoopResult, copied: CopyBackReport): Promise<number> {
  const { options, dir, progress } = run;
  if (result.outcome === 'cancelled') return EXIT_CANCELLED;
  if (result.outcome !== 'fixed') {
    const patch = options.patch === undefined ? '' : ` No patch written to ${options.patch}.`;
    progress.note(`Left ${dir} untouched: only a fix that makes the command pass is kept.${patch}`);
    // The environment (a command not found, as a setup step not found) or a model server that is not there
    // or a replay file too short: the settings to fix, not the code.
    const settingsToFix =
      result.outcome === 'environment' || (result.outcome === 'error' && isSetupProblem(run.model.failure));
    return settingsToFix ? EXIT_USAGE : EXIT_NOT_FIXED;
  }
  if (options.patch !== undefined) await writePatch(run.redactor.redact(result.diff), options.patch, run);
  else reportCopied(copied, dir, progress);
  return EXIT_FIXED;
}

/** What the sandbox is set up with: derived as the App derives, then the folder's file and the flags. */
function environmentFor(run: FixRun) {
  return planFixEnvironment({
    options: run.options,
    folder: run.folder,
    dir: run.dir,
    command: run.settings.command,
    toolchainImages: run.settings.sandbox.toolchainImages,
    allowedImages: run.settings.sandbox.allowedImages,
  });
}

/** The fix as a patch file, written where --patch says (or, when it cannot be, somewhere it can). */
async function writePatch(diff: string, path: string, run: FixRun): Promise<void> {
  const written = await writeOrRescue(path, diff);
  if (written.rescued) {
    run.progress.note(
      `Could not write --patch ${path} (${written.why}); saved the fix to ${written.path} instead.`,
    );
  }
  run.progress.note(
    `Wrote the fix to ${written.path}; apply it with \`git apply ${resolve(written.path)}\` in ${run.dir}.`,
  );
}

/** The changed files only (never the command's build outputs); a link in the folder is never followed. */
function reportCopied({ written, refused }: CopyBackReport, dir: string, progress: FixProgress): void {
  for (const entry of refused)
    progress.note(`Skipped ${entry.path} (${entry.reason.replace(/\.$/, '')}); your copy was kept.`);
  const list = written.length === 0 ? 'no files' : written.join(', ');
  progress.note(`Wrote the fix to ${dir}: ${list}. Review it with \`git diff\`.`);
}

async function existingDirectory(dir: string): Promise<string> {
  const absolute = resolve(dir);
  const isDirectory = await stat(absolute).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!isDirectory) {
    throw new UsageError(`--dir "${dir}" is not a folder. Give the folder that holds the code to fix.`);
  }
  return absolute;
}

/** Problems the person fixes before running again, as opposed to a run that did not work out. */
function isSetupProblem(error: unknown): boolean {
  return (
    error instanceof UsageError ||
    error instanceof ConfigError ||
    error instanceof RepoConfigFileError ||
    error instanceof ModelAuthError ||
    error instanceof ModelUnreachableError ||
    error instanceof ReplayTooShortError ||
    error instanceof EngineUnreachableError ||
    error instanceof ImageNotFoundError ||
    error instanceof ImagePullError ||
    error instanceof ImageNotAllowedError ||
    error instanceof EnvironmentSetupError
  );
}
