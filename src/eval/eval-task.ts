import type { Edit } from '../loop/schemas.js';

/**
 * One task of an eval suite: a broken workspace, the command whose success
 * proves the fix, and the known fix (the oracle) that scripted models replay.
 */
export interface EvalTask {
  /** Unique within its suite; the key of its row in the results file. */
  name: string;
  /** The language or toolchain, shown in the table (python, node, shell, c, go). */
  language: string;
  description: string;
  command: string;
  /** Run offline in the sandbox before the command is reproduced. */
  setup: string[];
  /** Time limit of each run of the command; unset: the sandbox's setting. */
  timeoutSeconds: number | undefined;
  /** Edits that turn the broken workspace into the fixed one. */
  oracle: Edit[];
  /** A host folder holding the broken workspace; the sandbox copies it, so it is never changed. */
  prepare(): Promise<PreparedWorkspace>;
}

interface PreparedWorkspace {
  dir: string;
  /** Removes what `prepare` made; a no-op for folders that live in the repository. */
  dispose(): Promise<void>;
}

export interface EvalSuite {
  /** `quixbugs`, or the folder's name for a folder of tasks. */
  name: string;
  /** The folder the tasks were read from, absolute. */
  source: string;
  tasks: EvalTask[];
}
