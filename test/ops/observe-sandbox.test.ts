import { describe, expect, it } from 'vitest';
import { PrometheusMetrics } from '../../src/adapters/prometheus/index.js';
import { observeSandboxes } from '../../src/compose/observe-sandbox.js';
import { NO_PREPARATION, type PreparationReport } from '../../src/sandbox/environment.js';
import type { ExecResult, Sandbox, SandboxProvider } from '../../src/sandbox/sandbox.js';
import { EnvironmentSetupError } from '../../src/sandbox/setup-error.js';
import { sample } from '../e2e/support/metrics.js';

const ran = (exitCode: number, durationMs: number): ExecResult => ({
  exitCode,
  end: 'exited',
  reason: null,
  stdout: '',
  stderr: '',
  output: '',
  truncated: false,
  durationMs,
});

const prepared = (...results: ExecResult[]): PreparationReport => ({
  ...NO_PREPARATION,
  setup: results.map((result, index) => ({ command: { command: `step ${index}` }, result })),
});

/** A provider whose sandbox was prepared as `report` says, and whose commands take 2 s; or whose setup failed. */
function providerOf(
  outcome: { report: PreparationReport } | { failed: EnvironmentSetupError },
): SandboxProvider {
  return {
    kind: 'local',
    async open() {
      if ('failed' in outcome) throw outcome.failed;
      const sandbox: Partial<Sandbox> = {
        kind: 'local',
        preparation: outcome.report,
        exec: async () => ran(1, 2000),
      };
      return sandbox as Sandbox;
    },
  };
}

describe('observeSandboxes', () => {
  it('counts the setup commands that prepared the sandbox apart from the commands run in it', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const provider = observeSandboxes(providerOf({ report: prepared(ran(0, 3000), ran(0, 500)) }), metrics);
    const sandbox = await provider.open({ jobId: 'job-1', workspace: '/nonexistent' });
    await sandbox.exec('pytest');
    const { text } = await metrics.exposition();
    expect(sample(text, 'selfdebug_sandbox_command_seconds_count', { phase: 'setup' })).toBe(2);
    expect(sample(text, 'selfdebug_sandbox_command_seconds_sum', { phase: 'setup' })).toBe(3.5);
    expect(sample(text, 'selfdebug_sandbox_command_seconds_count', { phase: 'run' })).toBe(1);
    expect(sample(text, 'selfdebug_sandbox_command_seconds_sum', { phase: 'run' })).toBe(2);
  });

  it('counts the setup commands of an environment whose setup failed, and passes the error on', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const failedStep = ran(1, 4000);
    const report = prepared(ran(0, 1000), failedStep);
    const failure = new EnvironmentSetupError(
      { command: 'pip install -r requirements.txt' },
      failedStep,
      report,
    );
    const provider = observeSandboxes(providerOf({ failed: failure }), metrics);
    await expect(provider.open({ jobId: 'job-2', workspace: '/nonexistent' })).rejects.toBe(failure);
    const { text } = await metrics.exposition();
    expect(sample(text, 'selfdebug_sandbox_command_seconds_count', { phase: 'setup' })).toBe(2);
    expect(sample(text, 'selfdebug_sandbox_command_seconds_sum', { phase: 'setup' })).toBe(5);
    expect(sample(text, 'selfdebug_sandbox_command_seconds_count', { phase: 'run' })).toBe(0);
  });

  it('counts nothing for setup when a prepared environment was reused', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const reused = {
      ...NO_PREPARATION,
      reused: { key: 'k', builtAt: '2026-11-25T00:00:00Z', entry: 'e', ref: 'refs/heads/main' },
      cacheKey: 'k',
    };
    await observeSandboxes(providerOf({ report: reused }), metrics).open({ jobId: 'job-3', workspace: '/x' });
    const { text } = await metrics.exposition();
    expect(sample(text, 'selfdebug_sandbox_command_seconds_count')).toBe(0);
  });
});
