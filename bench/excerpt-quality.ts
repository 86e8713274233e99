import { type Aggregate, aggregate, groupBy, markdown } from '../test/ci-logs/dev-set.js';
import { excerptDevSet, measureQuality, type QualityRow } from '../test/ci-logs/excerpt-dev-set.js';

/**
 * The excerpt beside `tail -n budget` (the same line budget) on real tools' output
 * (test/fixtures/excerpt-dev-set: each tool as an Actions job log, a terminal log and two other CI
 * systems' job logs, failure lines labelled): recall and precision over the failure lines and the
 * logs whose every failure line is kept, per tool, per log shape (CI system) and over the set, at the
 * default budget and at a prompt's tighter one; and the failure lines the tail keeps that the
 * excerpt drops (none, by design).
 */
const BUDGETS = [150, 60];

export async function benchExcerptQuality(): Promise<string> {
  const logs = excerptDevSet();
  const sections: string[] = [];
  const goals: string[] = [];
  for (const budget of BUDGETS) {
    const rows: QualityRow[] = [];
    for (const log of logs) rows.push(await measureQuality(log, budget));
    const { section, goal } = atBudget(budget, rows);
    sections.push(...section);
    goals.push(goal);
  }
  const tools = new Set(logs.map((log) => log.tool)).size;
  const shapes = [...new Set(logs.map((log) => log.shape))].sort();
  return [
    "## Excerpt beside the tail on real tools' output (`bench/excerpt-quality.ts`)",
    '',
    `${logs.length} logs (test/fixtures/excerpt-dev-set): ${tools} runs of real tools here (two Go goroutine dumps among them: a panic, a test's timeout) on small failing projects with their noise ` +
      '(installs, downloads, lint warnings, coverage tables, passing tests), each as a GitHub Actions job log, a terminal log, ' +
      `and the job logs of two other CI systems (dealt round-robin; shapes: ${shapes.join(', ')}), ` +
      'the failure lines labelled by hand. Recall and precision over the labelled failure lines; "kept whole": logs whose every failure line is kept.',
    '',
    ...sections,
    `Goals: ${goals.join('; ')}.`,
  ].join('\n');
}

function atBudget(budget: number, rows: QualityRow[]): { section: string[]; goal: string } {
  const tools = groupBy(rows, (row) => row.sidecar.toolchain);
  const shapes = groupBy(rows, (row) => row.sidecar.system);
  const all = aggregate('all', rows);
  const dropped = rows.filter((row) => row.tailOnly.length > 0);
  const below = (groups: Aggregate[]) =>
    groups.filter((group) => group.excerptRecall < group.tailRecall || group.excerptWhole < group.tailWhole);
  const under = [...below(tools), ...below(shapes)].map((group) => group.group);
  const droppedText = dropped.map((row) => `${row.name} (${row.tailOnly.join(', ')})`).join('; ');
  return {
    section: [
      `Budget ${budget} lines (\`tail -n ${budget}\` beside it), per tool:`,
      '',
      markdown('tool', [...tools, all]),
      '',
      'Per log shape (CI system):',
      '',
      markdown('shape', [...shapes, all]),
      '',
      `Failure lines the tail keeps and the excerpt drops: ${dropped.length === 0 ? 'none' : droppedText}.`,
      '',
    ],
    goal:
      `budget ${budget}: every tail failure line kept — ${dropped.length === 0 ? 'met' : 'NOT met'}; ` +
      `recall and logs kept whole at or above the tail on every tool and every shape — ${under.length === 0 ? 'met' : `NOT met (${under.join(', ')})`}`,
  };
}
