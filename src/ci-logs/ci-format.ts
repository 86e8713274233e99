/**
 * The structure CI systems write around a job's output: where steps (or
 * stages, sections, folds, groups) begin, which belong to the runner rather
 * than the project, and how a step or the whole job reports that it failed.
 * Each system documents its own markers; the first one seen names the format,
 * and a log with none is read as plain console output, one step.
 *
 * - GitHub Actions: `##[group]Run <cmd>` … `##[endgroup]`, `##[error]`, `::error …::`,
 *   `Process completed with exit code N`, `Post job cleanup.`
 * - Azure Pipelines: `##[section]Starting: <task>` / `Finishing:`, `##[error]Bash exited with code '1'.`
 * - GitLab CI: `section_start:<unix time>:<name>[options]` / `section_end:…` (each followed by `\r\e[0K`),
 *   `$ <cmd>` echoed by the shell, `ERROR: Job failed: exit code N` after the cleanup sections.
 * - Travis CI: `travis_fold:start:<name>` / `travis_fold:end:`, `travis_time:…`, `$ <cmd>`,
 *   `The command "<cmd>" exited with N.`, `Done. Your build exited with N.`
 * - Jenkins pipelines: `[Pipeline] { (<stage>)`, `[Pipeline] // stage`, `ERROR: script returned exit code N`,
 *   `Finished: FAILURE`.
 * - CircleCI: each run step opens with `#!/bin/bash -eo pipefail` and its command; `Exited with code exit
 *   status N`, `CircleCI received exit code N`, `Too long with no output`.
 * - Buildkite: `~~~ `, `--- ` and `+++ ` open groups, `^^^ +++` expands the one before, the agent's
 *   `Error: The command exited with status N`.
 *
 * This file holds what a marker is; ci-markers.ts reads them.
 */
export type CiSystem =
  | 'github-actions'
  | 'azure-pipelines'
  | 'gitlab'
  | 'travis'
  | 'jenkins'
  | 'circleci'
  | 'buildkite'
  | 'generic';

export type StepPhase = 'setup' | 'run' | 'post';

export type CiMarker =
  /** A step begins; `header` when a script header (Actions: script, `shell:`, `env:`) follows. */
  | { kind: 'step'; title: string | null; phase: StepPhase; header?: boolean; titleNext?: boolean }
  /** `##[group]…` inside a step (an action's own grouping), or the end of a group or header. */
  | { kind: 'group' }
  | { kind: 'endgroup' }
  /**
   * The step (or, with `job`, the job) failed; `exitCode` when the line reports a process exit.
   * A job's verdict comes after the runner's cleanup: it belongs to the last step that ran.
   */
  | { kind: 'error'; exitCode: number | null; job?: boolean; silent?: boolean }
  | { kind: 'warning' }
  /** The runner's own lines after the job's steps: cleanup, the job's end. */
  | { kind: 'epilogue'; exitCode?: number | null }
  /** The stage just begun was skipped (Jenkins: `Stage "Deploy" skipped due to earlier failure(s)`). */
  | { kind: 'skipped' }
  /** A marker that carries nothing for a reader (`travis_time:`, `[Pipeline] }`); `closes` a section or fold. */
  | { kind: 'quiet'; closes?: boolean };

export interface Detected {
  marker: CiMarker;
  system: CiSystem;
}

// `exit code 1`, `exited with code '1'` (Azure), `exited with status 1` (Buildkite), `exited with 1.` (Travis).
const EXIT_CODE = /(?:exit code|exited with code|exit status|exited with status|exited with) '?(-?\d+)'?/;

export function exitCodeOf(message: string): number | null {
  const match = EXIT_CODE.exec(message);
  return match ? Number.parseInt(match[1] ?? '', 10) : null;
}

/** A step's header echoes its script, then `shell:` and `env:` lines, until `##[endgroup]`. */
const SHELL_LINE = /^shell: (.+)$/;

export function shellOf(text: string): string | null {
  const match = SHELL_LINE.exec(text);
  return match ? (match[1] ?? null) : null;
}
