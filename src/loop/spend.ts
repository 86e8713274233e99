import type { TokenUsage } from '../model/language-model.js';
import type { Spend } from './events.js';
import type { LoopLimits, ModelPrices } from './task.js';

function costOf(usage: TokenUsage, prices: ModelPrices): number {
  return (
    (usage.promptTokens * prices.inputPerMillion + usage.completionTokens * prices.outputPerMillion) / 1e6
  );
}

/** Tokens and cost of one job, checked against its budget after every model call. */
export class SpendMeter {
  private readonly total: Spend = {
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    costUsd: 0,
  };

  constructor(
    private readonly prices: ModelPrices,
    private readonly limits: Pick<LoopLimits, 'maxTotalTokens' | 'maxCostUsd'>,
  ) {}

  add(usage: TokenUsage): number {
    const cost = costOf(usage, this.prices);
    this.total.usage.promptTokens += usage.promptTokens;
    this.total.usage.completionTokens += usage.completionTokens;
    this.total.usage.totalTokens += usage.totalTokens;
    this.total.costUsd += cost;
    return cost;
  }

  snapshot(): Spend {
    return { usage: { ...this.total.usage }, costUsd: this.total.costUsd };
  }

  /** Why the budget is used up, or null while it is not. */
  exhausted(): string | null {
    const { maxTotalTokens, maxCostUsd } = this.limits;
    if (maxTotalTokens > 0 && this.total.usage.totalTokens >= maxTotalTokens) {
      return `token budget used up (${this.total.usage.totalTokens} of ${maxTotalTokens} tokens)`;
    }
    if (maxCostUsd > 0 && this.total.costUsd >= maxCostUsd) {
      return `cost budget used up ($${this.total.costUsd.toFixed(4)} of $${maxCostUsd.toFixed(2)})`;
    }
    return null;
  }
}
