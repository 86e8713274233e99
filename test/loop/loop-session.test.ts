import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../src/loop/events.js';
import { LoopSession, StopRun } from '../../src/loop/loop-session.js';
import { reproduce, startingRun } from '../../src/loop/reproduce.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { limits, types, useLocalSandboxes } from '../helpers/loop-fixtures.js';

const task = { description: 'the script fails', command: 'sh run.sh' };
/** Passes on its first run and fails on the next: a flaky command. */
const FLAKY = 'if [ -f ran ]; then echo second; exit 4; fi\ntouch ran\n';

describe('LoopSession', () => {
  const sandboxWith = useLocalSandboxes();

  async function sessionOver(script: string, overrides: Parameters<typeof limits>[0] = {}) {
    const sandbox = await sandboxWith({ 'run.sh': script });
    const events: LoopEvent[] = [];
    const model = new ScriptedModel([]);
    const session = new LoopSession({
      task,
      limits: limits(overrides),
      model,
      sandbox,
      emit: (event) => {
        events.push(event);
      },
    });
    return { session, events };
  }

  it('returns the failing run as the reproduction, and the attempts start from it', async () => {
    const { session, events } = await sessionOver('echo broken; exit 3\n');
    const reproduced = await reproduce(session);

    expect(reproduced.status).toBe('failing');
    expect(reproduced.run).toMatchObject({ exitCode: 3, stdout: 'broken\n' });
    expect(await startingRun(session, reproduced)).toBe(reproduced.run);
    expect(types(events)).toEqual(['reproduced']);
    expect(session.events).toEqual(events);
  });

  it('keeps the failure of a flaky command for the reflection, and stops before any attempt', async () => {
    const { session } = await sessionOver(FLAKY, { reproduceRuns: 3 });
    const reproduced = await reproduce(session);

    expect(reproduced).toMatchObject({ status: 'flaky', run: { exitCode: 4, stdout: 'second\n' } });
    const stop = await startingRun(session, reproduced).catch((error: unknown) => error);
    expect(stop).toBeInstanceOf(StopRun);
    expect(stop).toMatchObject({ outcome: 'flaky' });
  });

  it('has no reproduction when every run passes', async () => {
    const { session } = await sessionOver('exit 0\n', { reproduceRuns: 2 });
    const reproduced = await reproduce(session);

    expect(reproduced).toEqual({ status: 'passing', run: null });
    await expect(startingRun(session, reproduced)).rejects.toMatchObject({
      outcome: 'cannot-reproduce',
      reason: '`sh run.sh` passed 3 times out of 3: the failure could not be reproduced',
    });
  });

  it('counts an attempt once it is announced and keeps the attempts that ended', async () => {
    const { session, events } = await sessionOver('exit 1\n', { maxAttempts: 3 });
    await session.beginAttempt(1);
    session.remember({ attempt: 1, analysis: 'a', diff: '', problems: null, result: null, decision: null });
    await session.beginAttempt(2);

    expect(session.attemptsStarted).toBe(2);
    expect(session.history.map((record) => record.attempt)).toEqual([1]);
    expect(events).toEqual([
      { type: 'attempt-started', attempt: 1, maxAttempts: 3 },
      { type: 'attempt-started', attempt: 2, maxAttempts: 3 },
    ]);
  });

  it('does not count an attempt the budget stops before it starts', async () => {
    const sandbox = await sandboxWith({ 'run.sh': 'exit 1\n' });
    let now = 0;
    const session = new LoopSession({
      task,
      limits: limits({ maxDurationSeconds: 10 }),
      model: new ScriptedModel([]),
      sandbox,
      clock: { now: () => now },
    });
    await session.beginAttempt(1);
    now = 11_000;
    const stop = await session.beginAttempt(2).catch((error: unknown) => error);

    expect(stop).toMatchObject({ outcome: 'budget-exhausted', reason: 'time budget used up (10 s)' });
    expect(session.attemptsStarted).toBe(1);
    expect(types([...session.events])).toEqual(['attempt-started']);
  });
});
