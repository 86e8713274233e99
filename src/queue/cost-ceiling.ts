import type { AppConfig } from '../config/app-config.js';
import type { JobStore } from './job-store.js';

export type CostPeriod = AppConfig['costPeriod'];

export interface CeilingSettings {
  ceilingUsd: number;
  period: CostPeriod;
  /** Who the refusal tells people to ask. */
  contact: string;
}

export type CeilingVerdict = { refused: false } | { refused: true; spentUsd: number; message: string };

/** What the App's handlers and the worker ask before a job may run. */
export interface CostCeilingCheck {
  check(installationId: number): Promise<CeilingVerdict>;
}

/**
 * The operator's per-installation cost ceiling. Spend comes from the store's
 * ledger (JobStore.spentUsd), never from this process's memory, so it holds
 * across restarts and across every App and worker host sharing the queue.
 * Checked twice: by the App before it enqueues (the person asking gets the
 * reply at once) and by the worker when it claims a job (jobs queued before
 * the ceiling was reached). Spend counts once a job finishes, so jobs
 * running side by side may together end a little past it.
 */
export class CostCeiling implements CostCeilingCheck {
  constructor(
    private readonly store: Pick<JobStore, 'spentUsd'>,
    private readonly settings: CeilingSettings,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async check(installationId: number): Promise<CeilingVerdict> {
    const { start, end } = periodBounds(this.settings.period, this.now());
    const spentUsd = await this.store.spentUsd(installationId, start.getTime());
    if (spentUsd < this.settings.ceilingUsd) return { refused: false };
    return { refused: true, spentUsd, message: refusalMessage(this.settings, spentUsd, start, end) };
  }
}

/** The ceiling the operator set, or null when SELFDEBUG_COST_CEILING_USD is unset. */
export function costCeilingFor(
  app: Pick<AppConfig, 'costCeilingUsd' | 'costPeriod' | 'costContact'>,
  store: Pick<JobStore, 'spentUsd'>,
): CostCeiling | null {
  if (app.costCeilingUsd === undefined) return null;
  return new CostCeiling(store, {
    ceilingUsd: app.costCeilingUsd,
    period: app.costPeriod,
    contact: app.costContact,
  });
}

/** The period `now` falls in, in UTC: a day, a week from Monday 00:00, or a calendar month. */
export function periodBounds(period: CostPeriod, now: Date): { start: Date; end: Date } {
  const [year, month, day] = [now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()];
  if (period === 'month') return { start: utc(year, month, 1), end: utc(year, month + 1, 1) };
  if (period === 'day') return { start: utc(year, month, day), end: utc(year, month, day + 1) };
  const sinceMonday = (now.getUTCDay() + 6) % 7;
  return { start: utc(year, month, day - sinceMonday), end: utc(year, month, day - sinceMonday + 7) };
}

const PERIOD_NAME: Record<CostPeriod, string> = { day: 'daily', week: 'weekly', month: 'monthly' };

/** What a refused job's comment says: what was spent, the ceiling, when it resets, who to ask. */
export function refusalMessage(settings: CeilingSettings, spentUsd: number, start: Date, end: Date): string {
  return [
    `**selfdebug did not run this job:** this installation has reached its ${PERIOD_NAME[settings.period]} cost ceiling.`,
    '',
    `- Spent since ${day(start)}: **${usd(spentUsd)}**`,
    `- Ceiling: **${usd(settings.ceilingUsd)}** per ${settings.period} (set by the operator in \`SELFDEBUG_COST_CEILING_USD\`)`,
    `- The period resets on **${day(end)} 00:00 UTC**; ask again then.`,
    '',
    `To run jobs sooner, ask ${settings.contact} to raise the ceiling.`,
  ].join('\n');
}

function utc(year: number, month: number, day: number): Date {
  return new Date(Date.UTC(year, month, day));
}

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function usd(amount: number): string {
  return `$${amount.toFixed(2)}`;
}
