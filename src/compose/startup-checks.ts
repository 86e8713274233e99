import { loadModelConfig } from '../config/model-config.js';
import type { Environment } from '../config/read-environment.js';
import { type DoctorPorts, runDoctorChecks } from '../doctor/doctor-checks.js';
import { failureLines } from '../doctor/doctor-table.js';
import type { Logger } from '../util/logger.js';
import { loadLanguageModel } from './language-model.js';

/**
 * The App's start-up: `selfdebug doctor`'s checks, each failure logged as one
 * line with its fix, never thrown (a missing part is the operator's to fix,
 * and the App still answers webhooks meanwhile). The model server is not
 * asked (its settings are), and no container is created. The Docker engine
 * is asked only where the App runs jobs itself (the SQLite queue); with Redis,
 * `selfdebug worker` processes run them, and Redis is what the App needs. With
 * the memory queue, the development and test setting, nothing outside this
 * process is asked at all.
 */
export async function logStartupChecks(
  env: Environment,
  logger: Pick<Logger, 'info' | 'warn'>,
  options: { queue: string; ports?: DoctorPorts },
): Promise<void> {
  try {
    const ports = options.ports ?? (await import('./doctor-probes.js')).realDoctorPorts(env);
    const results = await runDoctorChecks(
      env,
      { ...ports, probeModel: () => modelSettings(env) },
      {
        model: true,
        docker: options.queue === 'sqlite',
        containerSpec: false,
        redis: options.queue === 'redis',
      },
    );
    const failures = failureLines(results);
    for (const line of failures) logger.warn({}, `start-up check failed: ${line}`);
    if (failures.length === 0) logger.info({}, 'start-up checks passed (`selfdebug doctor` checks more)');
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    logger.warn({}, `start-up checks could not run: ${why}`);
  }
}

/** Whether the model settings would let a job start (a key, a valid URL), without a request. */
async function modelSettings(env: Environment) {
  const model = await loadLanguageModel(loadModelConfig(env));
  return {
    name: 'model server',
    status: 'ok' as const,
    detail: `${model.model} configured (not asked; \`selfdebug doctor --model\` asks it)`,
  };
}
