import type { CodeHost } from '../code-host/code-host.js';
import type { DerivedEnvironment } from '../environment/derive-environment.js';
import type { ToolchainImageMap } from '../environment/toolchain-images.js';
import type { LoopMode } from '../loop/loop-session.js';
import type { DebugTask } from '../loop/task.js';

/**
 * Everything selfdebug knows about one kind of trigger (a mention, a failed
 * workflow run, a review, the Action's failed run), in one module per kind:
 * how its jobs queue, where a job reads and pushes, what the model is told,
 * whether its pushes are automatic rounds, and how the reports name it.
 * The switch sites (the queue, the runner, the reports, the Action) ask the
 * registry for the module of a trigger's `kind`; a new kind is a new module
 * and one line in `BUILTIN_TRIGGERS` (src/triggers/index.ts).
 */
export interface TriggerModule<T extends { kind: string }> {
  readonly kind: T['kind'];
  /** The issue or pull request the request names (where the job reports), if any. */
  issueNumber(trigger: T): number | null;
  /** What jobs queue behind each other for: two jobs with one key never run at once. */
  serialKey(trigger: T): string;
  /** The branch the request reads: new pushes to it make a job pinned to a commit stale. */
  branch(trigger: T): string | null;
  /** How the loop works: a review asks for changes to a fix that may already pass; `explain` changes nothing. */
  loopMode(trigger: T): LoopMode;
  /** Where the job reads and where its fix goes, asking the host what the trigger did not say. */
  target(request: TriggerRequest<T>, host: CodeHost): Promise<TriggerTarget>;
  /** What the model is told and which command proves the fix. */
  task(request: TriggerRequest<T>, host: CodeHost, settings: TaskSettings): Promise<PreparedTask>;
  /**
   * True when a push answers a failure nobody asked about by hand: its commit
   * carries the round trailer, and the checkout refuses another round on the
   * App's own branch once the repository's cap is reached.
   */
  readonly automatic: boolean;
  /** One sentence naming the trigger, for the status comment, the check run and the pull request. */
  describe(trigger: T, requestedBy: string, md: TriggerWriter): string;
  /** The issue a merged pull request closes, if any. */
  issueToClose(trigger: T): number | null;
}

/** How the loop works for a trigger; the runner and the reports both ask. */
export type { LoopMode };

/** What a module reads of a job's request (the queue's `JobRequest` has these fields and more). */
export interface TriggerRequest<T> {
  id: string;
  repository: { owner: string; name: string };
  /** The commit to debug; null when the job resolves it on start. */
  headSha: string | null;
  /** Where a pull request would go. */
  baseBranch: string;
  options: { command?: string };
  trigger: T;
}

/** Where a job reads and where its fix goes. */
export interface TriggerTarget {
  headSha: string;
  /** Branch the commit is fetched from. */
  ref: string;
  /** The branch the fix is pushed to; always under `selfdebug/`. */
  workBranch: string;
  /** True when the work branch already exists (a PR the App opened): commits go on top. */
  ownBranch: boolean;
  /** Base of the pull request. */
  baseBranch: string;
  existingPull: number | null;
}

/** The repository's settings a task reads. */
export interface TaskSettings {
  /** The command to run: the request's, else the configuration's; the trigger finds one when there is none. */
  command: string | undefined;
  setupCommands: string[];
  toolchainImages: ToolchainImageMap | undefined;
}

export interface PreparedTask {
  task: DebugTask;
  /** Files to write into the workspace before the job (an issue's code blocks). */
  scripts: { path: string; content: string }[];
  /** For a failed run: the failing job's image, setup steps and services, read from its workflow file. */
  derived?: DerivedEnvironment | null;
}

/**
 * The part of the report's Markdown writer a sentence needs: text from
 * outside (names, logins) goes through it, redacted and sanitised.
 */
export interface TriggerWriter {
  line(text: string, maxChars?: number): string;
  code(text: string, maxChars?: number): string;
}

/** The job id's first eight letters and digits, lower-cased: part of a work branch's name. */
export function shortJobId(id: string): string {
  return id
    .replace(/[^a-z0-9]/gi, '')
    .slice(0, 8)
    .toLowerCase();
}
