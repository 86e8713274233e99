import { aggregate, groupBy, markdown } from '../test/ci-logs/dev-set.js';
import { excerptDevSet, measureQuality, type QualityRow } from '../test/ci-logs/excerpt-dev-set.js';

/**
 * The excerpt beside `tail -n budget` (the same line budget) on real tools' output
 * (test/fixtures/excerpt-dev-set: fifteen tools and two Go goroutine dumps (a panic, a test's timeout), each as an Actions job log and a terminal log,
 * failure lines labelled): recall and precision over the failure lines and the logs whose every
 * failure line is kept, per tool and over the set, at the default budget and at a prompt's tighter
 * one; and the failure lines the tail keeps that the excerpt drops (none, by design).
 */
const BUDGETS = [150, 60];

export async function benchExcerptQuality(): Promise<string> {
  const logs = excerptDevSet();
  const sections: string[] = [];
  const goals: string[] = [];
  for (const budget of BUDGETS) {
    const rows: QualityRow[] = [];
    for (const log of logs) rows.push(await measureQuality(log, budget));
    const tools = groupBy(rows, (row) => row.sidecar.toolchain);
    const all = aggregate('all', rows);
    const dropped = rows.filter((row) => row.tailOnly.length > 0);
    const below = tools.filter(
      (tool) => tool.excerptRecall < tool.tailRecall || tool.excerptWhole < tool.tailWhole,
    );
    sections.push(
      `Budget ${budget} lines (\`tail -n ${budget}\` beside it):`,
      '',
      markdown('tool', [...tools, all]),
      '',
      `Failure lines the tail keeps and the excerpt drops: ${dropped.length === 0 ? 'none' : dropped.map((row) => `${row.name} (${row.tailOnly.join(', ')})`).join('; ')}.`,
      '',
    );
    goals.push(
      `budget ${budget}: every tail failure line kept — ${dropped.length === 0 ? 'met' : 'NOT met'}; ` +
        `recall and logs kept whole at or above the tail on every tool — ${below.length === 0 ? 'met' : `NOT met (${below.map((tool) => tool.group).join(', ')})`}`,
    );
  }
  return [
    "## Excerpt beside the tail on real tools' output (`bench/excerpt-quality.ts`)",
    '',
    `${logs.length} logs (test/fixtures/excerpt-dev-set): ${logs.length / 2} runs of real tools here on small failing projects with their noise ` +
      '(installs, downloads, lint warnings, coverage tables, passing tests), each as a GitHub Actions job log and a terminal log, ' +
      'the failure lines labelled by hand. Recall and precision over the labelled failure lines; "kept whole": logs whose every failure line is kept.',
    '',
    ...sections,
    `Goals: ${goals.join('; ')}.`,
  ].join('\n');
}
