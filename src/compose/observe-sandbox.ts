import type { Metrics } from '../metrics/metrics.js';
import type { PreparationReport } from '../sandbox/environment.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import { EnvironmentSetupError } from '../sandbox/setup-error.js';
import { forwarding } from '../util/forwarding.js';

/**
 * Sandboxes that report each command's time to `metrics`: the setup commands
 * that prepared the environment (also when one of them failed), then the
 * reproduction and every attempt's run. The engine's own measure is used, so
 * time spent waiting for a container slot or copying files is not counted.
 */
export function observeSandboxes(provider: SandboxProvider, metrics: Metrics): SandboxProvider {
  const countSetup = (report: PreparationReport | null) => {
    for (const { result } of report?.setup ?? [])
      metrics.sandboxCommand('setup', result.end, result.durationMs);
  };
  return forwarding(provider, {
    async open(request) {
      let sandbox: Awaited<ReturnType<SandboxProvider['open']>>;
      try {
        sandbox = await provider.open(request);
      } catch (error) {
        if (error instanceof EnvironmentSetupError) countSetup(error.report);
        throw error;
      }
      countSetup(sandbox.preparation);
      return forwarding(sandbox, {
        async exec(command, options) {
          const result = await sandbox.exec(command, options);
          metrics.sandboxCommand('run', result.end, result.durationMs);
          return result;
        },
      });
    },
  });
}
