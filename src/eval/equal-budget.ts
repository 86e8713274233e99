import type { ModeResult } from './results-file.js';

/** A bound on samples, so a model that reports no tokens cannot keep the eval sampling forever. */
const MAX_SAMPLES = 100;

/**
 * One-shot at the loop's cost: fresh one-shot samples, each verified by the
 * task's command, until one passes or together they have spent at least
 * `budgetTokens` (the loop's tokens on the task). `first` is the one-shot
 * baseline's own run, the first sample; `sample` runs one more (null: the
 * eval was cancelled). The result sums the samples: `attempts` counts them,
 * `fixed` says whether any passed.
 */
export async function sampleToBudget(
  first: ModeResult,
  budgetTokens: number,
  sample: () => Promise<ModeResult | null>,
): Promise<ModeResult | null> {
  const samples = [first];
  let spent = first.spend.totalTokens;
  while (!samples.some((result) => result.fixed) && spent < budgetTokens && samples.length < MAX_SAMPLES) {
    const next = await sample();
    if (next === null) return null;
    samples.push(next);
    spent += next.spend.totalTokens;
    // A sample that spent nothing would never reach the budget.
    if (next.spend.totalTokens === 0) break;
  }
  // One sample is the one-shot run itself, unchanged.
  return samples.length === 1 ? first : combined(samples, budgetTokens);
}

function combined(samples: readonly ModeResult[], budgetTokens: number): ModeResult {
  const sum = (value: (result: ModeResult) => number) =>
    samples.reduce((total, result) => total + value(result), 0);
  const passing = samples.findIndex((result) => result.fixed);
  const last = samples[passing === -1 ? samples.length - 1 : passing]!;
  const count = `${samples.length} sample${samples.length === 1 ? '' : 's'}`;
  return {
    fixed: passing !== -1,
    outcome: last.outcome,
    reason:
      passing === -1
        ? `no sample passed in ${count} (${sum((result) => result.spend.totalTokens)} of the loop's ${budgetTokens} tokens); last: ${last.reason}`
        : `sample ${passing + 1} of ${count} passed: ${last.reason}`,
    attempts: samples.length,
    spend: {
      promptTokens: sum((result) => result.spend.promptTokens),
      completionTokens: sum((result) => result.spend.completionTokens),
      totalTokens: sum((result) => result.spend.totalTokens),
      costUsd: sum((result) => result.spend.costUsd),
    },
    durationMs: sum((result) => result.durationMs),
  };
}
