import type { LoopOutcome } from '../loop/events.js';
import type { JobView } from './job-view.js';
import type { MarkdownWriter } from './markdown.js';
import { isFailedRunJob } from './trigger.js';

/**
 * What a person could try after a job that did not end in a fix: general
 * advice for the outcome, plus hints from what the runs show (time limits,
 * memory). Commands and settings are shown as code, so the App never
 * mentions itself or anyone else.
 */
export function nextSteps(view: JobView, md: MarkdownWriter): string[] {
  const outcome = view.finished?.outcome;
  const stepsFor = outcome === undefined ? undefined : STEPS_BY_OUTCOME[outcome];
  const words: StepWords = {
    md,
    handle: view.handle,
    retry: md.code(`@${view.handle} retry`),
    config: md.code('.github/selfdebug.yml'),
    failedRun: isFailedRunJob(view),
  };
  return [...(stepsFor?.(words) ?? []), ...hintsFromRuns(view, md)];
}

/** What every piece of advice may name: the retry command and the config file, written as code. */
interface StepWords {
  md: MarkdownWriter;
  handle: string;
  retry: string;
  config: string;
  /** The job answers a failed CI run, which can be re-run where it failed. */
  failedRun: boolean;
}

/** A failed run whose failure did not come back in the sandbox: the CI's own re-run tells whether it was the CI's. */
const RERUN_THE_FAILED_JOBS =
  'The failure did not reproduce here. Re-run the failed jobs from the run’s page: if they pass, the failure was the CI’s (a runner, the network, a flaky test), not the code’s.';

/** The advice for each outcome that is not a fix; a fix needs none. */
const STEPS_BY_OUTCOME: Partial<Record<LoopOutcome, (words: StepWords) => string[]>> = {
  'not-fixed': ({ md, handle, retry, config }) => [
    "Read the last attempt's comment: its analysis and output show how far the model got, and its diff may be a start.",
    `Give it more attempts: ${md.code(`@${handle} fix max-attempts=10`)}, or ${md.code('max_attempts')} in ${config}.`,
    `Add what the model could not know to the issue (expected behaviour, the right version of a dependency), then ${retry}.`,
  ],
  declined: ({ retry }) => [
    'The retry decision above says why the model stopped; if the cause is outside the code (a service, credentials, the network, which the sandbox does not have), fix that first.',
    `If you disagree, add the missing information to the issue and ask again with ${retry}.`,
  ],
  'budget-exhausted': ({ md, retry, config }) => [
    `Raise ${md.code('budget.max_tokens')}, ${md.code('budget.max_cost_usd')} or ${md.code('budget.max_minutes')} in ${config}, then ${retry}.`,
    'Or narrow the task: name a single failing test as the command, so each run is faster and each prompt smaller.',
  ],
  error: ({ md, retry, config }) => [
    `The reason above names what failed. A failing setup command is fixed in ${md.code('setup')} in ${config}.`,
    `If it looks like a hiccup (the model API, the container), ${retry}; if it keeps failing, report it with the job id below.`,
  ],
  cancelled: ({ retry }) => [`Run it again with ${retry}.`],
  environment: ({ md, retry, config }) => [
    `Make the change the reason above names (${md.code('sandbox.image')}, ${md.code('setup')} or ${md.code('sandbox.allowed_hosts')} in ${config}), then ${retry}.`,
  ],
  flaky: ({ retry }) => [
    'Run the command several times where it failed; look for order-dependent tests, timing, randomness without a seed, shared state, or the network.',
    `Once it fails reliably, ${retry} can work on it.`,
  ],
  'cannot-reproduce': ({ md, handle, config, failedRun }) => [
    ...(failedRun ? [RERUN_THE_FAILED_JOBS] : []),
    'The sandbox differs from where it failed: compare environment variables, services, the network (the sandbox has none), the image, and the exact command.',
    `Name the failing command explicitly, e.g. ${md.code(`@${handle} fix \`pytest tests/test_io.py\``)}, or set ${md.code('command')} in ${config}.`,
  ],
  explained: ({ md, handle }) => [`To let the App try a fix, ask with ${md.code(`@${handle} fix`)}.`],
};

function hintsFromRuns(view: JobView, md: MarkdownWriter): string[] {
  const runs = [
    ...view.setup.map((run) => run.result),
    ...(view.reproduction?.runs ?? []),
    ...view.attempts.flatMap((attempt) => (attempt.run ? [attempt.run.result] : [])),
  ];
  const hints: string[] = [];
  if (runs.some((run) => run.end === 'timed-out')) {
    hints.push(
      `Some runs hit the time limit: raise ${md.code('sandbox.timeout_seconds')} in ${md.code('.github/selfdebug.yml')} or add ${md.code('timeout=600')} to the request.`,
    );
  }
  if (runs.some((run) => run.end === 'oom-killed')) {
    hints.push(
      `Some runs ran out of memory: raise ${md.code('sandbox.memory_mb')} in ${md.code('.github/selfdebug.yml')}.`,
    );
  }
  return hints;
}
