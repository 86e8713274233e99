import { type CiRun, type CiVerdict, decideCiVerdictNow, hasFailed } from '../ci-verdict/ci-verdict.js';
import type { ActionCodeHost, CiHost, RunJob } from '../code-host/code-host.js';
import type { RepoConfig } from '../config/repo-config.js';
import { ciVerdictWaitMs } from '../config/repo-config-mappers.js';
import { writeCiVerdict } from '../jobs/ci-verdict-writer.js';
import type { LoggedWrite } from '../jobs/logged-write.js';
import { ciVerdictCheckRun, ciVerdictSection, type Redactor } from '../report/index.js';
import type { FailedRun } from './event.js';
import type { RunnerContext } from './inputs.js';
import { appendSummary } from './report-files.js';
import { commandText } from './workflow-command.js';

/** What judging a run on one of the Action's own `selfdebug/` branches reads and writes through. */
export interface OwnBranchRun {
  host: ActionCodeHost & CiHost;
  runner: RunnerContext;
  /** The run the Action was started for: this run in the failed job, the triggering one in a workflow_run workflow. */
  failed: FailedRun;
  config: RepoConfig;
  redactor: Redactor;
  io: { log: (line: string) => void };
}

/** The verdict on the fix's commit, and whether the run the Action was started for is one that failed. */
interface OwnBranchJudgement {
  verdict: CiVerdict | null;
  /** Only then is there something to debug: the next round, within `max_rounds`. */
  debug: boolean;
}

/**
 * The Action runs again on its own pull request's CI (docs/ci-verdict.md, "The Action"): it judges the
 * commit it pushed from the workflow runs GitHub lists for it, with its own run left out (still running)
 * unless it is running because a step of that run failed. A decided verdict is written where the App
 * writes it (the pull request's body, the `selfdebug: your CI` check run) and in the job summary. Returns
 * why the run stops here, or null to debug the failure as the next round: a passing run, or one whose
 * CI has not finished, is never "fixed".
 */
export async function judgeOwnBranch(run: OwnBranchRun): Promise<string | null> {
  const { verdict, debug } = await judge(run);
  const sha = (verdict?.sha ?? commitOf(run.failed)).slice(0, 7);
  const which = `the run of ${run.failed.workflowName} on selfdebug's own branch ${run.failed.branch}`;
  if (verdict === null) {
    return (
      `${which} has not failed and the CI on ${sha} has not finished: nothing to fix; a later run of ` +
      'selfdebug on the branch records the verdict.'
    );
  }
  run.io.log(`selfdebug: ${verdictWords(verdict, run.redactor)}`);
  await record(run, verdict);
  if (debug) return null;
  return `${which} did not fail: nothing to fix.`;
}

/** The pushed commit's runs as the Action sees them now, decided by the App's rules for a judge that cannot wait. */
async function judge(run: OwnBranchRun): Promise<OwnBranchJudgement> {
  const { host, runner, failed } = run;
  const sha = commitOf(failed);
  const listed = await host.ciRuns(sha);
  const ownId = runner.GITHUB_RUN_ID;
  // In the failed job this run is the one being judged: still running, but failed once a step has.
  const ours = !failed.separate && ownId !== undefined && runFailed((await host.workflowRun(ownId)).jobs);
  const runs: CiRun[] = [
    ...listed.runs.filter((listedRun) => listedRun.id !== ownId),
    ...(ours && ownId !== undefined ? [ownRun(runner, ownId)] : []),
  ];
  const verdict = decideCiVerdictNow(sha, runs);
  const debug = runs.some((candidate) => candidate.id === failed.runId && hasFailed(candidate));
  return { verdict, debug };
}

/** The commit the Action pushed: a pull_request run is on a merge commit, its head is the pushed one. */
function commitOf(failed: FailedRun): string {
  return failed.pullRequest?.headSha ?? failed.sha;
}

/** A run failed once any of its jobs (or a step of a job still running, such as this one) has. */
function runFailed(jobs: readonly RunJob[]): boolean {
  return jobs.some(
    (job) => job.conclusion === 'failure' || job.steps.some((step) => step.conclusion === 'failure'),
  );
}

/** This run as the verdict counts it once a step has failed: it can only end `failure`. */
function ownRun(runner: RunnerContext, id: number): CiRun {
  const url = `${runner.GITHUB_SERVER_URL}/${runner.GITHUB_REPOSITORY}/actions/runs/${id}`;
  return { id, name: runner.GITHUB_WORKFLOW, url, status: 'completed', conclusion: 'failure' };
}

/** Written once per verdict: the pull request from this branch, a check run on the commit, the job summary. */
async function record(run: OwnBranchRun, verdict: CiVerdict): Promise<void> {
  const { host, failed, redactor } = run;
  const section = ciVerdictSection([verdict], redactor);
  await appendSummary(run.runner.GITHUB_STEP_SUMMARY, `${section}\n`);
  if (ciVerdictWaitMs(run.config) === null) {
    run.io.log(
      'selfdebug: `ci_verdict: off` in .github/selfdebug.yml: the verdict is not written to GitHub.',
    );
    return;
  }
  const pullNumber = failed.pullRequest?.number ?? (await host.findPullRequest(failed.branch))?.number;
  // Each round of the Action opens its own pull request from its own branch: one verdict per pull request.
  await writeCiVerdict(host, {
    pullNumber: pullNumber ?? null,
    commentId: null,
    verdict,
    rounds: [verdict],
    redactor,
    write: warnedWrite(run),
  });
}

/** A write that may fail alone: its error (with the permission the token lacks) becomes a warning. */
function warnedWrite(run: OwnBranchRun): LoggedWrite {
  return async (what, action) => {
    try {
      return await action();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      run.io.log(
        `::warning::selfdebug: ${commandText(run.redactor.redact(`could not ${what}: ${message}`))}`,
      );
      return null;
    }
  };
}

/** One line for the step's log: the check run's title, and the runs it names with their pages. */
function verdictWords(verdict: CiVerdict, redactor: Redactor): string {
  const { title } = ciVerdictCheckRun(verdict, redactor).output;
  const named = verdict.verdict === 'passed' ? [] : verdict.workflows;
  const runs = named.map((workflow) => `${workflow.name} (${workflow.url})`).join(', ');
  return `${title} on ${verdict.sha.slice(0, 7)}${runs === '' ? '.' : `: ${redactor.redact(runs)}`}`;
}
