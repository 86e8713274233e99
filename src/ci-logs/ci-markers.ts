import { type CiMarker, type CiSystem, type Detected, exitCodeOf, type StepPhase } from './ci-format.js';

// Called as `charCodeAt.call(text, i)`: see "String methods" in docs/ci-logs.md for why.
const { charCodeAt, startsWith, trim } = String.prototype;

/**
 * Reads the markers ci-format.ts describes. Every line a reader can know opens
 * with one of a few characters, so readers are filed by that character and a
 * line tries only its own few, in order: this runs on every line read closely.
 */
type Reader = (text: string, system: CiSystem, echoed: boolean) => Detected | null;

/**
 * The marker at the start of a stripped line (timestamps and colour codes gone),
 * or null when the line is ordinary output. `system` is the format seen so far:
 * some openers (`--- `, `$ `) are markers only in the system that writes them. `echoed`
 * says the runner itself echoed a `$ <cmd>` line (GitLab paints its echo green; Travis
 * opens a `travis_time:` span right before it), not a tool such as yarn.
 */
export function ciMarker(text: string, system: CiSystem, echoed = false): Detected | null {
  const first = charCodeAt.call(text, 0);
  const readers = READERS[first] ?? (first > 0x7f ? NON_ASCII : NONE);
  for (const read of readers) {
    const found = read(text, system, echoed);
    if (found !== null) return found;
  }
  return null;
}

const detected = (marker: CiMarker, system: CiSystem): Detected => ({ marker, system });
const step = (title: string, phase: StepPhase): CiMarker => ({ kind: 'step', title, phase });
const exitError = (code: number, job?: boolean): CiMarker => ({
  kind: 'error',
  exitCode: code,
  ...(job === undefined ? {} : { job }),
});
const codeOf = (digits: string | undefined): number => Number.parseInt(digits ?? '', 10);
/** Markers another system's logs also write count for that system once it is known. */
const or = (system: CiSystem, fallback: CiSystem): CiSystem => (system === 'generic' ? fallback : system);

// GitHub Actions and Azure Pipelines.
const ACTIONS_MARKER = /^##\[([a-z]+)\](.*)$/;
// `::error file=app.js,line=1::Missing semicolon`, as other tools echo workflow commands.
const WORKFLOW_COMMAND = /^::(error|warning|notice)(?: [^:]*)?::(.*)$/;
const AZURE_SETUP = /^(?:Initialize job|Initialize containers|Checkout\b|Pre-job:)/;
const AZURE_POST = /^(?:Post-job:|Finalize Job|Finalize job)/;

function actionsMarker(text: string, system: CiSystem): Detected | null {
  if (charCodeAt.call(text, 1) !== 35) return null;
  const match = ACTIONS_MARKER.exec(text);
  if (!match) return null;
  const [, command = '', message = ''] = match;
  const actions = or(system, 'github-actions');
  switch (command) {
    case 'group':
      return detected(
        startsWith.call(message, 'Run ')
          ? { kind: 'step', title: trim.call(message), phase: 'run', header: true }
          : { kind: 'group' },
        actions,
      );
    case 'section': {
      // Azure Pipelines writes `##[section]Starting: <task>` where Actions writes a group.
      if (!startsWith.call(message, 'Starting: ')) return detected({ kind: 'quiet' }, 'azure-pipelines');
      const title = message.slice(10).trim();
      return detected(step(title, phaseOf(title, AZURE_SETUP, AZURE_POST)), 'azure-pipelines');
    }
    case 'endgroup':
      return detected({ kind: 'endgroup' }, actions);
    case 'error':
      return detected({ kind: 'error', exitCode: exitCodeOf(message) }, actions);
    case 'warning':
      return detected({ kind: 'warning' }, actions);
    default:
      return detected({ kind: 'quiet' }, actions);
  }
}

function workflowCommand(text: string, system: CiSystem): Detected | null {
  const match = WORKFLOW_COMMAND.exec(text);
  if (!match) return null;
  const marker: CiMarker = match[1] === 'error' ? { kind: 'error', exitCode: null } : { kind: 'warning' };
  return detected(marker, or(system, 'github-actions'));
}

const postJobCleanup: Reader = (text, system) =>
  text === 'Post job cleanup.' ? detected({ kind: 'epilogue' }, system) : null;

const orphanCleanup: Reader = (text, system) =>
  startsWith.call(text, 'Cleaning up orphan processes') ? detected({ kind: 'epilogue' }, system) : null;

// GitLab CI.
const GITLAB_SECTION = /^section_(start|end):\d+:([\w.-]+)/;
const GITLAB_SETUP =
  /^(?:resolve_secrets|prepare_executor|prepare_script|get_sources|clear_worktree|restore_cache|download_artifacts)$/;
const GITLAB_POST =
  /^(?:after_script|archive_cache|archive_cache_on_failure|upload_artifacts_on_success|upload_artifacts_on_failure|cleanup_file_variables|cleanup)/;
const GITLAB_JOB_FAILED = /^ERROR: Job failed\b/;
const GITLAB_CLEANUP = /^Cleaning up (?:project directory and )?file based variables/;

function gitlabSection(text: string): Detected | null {
  const match = GITLAB_SECTION.exec(text);
  if (!match) return null;
  const name = match[2] ?? '';
  if (match[1] === 'end') return detected({ kind: 'quiet', closes: true }, 'gitlab');
  return detected(step(name, phaseOf(name, GITLAB_SETUP, GITLAB_POST)), 'gitlab');
}

const gitlabScriptStage: Reader = (text, system) =>
  system === 'gitlab' && startsWith.call(text, 'Executing "step_script" stage')
    ? detected(step('step_script', 'run'), system)
    : null;

const gitlabJobFailed: Reader = (text) =>
  GITLAB_JOB_FAILED.test(text)
    ? detected({ kind: 'error', exitCode: exitCodeOf(text), job: true }, 'gitlab')
    : null;

// GitLab's last section, also in logs copied from its web page without their markers.
const gitlabCleanup: Reader = (text, system) =>
  GITLAB_CLEANUP.test(text) ? detected({ kind: 'epilogue' }, or(system, 'gitlab')) : null;

// GitLab's first line, and its after_script, in logs with or without their section markers.
function gitlabRunner(text: string, system: CiSystem): Detected | null {
  if (startsWith.call(text, 'Running with gitlab-runner')) return detected({ kind: 'quiet' }, 'gitlab');
  if (system === 'gitlab' && startsWith.call(text, 'Running after_script'))
    return detected(step('after_script', 'post'), system);
  return null;
}

/** The shell's echo of a command: a step of its own where the runner echoes each command of the script. */
const shellEcho: Reader = (text, system, echoed) =>
  charCodeAt.call(text, 1) === 32 && echoed && (system === 'gitlab' || system === 'travis')
    ? detected(step(trim.call(text), 'run'), system)
    : null;

// Travis CI.
const TRAVIS_FOLD = /^travis_(fold|time):(start|end):([\w.-]*)/;
const TRAVIS_SETUP =
  /^(?:worker_info|system_info|docker_mtu|resolvconf|services|git\.|apt|rvm|nvm|jdk|gimme|rustup|python|virtualenv|hosts|ssh_key|install_jdk|update_|announce|setup_|disable_)/;
const TRAVIS_POST = /^(?:cache\.|after_success|after_script|deploy)/;
const TRAVIS_COMMAND_EXITED = /^The command ".*" (?:exited with|failed and exited with) (-?\d+)/;
const TRAVIS_DONE = /^Done\. Your build exited with (-?\d+)\./;

function travisFold(text: string): Detected | null {
  const match = TRAVIS_FOLD.exec(text);
  if (!match) return null;
  const [, type, edge, name = ''] = match;
  if (type === 'time') return detected({ kind: 'quiet' }, 'travis');
  if (edge === 'end') return detected({ kind: 'quiet', closes: true }, 'travis');
  return detected(step(name, phaseOf(name, TRAVIS_SETUP, TRAVIS_POST)), 'travis');
}

function travisCommandExited(text: string, system: CiSystem): Detected | null {
  const exited = TRAVIS_COMMAND_EXITED.exec(text);
  if (!exited) return null;
  // Travis runs every command of `script:`, and reports each: `exited with 0.` is no failure.
  const code = codeOf(exited[1]);
  const marker = code === 0 ? { kind: 'quiet' as const } : exitError(code);
  return detected(marker, or(system, 'travis'));
}

function travisDone(text: string): Detected | null {
  const done = TRAVIS_DONE.exec(text);
  if (!done) return null;
  const code = codeOf(done[1]);
  return detected(code === 0 ? { kind: 'epilogue' } : exitError(code, true), 'travis');
}

// Jenkins pipelines.
const JENKINS_STAGE = /^\[Pipeline\] \{ \((.+)\)$/;
const JENKINS_SETUP = /^Declarative: (?:Checkout|Tool Install|Agent Setup)/;
const JENKINS_POST = /^Declarative: Post/;
const JENKINS_SCRIPT_EXIT = /^ERROR: script returned exit code (-?\d+)/;
const JENKINS_FINISHED = /^Finished: ([A-Z_]+)$/;

function jenkinsPipeline(text: string): Detected | null {
  if (!startsWith.call(text, '[Pipeline] ')) return null;
  const stage = JENKINS_STAGE.exec(text);
  if (!stage) return detected({ kind: 'quiet' }, 'jenkins');
  const title = stage[1] ?? '';
  return detected(step(title, phaseOf(title, JENKINS_SETUP, JENKINS_POST)), 'jenkins');
}

function jenkinsScriptExit(text: string, system: CiSystem): Detected | null {
  const script = JENKINS_SCRIPT_EXIT.exec(text);
  // Jenkins prints the step's error when the pipeline ends, after the post actions.
  return script ? detected(exitError(codeOf(script[1]), system === 'jenkins'), 'jenkins') : null;
}

function jenkinsFinished(text: string, system: CiSystem): Detected | null {
  const finished = JENKINS_FINISHED.exec(text);
  if (!finished || system !== 'jenkins') return null;
  const failed: CiMarker = { kind: 'error', exitCode: null, job: true };
  return detected(finished[1] === 'SUCCESS' ? { kind: 'epilogue' } : failed, system);
}

const jenkinsSkipped: Reader = (text, system) =>
  system === 'jenkins' && startsWith.call(text, 'Stage "') && text.includes('" skipped due to')
    ? detected({ kind: 'skipped' }, system)
    : null;

// CircleCI.
const CIRCLE_EXIT = /^(?:Exited with code (?:exit status )?|CircleCI received exit code )(-?\d+)/;

const circleStep: Reader = (text) =>
  startsWith.call(text, '#!/bin/bash -eo pipefail') || startsWith.call(text, '#!/bin/sh -eo pipefail')
    ? detected({ kind: 'step', title: null, phase: 'run', titleNext: true }, 'circleci')
    : null;

function circleExit(text: string): Detected | null {
  const circle = CIRCLE_EXIT.exec(text);
  return circle ? detected(exitError(codeOf(circle[1])), 'circleci') : null;
}

const circleNoOutput: Reader = (text, system) =>
  startsWith.call(text, 'Too long with no output')
    ? detected({ kind: 'error', exitCode: null }, or(system, 'circleci'))
    : null;

// Buildkite.
const BUILDKITE_GROUP = /^(~~~|---|\+\+\+) (.*)$/;
const BUILDKITE_SETUP =
  /^(?:Preparing working directory|Running (?:global|agent|local|plugin) (?:\S+ )?(?:environment|pre-checkout|checkout|post-checkout|pre-command)\b|Setting up plugins|Setting up the environment|Running agent environment hook|Preparing plugins)/;
const BUILDKITE_POST =
  /^(?:Running (?:global |local |plugin )?(?:\S+ )?(?:pre-exit|post-command|post-artifact)\b|Uploading artifacts)/;
const GO_VERDICT = /^--- (?:PASS|FAIL|SKIP): |^--- (?:a|b)\//;
const BUILDKITE_ERROR = /^(?:\S+ )?Error: The command exited with status (-?\d+)/;

/** `~~~ ` opens a Buildkite group in any log; `--- ` and `+++ ` (diff headers elsewhere) only in Buildkite's. */
function buildkiteGroup(text: string, system: CiSystem): Detected | null {
  const first = charCodeAt.call(text, 0);
  if (first !== 126 && system !== 'buildkite') return null;
  // Not go test's verdicts (`--- FAIL: TestX`) nor a diff's headers (`--- a/file`).
  if (first === 45 && GO_VERDICT.test(text)) return null;
  const match = BUILDKITE_GROUP.exec(text);
  if (!match) return null;
  const title = (match[2] ?? '').trim();
  return detected(step(title, phaseOf(title, BUILDKITE_SETUP, BUILDKITE_POST)), 'buildkite');
}

/** Buildkite: expand the group before, which holds the failure. */
const buildkiteExpand: Reader = (text) =>
  startsWith.call(text, '^^^ +++')
    ? detected({ kind: 'error', exitCode: null, silent: true }, 'buildkite')
    : null;

/** The agent's own error, after the emoji it opens with. */
function buildkiteError(text: string): Detected | null {
  const error = BUILDKITE_ERROR.exec(text);
  return error ? detected(exitError(codeOf(error[1])), 'buildkite') : null;
}

function phaseOf(title: string, setup: RegExp, post: RegExp): StepPhase {
  return setup.test(title) ? 'setup' : post.test(title) ? 'post' : 'run';
}

const NONE: readonly Reader[] = [];
const NON_ASCII: readonly Reader[] = [buildkiteError];
const READERS: (readonly Reader[] | undefined)[] = [];
for (const [opening, readers] of [
  ['#', [actionsMarker, circleStep]],
  [':', [workflowCommand]],
  ['s', [gitlabSection]],
  ['t', [travisFold]],
  ['$', [shellEcho]],
  ['[', [jenkinsPipeline]],
  ['E', [gitlabScriptStage, gitlabJobFailed, jenkinsScriptExit, circleExit]],
  ['C', [circleExit, orphanCleanup, gitlabCleanup]],
  ['T', [travisCommandExited, circleNoOutput]],
  ['D', [travisDone]],
  ['F', [jenkinsFinished]],
  ['S', [jenkinsSkipped]],
  ['R', [gitlabRunner]],
  ['P', [postJobCleanup]],
  ['^', [buildkiteExpand]],
  ['~', [buildkiteGroup]],
  ['-', [buildkiteGroup]],
  ['+', [buildkiteGroup]],
] as const) {
  READERS[charCodeAt.call(opening, 0)] = readers;
}
