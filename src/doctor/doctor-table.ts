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
  const failed = results.filter((result) => result.status === 'fail');
  lines.push('');
  lines.push(
    failed.length === 0
      ? 'ready.'
      : `not ready: fix ${failed.map((result) => result.name).join(', ')} (each "fix:" line says how).`,
  );
  return `${lines.join('\n')}\n`;
}

/** One line per ✘, for a log: what failed and what to do. */
export function failureLines(results: readonly CheckResult[]): string[] {
  return results
    .filter((result) => result.status === 'fail')
    .map(
      (result) => `${result.name}: ${result.detail}. Fix: ${(result.fix ?? '').replace(/\s*\n\s*/g, ' ')}`,
    );
}
