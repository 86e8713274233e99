import type { CheckResult } from './doctor-checks.js';

const MARKS = { ok: '✔', fail: '✘', skip: '–' } as const;

/** One line per check (mark, name, what was found), the fix under each that is not ✔, and a verdict. */
export function renderDoctorTable(results: readonly CheckResult[], source?: string): string {
  const width = Math.max(...results.map((result) => result.name.length));
  const lines = [source ? `selfdebug doctor (settings from ${source})` : 'selfdebug doctor', ''];
  for (const result of results) {
    lines.push(`  ${MARKS[result.status]} ${result.name.padEnd(width)}  ${result.detail}`);
    if (result.fix) {
      const [first = '', ...rest] = result.fix.split('\n');
      lines.push(`    ${' '.repeat(width)}  fix: ${first}`);
      for (const line of rest) lines.push(`    ${' '.repeat(width)}       ${line}`);
    }
  }
  lines.push('', verdict(results));
  return `${lines.join('\n')}\n`;
}

/** Rows only the App needs: someone who runs `selfdebug fix` or `eval` can leave them ✘. */
const APP_ONLY = new Set(['github app', 'webhook secret', 'queue', 'webhook proxy']);

/** Ready or not, for the command line and for the App apart, naming what to fix. */
function verdict(results: readonly CheckResult[]): string {
  const failed = results.filter((result) => result.status === 'fail');
  const names = (rows: readonly CheckResult[]) => rows.map((result) => result.name).join(', ');
  if (failed.length === 0) return 'ready.';
  const forCli = failed.filter((result) => !APP_ONLY.has(result.name));
  if (forCli.length === 0)
    return `ready for \`selfdebug fix\` and \`eval\`; not ready for the App: fix ${names(failed)} (each "fix:" line says how).`;
  return `not ready: fix ${names(failed)} (each "fix:" line says how).`;
}

/** One line per ✘, for a log: what failed and what to do. */
export function failureLines(results: readonly CheckResult[]): string[] {
  return results
    .filter((result) => result.status === 'fail')
    .map(
      (result) => `${result.name}: ${result.detail}. Fix: ${(result.fix ?? '').replace(/\s*\n\s*/g, ' ')}`,
    );
}
