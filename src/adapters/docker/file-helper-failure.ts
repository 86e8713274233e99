import { constants } from 'node:os';
import { WorkspaceFullError, WorkspaceTransferError } from '../../errors/index.js';

/** What the file helper (path-check.ts's read and write commands) left behind when it failed. */
export interface FileHelperResult {
  exitCode: number;
  stderr: string;
}

/** What to do after a helper killed by a signal: the sandbox's own limits are the likely killer. */
const KILLED_HINT =
  "A signal usually means the sandbox's memory limit was reached or the container was stopped while the job " +
  'ran: retry the job, and raise sandbox.memory_mb in .github/selfdebug.yml if it happens again.';

/** What to do after a helper that exited without a word: its own checks failed. */
const SILENT_HINT =
  'Check free disk space on the engine host and that the workspace path exists, then retry the job; ' +
  "the engine host's logs say more if it happens again.";

/**
 * The typed error for a file helper that failed, saying what happened even
 * when it printed nothing: an exit code, or for codes above 128 the signal
 * that killed it (the shell's 128 + N), since "could not write x: " alone
 * leaves the reader nothing to act on.
 */
export function fileHelperFailure(
  action: 'read' | 'write',
  relative: string,
  result: FileHelperResult,
  workspaceMb: number,
): WorkspaceFullError | WorkspaceTransferError {
  const direction = action === 'write' ? 'in' : 'out';
  const said = result.stderr.trim();
  if (action === 'write' && /no space left on device/i.test(said))
    return new WorkspaceFullError(`The file ${relative}`, workspaceMb);
  if (said !== '')
    return new WorkspaceTransferError(direction, `could not ${action} ${relative}: ${said.slice(0, 500)}`);
  const signal = result.exitCode > 128 ? result.exitCode - 128 : null;
  const what =
    signal === null
      ? `exited with code ${result.exitCode} and printed nothing`
      : `was killed by signal ${signal}${signalName(signal)} and printed nothing`;
  return new WorkspaceTransferError(direction, `could not ${action} ${relative}: the file helper ${what}`, {
    hint: signal === null ? SILENT_HINT : KILLED_HINT,
  });
}

/** ` (SIGKILL)` for 9: the name the reader looks up; nothing for a number the platform does not name. */
function signalName(signal: number): string {
  const name = Object.entries(constants.signals).find(([, number]) => number === signal)?.[0];
  return name === undefined ? '' : ` (${name})`;
}
