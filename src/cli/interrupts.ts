import { constants } from 'node:os';
import { removeContainersCommand } from '../compose/command-sandbox.js';
import type { OutputStream } from './output-stream.js';

/** Exit code of a run cancelled by Ctrl-C, as a shell reports it. */
export const EXIT_CANCELLED = 130;

/** The signals that stop a run, and the exit code each gives: 128 + the signal's number, as a shell reports it. */
const STOP_SIGNALS = {
  SIGINT: EXIT_CANCELLED,
  SIGTERM: 128 + constants.signals.SIGTERM,
  SIGHUP: 128 + constants.signals.SIGHUP,
} as const;
type StopSignal = keyof typeof STOP_SIGNALS;

/**
 * The first Ctrl-C (or a SIGTERM from a supervisor, a SIGHUP from a closed
 * terminal) cancels the run: the command is killed and the setup, holder,
 * forwarder and sandbox containers removed; a second one exits at once, for
 * a sandbox that will not go.
 */
export function listenForInterrupts(
  controller: AbortController,
  jobId: string,
  stderr: OutputStream,
): { stop: () => void; exitCode: () => number } {
  let received: StopSignal = 'SIGINT';
  const onSignal = (signal: StopSignal) => {
    if (controller.signal.aborted) {
      stderr.write(
        '\nStopped at once. If a sandbox container is left behind, remove it with\n' +
          `  ${removeContainersCommand(jobId)}\n`,
      );
      process.exit(STOP_SIGNALS[signal]);
    }
    received = signal;
    const again = signal === 'SIGINT' ? 'Ctrl-C' : signal;
    stderr.write(
      `\nCancelling: stopping the command and removing the sandbox (${again} again to quit at once)…\n`,
    );
    controller.abort(new Error(`cancelled by ${signal}`));
  };
  const names = Object.keys(STOP_SIGNALS) as StopSignal[];
  for (const name of names) process.on(name, onSignal);
  return {
    stop: () => {
      for (const name of names) process.off(name, onSignal);
    },
    exitCode: () => STOP_SIGNALS[received],
  };
}
