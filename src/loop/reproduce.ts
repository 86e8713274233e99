import type { ExecResult } from '../sandbox/sandbox.js';
import { environmentProblem } from './environment-check.js';
import type { ReproductionStatus } from './events.js';
import { type LoopSession, StopRun } from './loop-session.js';

/** Setup the sandbox already ran (with its network) is reported; otherwise it runs here, offline. */
export async function runSetup(session: LoopSession): Promise<void> {
  const preparation = session.input.sandbox.preparation;
  if (preparation) {
    await session.emit({ type: 'environment-prepared', preparation });
    for (const { command, result } of preparation.setup)
      await session.emit({ type: 'setup-ran', command: command.command, result });
    return;
  }
  for (const command of session.input.task.setupCommands ?? []) {
    const result = await session.execute(command);
    await session.emit({ type: 'setup-ran', command, result });
    if (result.exitCode !== 0) {
      throw new StopRun('error', `the setup command \`${command}\` failed with exit code ${result.exitCode}`);
    }
  }
}

/**
 * What reproducing found. `run` is the run the attempts and the reflection
 * start from: the failing run (or, in a revision, the passing one), the
 * failure of a flaky command, or null when every run passed.
 */
export type Reproduced = { status: ReproductionStatus; run: ExecResult } | { status: 'passing'; run: null };

/**
 * The run the attempts start from, or the end of the run with the reason it
 * cannot go on: a command that passes, a flaky one, or a failure of the environment.
 */
export async function startingRun(session: LoopSession, reproduced: Reproduced): Promise<ExecResult> {
  if (reproduced.run === null) throw new StopRun('cannot-reproduce', passingReason(session));
  if (reproduced.status === 'flaky') {
    throw new StopRun(
      'flaky',
      `\`${session.input.task.command}\` passed, then failed: the failure is intermittent (flaky); no code was changed`,
    );
  }
  if (reproduced.status === 'failing') await checkEnvironment(session, reproduced.run);
  return reproduced.run;
}

/** Runs the command once; if it passes, a few more times to tell flaky from cannot-reproduce. */
export async function reproduce(session: LoopSession): Promise<Reproduced> {
  const { task, limits, mode } = session.input;
  const first = await session.execute(task.command);
  const runs = [first];
  if (first.exitCode !== 0 || mode === 'revise') {
    // A passing command is the expected start of a revision: its output is the model's starting point.
    const status = first.exitCode !== 0 ? 'failing' : 'passing';
    await session.emit({ type: 'reproduced', status, runs });
    return { status, run: first };
  }
  for (let index = 0; index < limits.reproduceRuns; index++) {
    const result = await session.execute(task.command);
    runs.push(result);
    if (result.exitCode !== 0) break;
  }
  const failed = runs.find((run) => run.exitCode !== 0);
  await session.emit({ type: 'reproduced', status: failed ? 'flaky' : 'passing', runs });
  return failed ? { status: 'flaky', run: failed } : { status: 'passing', run: null };
}

/** A reproduction that failed for want of a tool, a dependency or a host costs no model attempt. */
async function checkEnvironment(session: LoopSession, reproduction: ExecResult): Promise<void> {
  const { sandbox, task } = session.input;
  const problem = await environmentProblem(
    sandbox,
    task.command,
    sandbox.preparation?.setup.map((run) => run.command.command) ?? task.setupCommands ?? [],
    reproduction,
    sandbox.preparation,
  );
  if (problem) throw new StopRun('environment', problem);
}

function passingReason(session: LoopSession): string {
  const runs = session.input.limits.reproduceRuns + 1;
  return `\`${session.input.task.command}\` passed ${runs} time${runs === 1 ? '' : 's'} out of ${runs}: the failure could not be reproduced`;
}
