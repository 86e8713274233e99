import type { Metrics } from '../metrics/metrics.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import { forwarding } from '../util/forwarding.js';

/**
 * Sandboxes that report each command's time (the reproduction, every
 * attempt's run: the durations the loop's events carry) to `metrics`. The
 * engine's own measure is used, so time spent waiting for a container slot
 * or copying files is not counted as sandbox time.
 */
export function observeSandboxes(provider: SandboxProvider, metrics: Metrics): SandboxProvider {
  return forwarding(provider, {
    async open(request) {
      const sandbox = await provider.open(request);
      return forwarding(sandbox, {
        async exec(command, options) {
          const result = await sandbox.exec(command, options);
          metrics.sandboxCommand(result.end, result.durationMs);
          return result;
        },
      });
    },
  });
}
