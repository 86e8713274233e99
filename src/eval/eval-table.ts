import type { ModeResult, ResultsFile } from './results-file.js';

/**
 * The results as Markdown: one row per task with the loop's, the one-shot
 * baseline's and one-shot's at the loop's tokens (sampled until it spent
 * them) fixed / attempts / tokens / cost / time, a totals row, and the fix
 * rates side by side, which is the number the eval exists for.
 */
export function renderTable(results: ResultsFile): string {
  const { run, tasks } = results;
  const baseline = run.baseline;
  // Results of --no-equal-budget (or from before it existed) have no third baseline to show.
  const equal = baseline && tasks.some((task) => task.oneShotEqualBudget !== undefined);
  const header = [
    'task',
    'lang',
    ...modeHeader('loop'),
    ...(baseline ? modeHeader('one-shot') : []),
    ...(equal ? modeHeader(EQUAL_BUDGET_NAME, 'samples') : []),
  ];
  const rows = tasks.map((task) => [
    task.name,
    task.language,
    ...modeCells(task.loop),
    ...(baseline ? modeCells(task.oneShot) : []),
    ...(equal ? modeCells(task.oneShotEqualBudget) : []),
  ]);
  const totals = [
    '**total**',
    '',
    ...totalCells(tasks.map((task) => task.loop)),
    ...(baseline ? totalCells(tasks.map((task) => task.oneShot)) : []),
    ...(equal ? totalCells(tasks.map((task) => task.oneShotEqualBudget)) : []),
  ];
  return [
    `# selfdebug eval: ${run.suite}`,
    '',
    `Model \`${run.model}\`, up to ${run.maxAttempts} attempt${run.maxAttempts === 1 ? '' : 's'} per task, ` +
      `${run.sandbox} sandbox, ${tasks.length} task${tasks.length === 1 ? '' : 's'}.`,
    '',
    `**${summary(results)}**`,
    '',
    line(header),
    line(header.map((_, index) => (index < 2 ? '---' : '---:'))),
    ...rows.map(line),
    line(totals),
    '',
  ].join('\n');
}

/** One line with the fix rates: `loop 12/40 (30.0%) vs one-shot 8/40 (20.0%)`. */
function summary(results: ResultsFile): string {
  const count = results.tasks.length;
  const loop = results.tasks.filter((task) => task.loop.fixed).length;
  const text = `Fixed: loop ${rate(loop, count)}`;
  if (!results.run.baseline) return text;
  const versus = (name: string, fixed: number) => {
    const gain = loop - fixed;
    return ` vs ${name} ${rate(fixed, count)} (${gain >= 0 ? '+' : ''}${gain} for the loop)`;
  };
  const oneShot = results.tasks.filter((task) => task.oneShot?.fixed).length;
  const equal = results.tasks.filter((task) => task.oneShotEqualBudget?.fixed).length;
  const shown = results.tasks.some((task) => task.oneShotEqualBudget !== undefined);
  return `${text}${versus('one-shot', oneShot)}${shown ? versus(EQUAL_BUDGET_NAME, equal) : ''}`;
}

/** One-shot sampled until it spent the loop's tokens on the task. */
/** The equal-budget baseline's name (equal-budget.ts), in the table and the eval's progress lines. */
export const EQUAL_BUDGET_NAME = "one-shot at the loop's tokens";

function modeHeader(mode: string, attempts = 'attempts'): string[] {
  return [`${mode} fixed`, attempts, 'tokens', 'cost', 'time'];
}

function modeCells(result: ModeResult | undefined): string[] {
  if (!result) return ['–', '', '', '', ''];
  return [
    result.fixed ? 'yes' : `no (${result.outcome})`,
    String(result.attempts),
    result.spend.totalTokens.toLocaleString('en-US'),
    usd(result.spend.costUsd),
    seconds(result.durationMs),
  ];
}

function totalCells(results: (ModeResult | undefined)[]): string[] {
  const known = results.filter((result): result is ModeResult => result !== undefined);
  const sum = (value: (result: ModeResult) => number) =>
    known.reduce((total, result) => total + value(result), 0);
  return [
    `**${rate(known.filter((result) => result.fixed).length, results.length)}**`,
    String(sum((result) => result.attempts)),
    sum((result) => result.spend.totalTokens).toLocaleString('en-US'),
    usd(sum((result) => result.spend.costUsd)),
    seconds(sum((result) => result.durationMs)),
  ];
}

function rate(fixed: number, count: number): string {
  const percent = count === 0 ? 0 : (100 * fixed) / count;
  return `${fixed}/${count} (${percent.toFixed(1)}%)`;
}

function usd(value: number): string {
  return `$${value.toFixed(4)}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Table cells with a pipe or a line break would break the row. */
function line(cells: string[]): string {
  return `| ${cells.map((cell) => cell.replace(/\|/g, '\\|').replace(/\n/g, ' ')).join(' | ')} |`;
}
