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

const ACTIONS_MARKER = /^##\[([a-z]+)\](.*)$/;
// `::error file=app.js,line=1::Missing semicolon`, as other tools echo workflow commands.
const WORKFLOW_COMMAND = /^::(error|warning|notice)(?: [^:]*)?::(.*)$/;
// `exit code 1`, `exited with code '1'` (Azure), `exited with status 1` (Buildkite), `exited with 1.` (Travis).
const EXIT_CODE = /(?:exit code|exited with code|exit status|exited with status|exited with) '?(-?\d+)'?/;

const GITLAB_SECTION = /^section_(start|end):\d+:([\w.-]+)/;
const GITLAB_SETUP = new Set([
  'resolve_secrets',
  'prepare_executor',
  'prepare_script',
  'get_sources',
  'clear_worktree',
  'restore_cache',
  'download_artifacts',
]);
const GITLAB_POST =
  /^(?:after_script|archive_cache|archive_cache_on_failure|upload_artifacts_on_success|upload_artifacts_on_failure|cleanup_file_variables|cleanup)/;
const GITLAB_JOB_FAILED = /^ERROR: Job failed\b/;

const TRAVIS_FOLD = /^travis_(fold|time):(start|end):([\w.-]*)/;
const TRAVIS_SETUP =
  /^(?:worker_info|system_info|docker_mtu|resolvconf|services|git\.|apt|rvm|nvm|jdk|gimme|rustup|python|virtualenv|hosts|ssh_key|install_jdk|update_|announce|setup_|disable_)/;
const TRAVIS_POST = /^(?:cache\.|after_success|after_script|deploy)/;
const TRAVIS_COMMAND_EXITED = /^The command ".*" (?:exited with|failed and exited with) (-?\d+)/;
const TRAVIS_DONE = /^Done\. Your build exited with (-?\d+)\./;

const JENKINS_STAGE = /^\[Pipeline\] \{ \((.+)\)$/;
const JENKINS_SCRIPT_EXIT = /^ERROR: script returned exit code (-?\d+)/;
const JENKINS_FINISHED = /^Finished: ([A-Z_]+)$/;

const CIRCLE_EXIT = /^(?:Exited with code (?:exit status )?|CircleCI received exit code )(-?\d+)/;

const BUILDKITE_GROUP = /^(~~~|---|\+\+\+) (.*)$/;
const BUILDKITE_SETUP =
  /^(?:Preparing working directory|Running (?:global|agent|local|plugin) (?:\S+ )?(?:environment|pre-checkout|checkout|post-checkout|pre-command)\b|Setting up plugins|Setting up the environment|Running agent environment hook|Preparing plugins)/;
const BUILDKITE_POST =
  /^(?:Running (?:global |local |plugin )?(?:\S+ )?(?:pre-exit|post-command|post-artifact)\b|Uploading artifacts)/;
const GO_VERDICT = /^--- (?:PASS|FAIL|SKIP): |^--- (?:a|b)\//;
const BUILDKITE_ERROR = /^(?:\S+ )?Error: The command exited with status (-?\d+)/;

/**
 * The marker at the start of a stripped line (timestamps and colour codes gone),
 * or null when the line is ordinary output. `system` is the format seen so far:
 * some openers (`--- `, `$ `) are markers only in the system that writes them. `echoed`
 * says the runner itself echoed a `$ <cmd>` line (GitLab paints its echo green; Travis
 * opens a `travis_time:` span right before it), not a tool such as yarn.
 */
export function ciMarker(text: string, system: CiSystem, echoed = false): Detected | null {
  const first = text.charCodeAt(0);
  switch (first) {
    case 35 /* # */:
      if (text.charCodeAt(1) === 35) return actionsMarker(text, system);
      if (text.startsWith('#!/bin/bash -eo pipefail') || text.startsWith('#!/bin/sh -eo pipefail')) {
        return { marker: { kind: 'step', title: null, phase: 'run', titleNext: true }, system: 'circleci' };
      }
      return null;
    case 58 /* : */:
      {
        const match = WORKFLOW_COMMAND.exec(text);
        if (!match) return null;
        return {
          marker: match[1] === 'error' ? { kind: 'error', exitCode: null } : { kind: 'warning' },
          system: system === 'generic' ? 'github-actions' : system,
        };
      }
    case 115 /* s */:
      {
        const match = GITLAB_SECTION.exec(text);
        if (!match) return null;
        const name = match[2] ?? '';
        if (match[1] === 'end') return { marker: { kind: 'quiet', closes: true }, system: 'gitlab' };
        const phase = GITLAB_SETUP.has(name) ? 'setup' : GITLAB_POST.test(name) ? 'post' : 'run';
        return { marker: { kind: 'step', title: name, phase }, system: 'gitlab' };
      }
    case 116 /* t */:
      {
        const match = TRAVIS_FOLD.exec(text);
        if (!match) return null;
        const [, type, edge, name = ''] = match;
        if (type === 'time') return { marker: { kind: 'quiet' }, system: 'travis' };
        if (edge === 'end') return { marker: { kind: 'quiet', closes: true }, system: 'travis' };
        const phase = TRAVIS_SETUP.test(name) ? 'setup' : TRAVIS_POST.test(name) ? 'post' : 'run';
        return { marker: { kind: 'step', title: name, phase }, system: 'travis' };
      }
    case 36 /* $ */:
      // The shell's echo of a command: a step of its own where the runner echoes each command of the script.
      if (text.charCodeAt(1) === 32 && echoed && (system === 'gitlab' || system === 'travis')) {
        return { marker: { kind: 'step', title: text.trim(), phase: 'run' }, system };
      }
      return null;
    case 91 /* [ */:
      if (!text.startsWith('[Pipeline] ')) return null;
      {
        const stage = JENKINS_STAGE.exec(text);
        if (stage) {
          const title = stage[1] ?? '';
          const phase = /^Declarative: (?:Checkout|Tool Install|Agent Setup)/.test(title)
            ? 'setup'
            : title.startsWith('Declarative: Post')
              ? 'post'
              : 'run';
          return { marker: { kind: 'step', title, phase }, system: 'jenkins' };
        }
      }
      return { marker: { kind: 'quiet' }, system: 'jenkins' };
    case 69 /* E */:
      {
        if (system === 'gitlab' && text.startsWith('Executing "step_script" stage')) {
          return { marker: { kind: 'step', title: 'step_script', phase: 'run' }, system };
        }
        if (text.startsWith('ERROR: Job failed')) {
          if (!GITLAB_JOB_FAILED.test(text)) return null;
          return { marker: { kind: 'error', exitCode: exitCodeOf(text), job: true }, system: 'gitlab' };
        }
        const script = JENKINS_SCRIPT_EXIT.exec(text);
        if (script) {
          // Jenkins prints the step's error when the pipeline ends, after the post actions.
          return {
            marker: {
              kind: 'error',
              exitCode: Number.parseInt(script[1] ?? '', 10),
              job: system === 'jenkins',
            },
            system: 'jenkins',
          };
        }
        const circle = CIRCLE_EXIT.exec(text);
        if (circle) {
          return {
            marker: { kind: 'error', exitCode: Number.parseInt(circle[1] ?? '', 10) },
            system: 'circleci',
          };
        }
        return null;
      }
    case 67 /* C */:
      {
        const circle = CIRCLE_EXIT.exec(text);
        if (circle) {
          return {
            marker: { kind: 'error', exitCode: Number.parseInt(circle[1] ?? '', 10) },
            system: 'circleci',
          };
        }
        if (text.startsWith('Cleaning up orphan processes')) return { marker: { kind: 'epilogue' }, system };
        // GitLab's last section, also in logs copied from its web page without their markers.
        if (/^Cleaning up (?:project directory and )?file based variables/.test(text)) {
          return { marker: { kind: 'epilogue' }, system: system === 'generic' ? 'gitlab' : system };
        }
        return null;
      }
    case 84 /* T */:
      {
        const exited = TRAVIS_COMMAND_EXITED.exec(text);
        if (exited) {
          // Travis runs every command of `script:`, and reports each: `exited with 0.` is no failure.
          const exitCode = Number.parseInt(exited[1] ?? '', 10);
          return {
            marker: exitCode === 0 ? { kind: 'quiet' } : { kind: 'error', exitCode },
            system: system === 'generic' ? 'travis' : system,
          };
        }
        if (text.startsWith('Too long with no output')) {
          return {
            marker: { kind: 'error', exitCode: null },
            system: system === 'generic' ? 'circleci' : system,
          };
        }
        return null;
      }
    case 68 /* D */:
      {
        const done = TRAVIS_DONE.exec(text);
        if (!done) return null;
        const exitCode = Number.parseInt(done[1] ?? '', 10);
        return {
          marker: exitCode === 0 ? { kind: 'epilogue' } : { kind: 'error', exitCode, job: true },
          system: 'travis',
        };
      }
    case 70 /* F */:
      {
        const finished = JENKINS_FINISHED.exec(text);
        if (!finished || system !== 'jenkins') return null;
        return {
          marker:
            finished[1] === 'SUCCESS' ? { kind: 'epilogue' } : { kind: 'error', exitCode: null, job: true },
          system,
        };
      }
    case 83 /* S */:
      if (system === 'jenkins' && text.startsWith('Stage "') && text.includes('" skipped due to')) {
        return { marker: { kind: 'skipped' }, system };
      }
      return null;
    case 82 /* R */:
      // GitLab's first line, and its after_script, in logs with or without their section markers.
      if (text.startsWith('Running with gitlab-runner'))
        return { marker: { kind: 'quiet' }, system: 'gitlab' };
      if (system === 'gitlab' && text.startsWith('Running after_script')) {
        return { marker: { kind: 'step', title: 'after_script', phase: 'post' }, system };
      }
      return null;
    case 80 /* P */:
      if (text === 'Post job cleanup.') return { marker: { kind: 'epilogue' }, system };
      return null;
    case 94 /* ^ */:
      // Buildkite: expand the group before, which holds the failure.
      if (text.startsWith('^^^ +++')) {
        return { marker: { kind: 'error', exitCode: null, silent: true }, system: 'buildkite' };
      }
      return null;
    case 126 /* ~ */:
    case 45 /* - */:
    case 43 /* + */:
      {
        // `~~~ ` opens a Buildkite group in any log; `--- ` and `+++ ` (diff headers elsewhere) only in Buildkite's.
        if (first !== 126 && system !== 'buildkite') return null;
        // Not go test's verdicts (`--- FAIL: TestX`) nor a diff's headers (`--- a/file`).
        if (first === 45 && GO_VERDICT.test(text)) return null;
        const match = BUILDKITE_GROUP.exec(text);
        if (!match) return null;
        const title = (match[2] ?? '').trim();
        const phase = BUILDKITE_SETUP.test(title) ? 'setup' : BUILDKITE_POST.test(title) ? 'post' : 'run';
        return { marker: { kind: 'step', title, phase }, system: 'buildkite' };
      }
    default: {
      const error = BUILDKITE_ERROR.exec(text);
      if (error && first > 0x7f) {
        return {
          marker: { kind: 'error', exitCode: Number.parseInt(error[1] ?? '', 10) },
          system: 'buildkite',
        };
      }
      return null;
    }
  }
}

const AZURE_SETUP = /^(?:Initialize job|Initialize containers|Checkout\b|Pre-job:)/;
const AZURE_POST = /^(?:Post-job:|Finalize Job|Finalize job)/;

function actionsMarker(text: string, system: CiSystem): Detected | null {
  const match = ACTIONS_MARKER.exec(text);
  if (!match) return null;
  const [, command = '', message = ''] = match;
  const actions = system === 'generic' ? 'github-actions' : system;
  switch (command) {
    case 'group':
      return {
        marker: message.startsWith('Run ')
          ? { kind: 'step', title: message.trim(), phase: 'run', header: true }
          : { kind: 'group' },
        system: actions,
      };
    case 'section': {
      // Azure Pipelines writes `##[section]Starting: <task>` where Actions writes a group.
      if (!message.startsWith('Starting: ')) return { marker: { kind: 'quiet' }, system: 'azure-pipelines' };
      const title = message.slice(10).trim();
      const phase = AZURE_SETUP.test(title) ? 'setup' : AZURE_POST.test(title) ? 'post' : 'run';
      return { marker: { kind: 'step', title, phase }, system: 'azure-pipelines' };
    }
    case 'endgroup':
      return { marker: { kind: 'endgroup' }, system: actions };
    case 'error':
      return { marker: { kind: 'error', exitCode: exitCodeOf(message) }, system: actions };
    case 'warning':
      return { marker: { kind: 'warning' }, system: actions };
    default:
      return { marker: { kind: 'quiet' }, system: actions };
  }
}

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
