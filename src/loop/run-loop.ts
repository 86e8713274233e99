import { InvalidModelOutputError, ModelApiError, ModelAuthError } from '../errors/index.js';
import type { ExecResult } from '../sandbox/sandbox.js';
import { runAttempts } from './attempts.js';
import type { LoopEvent, LoopSummary } from './events.js';
import { type Ending, type LoopInput, LoopSession } from './loop-session.js';
import { reflectMessages } from './prompts.js';
import { rejectedReflection } from './rejected-answer.js';
import { type Reproduced, reproduce, runSetup, startingRun } from './reproduce.js';
import { type Reflection, reflectionSchema } from './schemas.js';
import { guardSettingsFor, summarizeTestEdits } from './test-guard/guard-policy.js';

export type { LoopInput } from './loop-session.js';

export interface LoopResult extends LoopSummary {
  reflection: Reflection | null;
  /** Every event of the run, in order: the full transcript. */
  events: LoopEvent[];
}

/**
 * The self-debugging loop: reproduce, then up to `maxAttempts` rounds of
 * generate → apply → execute → decide, then always a reflection. It only
 * talks to its ports (model, sandbox, event sink, clock) and knows nothing of
 * GitHub, Docker or OpenAI, so the App, the CLI and the tests share it.
 */
export async function runLoop(input: LoopInput): Promise<LoopResult> {
  const session = new LoopSession(input);
  const { task, limits, model } = input;
  await session.emit({ type: 'started', task, limits, model: model.model });
  await session.sizePrompts();
  const { ending, modelUnavailable, reproduction } = await work(session);
  // A model that is down or refuses our key would only fail the reflection too.
  const reflected = modelUnavailable
    ? { ending, reflection: null }
    : await reflectOn(session, ending, reproduction);
  return finish(session, reflected.ending, reflected.reflection);
}

/** How the work before the reflection ended, and the reproduction the reflection looks back on. */
interface Worked {
  ending: Ending;
  modelUnavailable: boolean;
  reproduction: ExecResult | null;
}

/** A step's value, or the ending whatever stopped it early becomes. */
type Settled<T> = { value: T } | { ending: Ending; modelUnavailable: boolean };

async function settle<T>(session: LoopSession, step: () => Promise<T>): Promise<Settled<T>> {
  try {
    return { value: await step() };
  } catch (error) {
    const modelUnavailable = error instanceof ModelApiError || error instanceof ModelAuthError;
    return { ending: session.classify(error), modelUnavailable };
  }
}

/** Setup, reproduction and the attempts; whatever stops them early becomes the ending. */
async function work(session: LoopSession): Promise<Worked> {
  const reproduced = await settle(session, async () => {
    await runSetup(session);
    return reproduce(session);
  });
  if (!('value' in reproduced)) return { ...reproduced, reproduction: null };
  const reproduction = reproduced.value.run;
  const attempted = await settle(session, () => attemptFix(session, reproduced.value));
  if (!('value' in attempted)) return { ...attempted, reproduction };
  return { ending: attempted.value, modelUnavailable: false, reproduction };
}

/** The attempts from the reproduced failure, or none when explaining it is all that was asked. */
async function attemptFix(session: LoopSession, reproduced: Reproduced): Promise<Ending> {
  const run = await startingRun(session, reproduced);
  if (session.input.mode === 'explain') {
    return { outcome: 'explained', reason: 'reproduced the failure; explaining it without changing code' };
  }
  return runAttempts(session, run);
}

/**
 * The model's look back at the whole run. A failed reflection never hides the
 * outcome: its reason is added, unless it was a cancellation, which wins.
 */
async function reflectOn(
  session: LoopSession,
  ending: Ending,
  reproduction: ExecResult | null,
): Promise<{ ending: Ending; reflection: Reflection | null }> {
  // An environment problem is reported without a word from the model: nothing it could say would fix it.
  if (ending.outcome === 'cancelled' || ending.outcome === 'environment') return { ending, reflection: null };
  try {
    return { ending, reflection: await reflect(session, ending, reproduction) };
  } catch (error) {
    const failure = session.classify(error);
    if (failure.outcome === 'cancelled') return { ending: failure, reflection: null };
    if (error instanceof InvalidModelOutputError) {
      const rejected = rejectedReflection(error, ending.reason);
      await session.emit(rejected.event);
      return { ending: { ...ending, reason: rejected.reason }, reflection: null };
    }
    if (ending.outcome === 'error') return { ending, reflection: null };
    return {
      ending: { ...ending, reason: `${ending.reason} (no reflection: ${failure.reason})` },
      reflection: null,
    };
  }
}

async function reflect(
  session: LoopSession,
  { outcome, reason }: Ending,
  reproduction: ExecResult | null,
): Promise<Reflection> {
  const reflection = await session.ask({
    purpose: 'reflect',
    messages: reflectMessages({
      task: session.input.task,
      timeoutSeconds: session.input.limits.commandTimeoutSeconds,
      outcome,
      reason,
      reproduction,
      history: session.history,
      finalDiff: (await session.editor.diff()).diff,
      budget: session.budget,
    }),
    schema: reflectionSchema,
    schemaName: 'reflection',
  });
  await session.emit({ type: 'reflected', reflection });
  return reflection;
}

async function finish(
  session: LoopSession,
  ending: Ending,
  reflection: Reflection | null,
): Promise<LoopResult> {
  const { diff, changedFiles } = await session.editor.diff().catch(() => ({ diff: '', changedFiles: [] }));
  const { task, limits } = session.input;
  const changes = await session.editor.changes().catch(() => []);
  const testEdits = summarizeTestEdits(changes, task.command, guardSettingsFor(limits, session.input.mode));
  const summary: LoopSummary = {
    ...ending,
    attempts: session.attemptsStarted,
    diff,
    changedFiles,
    ...(testEdits ? { testEdits } : {}),
    total: session.spend.snapshot(),
    durationMs: session.elapsedMs(),
  };
  await session.emit({ type: 'finished', ...summary });
  return { ...summary, reflection, events: [...session.events] };
}
