import { describeProblem, networkNeeded } from '../environment/classify-failure.js';
import { InvalidModelOutputError } from '../errors/index.js';
import type { ExecResult } from '../sandbox/sandbox.js';
import type { LoopEvent } from './events.js';
import type { Ending, LoopSession } from './loop-session.js';
import {
  type AttemptRecord,
  decideMessages,
  describeResult,
  generateMessages,
  latestRunRoom,
} from './prompts.js';
import { fallbackDecision, invalidAnswer, notRun, rejectedProposal } from './rejected-answer.js';
import { type FixProposal, fixProposalSchema, type RetryDecision, retryDecisionSchema } from './schemas.js';
import type { ToolBox } from './structured-call.js';
import { guardEdits, guardSettingsFor } from './test-guard/guard-policy.js';
import type { ApplyResult } from './workspace-editor.js';
import { workspaceToolDefinitions } from './workspace-tools.js';

/** What the last run printed, kept apart so a rejected answer or edit can repeat it without nesting. */
interface LatestRun {
  run: string;
  /** What the next attempt is told: the last run, or why nothing was run. */
  failure: string;
  /** Whether the run the attempts start from passed (a revision's does): only the first attempt is told so. */
  passed: boolean;
}

/** Up to `maxAttempts` rounds of generate → apply → execute → decide, starting from the reproduction. */
export async function runAttempts(session: LoopSession, reproduction: ExecResult): Promise<Ending> {
  const { maxAttempts } = session.input.limits;
  const described = describeResult(reproduction, latestRunRoom(session.budget));
  const latest: LatestRun = { run: described, failure: described, passed: reproduction.exitCode === 0 };
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const ending = await runAttempt(session, attempt, latest);
    if (ending) return ending;
  }
  return {
    outcome: 'not-fixed',
    reason: `still failing after ${maxAttempts} ${maxAttempts === 1 ? 'attempt' : 'attempts'}`,
  };
}

/** One attempt; an ending when the run is over, null when the next attempt may follow. */
async function runAttempt(session: LoopSession, attempt: number, latest: LatestRun): Promise<Ending | null> {
  const { task } = session.input;
  await session.beginAttempt(attempt);
  const record = newRecord(attempt);
  const proposal = await propose(session, attempt, latest);
  if (proposal instanceof InvalidModelOutputError) {
    // A bad answer costs this attempt, not the job: the next one is told what was wrong with it.
    const rejected = rejectedProposal(attempt, proposal, latest.run);
    return fail(session, record, [rejected.problem], rejected.event, latest, rejected.latestFailure);
  }
  record.analysis = proposal.analysis;
  await session.emit({ type: 'proposal', attempt, proposal });
  // The test guard reads the edits before they are written: a refused attempt leaves the workspace as it was.
  const applied = await session.editor.apply(
    proposal.edits,
    (files) =>
      guardEdits(files, task.command, guardSettingsFor(session.input.limits, session.input.mode)).refused,
  );
  if (!applied.ok) return notApplied(session, record, applied, latest);
  record.diff = applied.diff;
  await session.emit({ type: 'edits-applied', attempt, paths: applied.paths, diff: applied.diff });
  const result = await session.execute(task.command);
  record.result = result;
  await session.emit({ type: 'executed', attempt, command: task.command, result });
  return afterRun(session, record, result, latest);
}

/** How a run ends the attempt: fixed, an environment that needs the network, the last attempt, or the model's call. */
async function afterRun(
  session: LoopSession,
  record: AttemptRecord,
  result: ExecResult,
  latest: LatestRun,
): Promise<Ending | null> {
  const { limits, task } = session.input;
  const attempt = record.attempt;
  const offline = networkNeeded({ command: task.command, exitCode: result.exitCode, output: result.output });
  if (result.exitCode === 0 || offline || attempt === limits.maxAttempts) {
    session.remember(record);
    // A run that needs the network fails the same way after any edit: no further attempt can help.
    if (offline) return { outcome: 'environment', reason: describeProblem(offline, { attempt }) };
    return result.exitCode === 0
      ? { outcome: 'fixed', reason: `the command passed on attempt ${attempt}` }
      : null;
  }
  return decide(session, record, result, latest);
}

/** Edits that did not apply, or that the test guard refused: nothing was run, and the next attempt is told why. */
function notApplied(
  session: LoopSession,
  record: AttemptRecord,
  { problems, refusal }: Extract<ApplyResult, { ok: false }>,
  latest: LatestRun,
): Promise<null> {
  const why = `The edits of attempt ${record.attempt} did not apply, so nothing was run:\n${problems.join('\n')}`;
  const event: LoopEvent = {
    type: 'edits-rejected',
    attempt: record.attempt,
    problems,
    ...(refusal ? { guardFindings: refusal.findings } : {}),
  };
  return fail(session, record, problems, event, latest, notRun(why, latest.run));
}

/** An attempt that ran nothing: recorded with its problems, and the next attempt told why. */
async function fail(
  session: LoopSession,
  record: AttemptRecord,
  problems: string[],
  event: LoopEvent,
  latest: LatestRun,
  failure: string,
): Promise<null> {
  record.problems = problems;
  await session.emit(event);
  session.remember(record);
  latest.failure = failure;
  return null;
}

async function propose(
  session: LoopSession,
  attempt: number,
  latest: LatestRun,
): Promise<FixProposal | InvalidModelOutputError> {
  const { limits, task } = session.input;
  const messages = generateMessages({
    task,
    timeoutSeconds: limits.commandTimeoutSeconds,
    currentDiff: (await session.editor.diff()).diff,
    history: session.history,
    latestFailure: latest.failure,
    // Only a revision starts from a passing run; after a failed attempt the latest run is a failure.
    latestPassed: attempt === 1 && latest.passed,
    budget: session.budget,
  });
  const tools: ToolBox = {
    definitions: workspaceToolDefinitions,
    maxCalls: limits.maxToolCallsPerAttempt,
    run: async (call) => {
      const outcome = await session.tools.run(call.name, call.arguments, session.budget.perToolResult);
      await session.emit({
        type: 'tool-called',
        attempt,
        name: call.name,
        arguments: call.arguments,
        ...outcome,
      });
      return outcome.result;
    },
  };
  return session
    .ask({ purpose: 'generate', messages, schema: fixProposalSchema, schemaName: 'fix_proposal', tools })
    .catch(invalidAnswer);
}

/** Asks whether another attempt can help; the ending when the model says no. */
async function decide(
  session: LoopSession,
  record: AttemptRecord,
  result: ExecResult,
  latest: LatestRun,
): Promise<Ending | null> {
  const { limits, task } = session.input;
  const attempt = record.attempt;
  session.checkBudgets();
  const answer = await session
    .ask({
      purpose: 'retry-decision',
      messages: decideMessages({
        task,
        timeoutSeconds: limits.commandTimeoutSeconds,
        current: record,
        history: session.history,
        budget: session.budget,
      }),
      schema: retryDecisionSchema,
      schemaName: 'retry_decision',
    })
    .catch(invalidAnswer);
  const decision =
    answer instanceof InvalidModelOutputError ? await fallBack(session, attempt, answer) : answer;
  record.decision = decision;
  session.remember(record);
  await session.emit({ type: 'retry-decided', attempt, retry: decision.retry, reason: decision.reason });
  if (!decision.retry) return { outcome: 'declined', reason: decision.reason };
  latest.run = describeResult(result, latestRunRoom(session.budget));
  latest.failure = latest.run;
  return null;
}

async function fallBack(
  session: LoopSession,
  attempt: number,
  error: InvalidModelOutputError,
): Promise<RetryDecision> {
  const fallback = fallbackDecision(attempt, error);
  await session.emit(fallback.event);
  return fallback.decision;
}

function newRecord(attempt: number): AttemptRecord {
  return { attempt, analysis: null, diff: '', problems: null, result: null, decision: null };
}
