import { InvalidModelOutputError, ModelApiError, ModelAuthError } from '../errors/index.js';
import { runAttempts } from './attempts.js';
import type { LoopEvent, LoopSummary } from './events.js';
import { type Ending, type LoopInput, LoopSession } from './loop-session.js';
import { reflectMessages } from './prompts.js';
import { rejectedReflection } from './rejected-answer.js';
import { reproduceOrStop, runSetup } from './reproduce.js';
import { type Reflection, reflectionSchema } from './schemas.js';

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
  const { ending, modelUnavailable } = await work(session);
  // A model that is down or refuses our key would only fail the reflection too.
  const reflected = modelUnavailable ? { ending, reflection: null } : await reflectOn(session, ending);
  return finish(session, reflected.ending, reflected.reflection);
}

/** Setup, reproduction and the attempts; whatever stops them early becomes the ending. */
async function work(session: LoopSession): Promise<{ ending: Ending; modelUnavailable: boolean }> {
  try {
    await runSetup(session);
    await reproduceOrStop(session);
    if (session.input.mode === 'explain') {
      const reason = 'reproduced the failure; explaining it without changing code';
      return { ending: { outcome: 'explained', reason }, modelUnavailable: false };
    }
    return { ending: await runAttempts(session), modelUnavailable: false };
  } catch (error) {
    const modelUnavailable = error instanceof ModelApiError || error instanceof ModelAuthError;
    return { ending: session.classify(error), modelUnavailable };
  }
}

/**
 * The model's look back at the whole run. A failed reflection never hides the
 * outcome: its reason is added, unless it was a cancellation, which wins.
 */
async function reflectOn(
  session: LoopSession,
  ending: Ending,
): Promise<{ ending: Ending; reflection: Reflection | null }> {
  // An environment problem is reported without a word from the model: nothing it could say would fix it.
  if (ending.outcome === 'cancelled' || ending.outcome === 'environment') return { ending, reflection: null };
  try {
    return { ending, reflection: await reflect(session, ending) };
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

async function reflect(session: LoopSession, { outcome, reason }: Ending): Promise<Reflection> {
  const reflection = await session.ask({
    purpose: 'reflect',
    messages: reflectMessages({
      task: session.input.task,
      timeoutSeconds: session.input.limits.commandTimeoutSeconds,
      outcome,
      reason,
      reproduction: session.reproduction,
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
  const summary: LoopSummary = {
    ...ending,
    attempts: session.attemptsStarted,
    diff,
    changedFiles,
    total: session.spend.snapshot(),
    durationMs: session.elapsedMs(),
  };
  await session.emit({ type: 'finished', ...summary });
  return { ...summary, reflection, events: session.events };
}
