import { describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/config/app-config.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { parseModelConfig } from '../../src/config/model-config.js';
import { runJobHandler } from '../../src/jobs/job-handler.js';
import type { JobRunnerDependencies } from '../../src/jobs/run-job.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { CostCeiling, periodBounds, refusalMessage } from '../../src/queue/cost-ceiling.js';
import { MemoryJobStore } from '../../src/queue/memory-store.js';
import { silentLogger } from '../../src/util/logger.js';
import { FakeCodeHost } from '../fakes/fake-code-host.js';
import { jobRequest, mentionTrigger } from '../fakes/job-requests.js';
import { until } from '../helpers/until.js';
import { claimOne, result, workerPool } from '../queue/harness.js';

const INSTALLATION = 4242;

/** The runner's ports, each counting its calls: a refused job must reach none but the code host. */
function countingDependencies(host: FakeCodeHost) {
  const counts = { tokens: 0, checkouts: 0, sandboxes: 0, models: 0 };
  const model = new ScriptedModel([]);
  const dependencies: JobRunnerDependencies = {
    codeHostFor: async () => host,
    tokenFor: async () => {
      counts.tokens++;
      return 'ghs_never_used_0123456789';
    },
    workspaces: {
      checkout: async () => {
        counts.checkouts++;
        throw new Error('no checkout expected');
      },
    },
    sandboxProviderFor: () => ({
      kind: 'local',
      open: async () => {
        counts.sandboxes++;
        throw new Error('no sandbox expected');
      },
    }),
    modelFor: () => {
      counts.models++;
      return model;
    },
    sandboxConfig: parseSandboxConfig({ kind: 'local' }),
    modelConfig: parseModelConfig({ apiKey: 'sk-test-secret-key-0123456789' }),
    appConfig: loadAppConfig({}),
    logger: silentLogger,
    environment: {},
  };
  return { dependencies, counts, model };
}

function request(id: string, issueNumber: number, installationId = INSTALLATION) {
  return jobRequest({
    id,
    deliveryId: `delivery-${id}`,
    dedupeKey: `comment:${id}`,
    installationId,
    trigger: mentionTrigger({ issueNumber }),
  });
}

describe('the monthly cost ceiling, when a worker claims a job', () => {
  it('refuses the job queued before the ceiling was reached: a comment says why, and nothing runs', async () => {
    const store = new MemoryJobStore();
    const ceiling = new CostCeiling(store, { ceilingUsd: 1, period: 'month', contact: '@octo/platform' });
    // Both queued while the installation was under its ceiling; the first then spends past it.
    await store.enqueue(request('spender', 1));
    await store.enqueue(request('next', 2));
    expect(await ceiling.check(INSTALLATION)).toEqual({ refused: false });
    const spender = await claimOne(store);
    expect(await spender.complete({ ...result('fixed'), costUsd: 1.25 })).toBe(true);

    const host = new FakeCodeHost();
    const { dependencies, counts, model } = countingDependencies(host);
    const workers = workerPool();
    workers.start(store, runJobHandler(dependencies, { ceiling }));
    try {
      await until('the next job to end', async () => (await store.history()).length === 2);
    } finally {
      await workers.stopAll();
    }

    const [refused] = await store.history();
    const { start, end } = periodBounds('month', new Date());
    const message = refusalMessage(
      { ceilingUsd: 1, period: 'month', contact: '@octo/platform' },
      1.25,
      start,
      end,
    );
    expect(refused).toMatchObject({
      id: 'next',
      outcome: 'refused',
      reason: message,
      attempts: 0,
      costUsd: 0,
    });
    expect(host.comments).toEqual([{ id: expect.any(Number), issueNumber: 2, body: message }]);
    expect(message).toContain('Spent since');
    expect(message).toContain('**$1.25**');
    expect(message).toContain('Ceiling: **$1.00** per month');
    expect(message).toContain(`resets on **${end.toISOString().slice(0, 10)} 00:00 UTC**`);
    expect(message).toContain('ask @octo/platform to raise the ceiling');
    // Nothing ran: no model call, no sandbox, no checkout, not even a token for git.
    expect(model.calls).toHaveLength(0);
    expect(counts).toEqual({ tokens: 0, checkouts: 0, sandboxes: 0, models: 0 });
    // The refusal cost nothing, and another installation is not held back.
    expect(await store.spentUsd(INSTALLATION, start.getTime())).toBe(1.25);
    expect(await ceiling.check(INSTALLATION + 1)).toEqual({ refused: false });
  });
});

describe('cost periods', () => {
  it('are UTC days, weeks from Monday, and calendar months', () => {
    const now = new Date('2026-03-12T15:30:00Z'); // a Thursday
    const iso = ({ start, end }: { start: Date; end: Date }) => [start.toISOString(), end.toISOString()];
    expect(iso(periodBounds('day', now))).toEqual(['2026-03-12T00:00:00.000Z', '2026-03-13T00:00:00.000Z']);
    expect(iso(periodBounds('week', now))).toEqual(['2026-03-09T00:00:00.000Z', '2026-03-16T00:00:00.000Z']);
    expect(iso(periodBounds('month', now))).toEqual(['2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z']);
    const sunday = new Date('2026-03-15T23:59:59Z');
    expect(iso(periodBounds('week', sunday))[0]).toBe('2026-03-09T00:00:00.000Z');
    expect(iso(periodBounds('month', new Date('2026-12-31T23:00:00Z')))[1]).toBe('2027-01-01T00:00:00.000Z');
  });

  it('count only spend inside the period, read from the store', async () => {
    const spent: [number, number][] = [];
    const store = {
      spentUsd: async (installationId: number, since: number) => {
        spent.push([installationId, since]);
        return 0.5;
      },
    };
    const now = () => new Date('2026-03-12T15:30:00Z');
    const ceiling = new CostCeiling(store, { ceilingUsd: 0.5, period: 'week', contact: 'ops' }, now);
    const verdict = await ceiling.check(7);
    expect(verdict).toMatchObject({ refused: true, spentUsd: 0.5 });
    expect(spent).toEqual([[7, Date.parse('2026-03-09T00:00:00Z')]]);
    expect(
      await new CostCeiling(store, { ceilingUsd: 0.51, period: 'week', contact: 'ops' }, now).check(7),
    ).toEqual({
      refused: false,
    });
  });
});
