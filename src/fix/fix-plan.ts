import type { EventSink } from '../loop/events.js';
import type { LoopMode } from '../loop/loop-session.js';
import type { LoopResult } from '../loop/run-loop.js';
import type { DebugTask, LoopLimits, ModelPrices } from '../loop/task.js';
import type { LanguageModel } from '../model/language-model.js';
import type { EnvironmentRequest } from '../sandbox/environment.js';
import type { FileReader } from '../sandbox/read-once.js';
import type { Sandbox, SandboxProvider } from '../sandbox/sandbox.js';
import type { CopyBackReport } from '../workspace/copy-back.js';

/**
 * One fix as a door plans it, before anything runs: what to fix, with which
 * settings, in which environment, from which workspace, and where the
 * loop's changed files go. A value: the App's job, the Action, `selfdebug
 * fix` and `selfdebug eval` each compute one and hand it to `runFixPlan`.
 */
export interface FixPlan {
  /** Names the sandbox's containers (and the command that removes them). */
  jobId: string;
  task: DebugTask;
  limits: LoopLimits;
  prices: ModelPrices;
  /** `explain` and `revise` are the App's; every other door fixes. */
  mode?: LoopMode;
  /** The image, setup and services; planned from the checkout, so it may still be in the making. */
  environment?: EnvironmentRequest | Promise<EnvironmentRequest>;
  /** The folder on the host the sandbox copies in (the job's clone may still be in the making). */
  workspace: string | Promise<string>;
  /** When the loop's changed files come back into `workspace`: never, only for a fix, or whatever the outcome. */
  copyBack: 'never' | 'when-fixed' | 'always';
  /**
   * Where the files come back when not into `workspace`, asked for only when they do: the Action's
   * clean checkout of the failed commit, so nothing the job built on the runner is pushed.
   */
  copyBackInto?: () => Promise<string>;
}

/** What the loop left while its sandbox is still open: a delivery may still read files through it. */
export interface FixRan {
  loop: LoopResult;
  sandbox: Sandbox;
  /** The files copied back into the workspace (none when the plan's `copyBack` said not to). */
  copied: CopyBackReport;
  /** The sandbox's files as the copy-back read them: a delivery reading the same files reads each once. */
  files: FileReader;
}

/** The ports a plan runs through, and the door's delivery front, called while the sandbox is open. */
export interface FixPorts<Delivered> {
  sandboxes: SandboxProvider;
  model: LanguageModel;
  /** The loop's events, for the door's report (comments, the terminal's progress). */
  emit?: EventSink;
  /** Lines while the environment is prepared. */
  onProgress?: (line: string) => void;
  signal?: AbortSignal;
  /** Plans and carries out the delivery the door offers (a pull request, a patch file, nothing). */
  deliver: (ran: FixRan) => Promise<Delivered>;
}
