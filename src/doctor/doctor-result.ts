/** One line of `selfdebug doctor`'s table, and the helpers the checks build them with. */

/** ok ✔, fail ✘ (blocks use: non-zero exit), skip – (not checked, or not needed with these settings). */
type CheckStatus = 'ok' | 'fail' | 'skip';

export interface CheckResult {
  name: string;
  status: CheckStatus;
  detail: string;
  /** What to do; given whenever status is fail, and for a skip worth acting on. */
  fix?: string;
}

export const ok = (name: string, detail: string): CheckResult => ({ name, status: 'ok', detail });
export const fail = (name: string, detail: string, fix: string): CheckResult => ({
  name,
  status: 'fail',
  detail,
  fix,
});
export const skip = (name: string, detail: string, fix?: string): CheckResult => ({
  name,
  status: 'skip',
  detail,
  ...(fix ? { fix } : {}),
});

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
