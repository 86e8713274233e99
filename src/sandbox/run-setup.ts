import type { PreparationReport, SetupCommand } from './environment.js';
import { type RefusalSource, RefusalWatch } from './refusal-watch.js';
import type { ExecOptions, ExecResult } from './sandbox.js';
import { EnvironmentSetupError } from './setup-error.js';
import { lastLines, SetupOutputFeed, type SetupOutputOptions } from './setup-output.js';

interface Runner {
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
}

export interface SetupOptions {
  /** Variables every setup command gets (the proxy's), under each step's own. */
  env?: Record<string, string>;
  timeoutSeconds?: number;
  signal?: AbortSignal;
  /** A line per step and, while it runs, its output in throttled batches (see SetupOutputFeed). */
  onProgress?: (line: string) => void;
  /** What the egress proxy saw so far, read into the report when setup ends. */
  egress?: () => PreparationReport['egress'];
  /** The proxy's refusals: a step refused the same host `limit` times is stopped at once. */
  refusals?: RefusalSource;
  /** The one redactor's, for output that leaves: the streamed batches and the error's last lines. */
  redact?: (text: string) => string;
  /** Pacing of the streamed output (tests set their own timers). */
  output?: Omit<SetupOutputOptions, 'redact'>;
}

/** What running setup adds to the preparation report: each step's result, and the hosts it reached. */
export type SetupPart = Pick<PreparationReport, 'setup' | 'egress'>;

/**
 * Runs setup commands in order and returns their results; the first that
 * fails stops setup with an EnvironmentSetupError carrying the report so far
 * (`before` with what setup did) and the step's last lines, since nothing
 * after it can be trusted to work.
 */
export async function runSetup(
  runner: Runner,
  commands: readonly SetupCommand[],
  before: PreparationReport,
  options: SetupOptions = {},
): Promise<SetupPart> {
  const redact = options.redact ?? ((text: string) => text);
  const setup: PreparationReport['setup'] = [];
  const egress = () => options.egress?.() ?? before.egress;
  for (const step of commands) {
    options.onProgress?.(`setup: ${step.name ?? step.command}`);
    const { result, refused } = await runStep(runner, step, options);
    setup.push({ command: step, result });
    options.onProgress?.(
      `setup: ${result.exitCode === 0 ? 'done' : refused ? `stopped: ${refused.target} refused ${refused.count} times` : (result.reason ?? `exit code ${result.exitCode}`)}`,
    );
    if (result.exitCode !== 0) {
      const report = { ...before, setup: [...before.setup, ...setup], egress: egress() };
      const lines = lastLines(redact(result.output));
      throw new EnvironmentSetupError(step, result, report, { lastLines: lines, refused });
    }
  }
  return { setup: [...before.setup, ...setup], egress: egress() };
}

/** One step, its output streamed while it runs, stopped early when the proxy keeps refusing one host. */
async function runStep(runner: Runner, step: SetupCommand, options: SetupOptions) {
  const watch = options.refusals ? new RefusalWatch(options.refusals.limit) : null;
  const unsubscribe = options.refusals?.subscribe((refusal) => watch?.refused(refusal)) ?? (() => {});
  const progress = options.onProgress;
  const feed = progress
    ? new SetupOutputFeed(progress, {
        ...options.output,
        ...(options.redact ? { redact: options.redact } : {}),
      })
    : null;
  const signals = [options.signal, watch?.signal].filter((signal) => signal !== undefined);
  try {
    const result = await runner.exec(step.command, {
      env: { ...options.env, ...step.env },
      ...(step.cwd ? { cwd: step.cwd } : {}),
      ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
      ...(signals.length > 0 ? { signal: AbortSignal.any(signals) } : {}),
      ...(feed ? { onOutput: (chunk: Buffer) => feed.write(chunk) } : {}),
    });
    // A stop the person asked for is a cancellation, whatever the proxy did meanwhile.
    const refused = options.signal?.aborted ? null : (watch?.tripped ?? null);
    return { result, refused };
  } finally {
    feed?.end();
    unsubscribe();
  }
}
