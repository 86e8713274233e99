import type { AppConfig } from '../config/app-config.js';
import type { ModelConfig } from '../config/model-config.js';
import { applyOperatorCeilings, type RepoConfig } from '../config/repo-config.js';
import { reportSettings } from '../config/repo-config-mappers.js';
import type { SandboxConfig } from '../config/sandbox-config.js';
import { mergeSettings, type RunSettings } from '../fix/index.js';
import { DEFAULT_COMMAND_TIMEOUT_SECONDS } from '../loop/task.js';
import type { JobRequest } from '../queue/job-request.js';
import { type LoopMode, triggers } from '../triggers/index.js';
import type { ReporterSettings } from './job-events.js';

/**
 * Everything one job takes from the repository's configuration, the
 * operator's ceilings and the request's own options, worked out once from
 * the file read once, then passed on: no later step reads or parses the
 * configuration again.
 */
export interface JobSettings extends RunSettings {
  /** The repository's configuration after the operator's ceilings. */
  repo: RepoConfig;
  mode: LoopMode;
  report: ReporterSettings;
  /** Values the job's output must never show: the model's key and the repository's `secret_env` values. */
  secrets: (string | undefined)[];
}

export interface SettingsSources {
  sandboxConfig: SandboxConfig;
  modelConfig: ModelConfig;
  appConfig: AppConfig;
  environment: Record<string, string | undefined>;
  operatorSecrets?: readonly string[];
}

export function jobSettings(request: JobRequest, config: RepoConfig, sources: SettingsSources): JobSettings {
  const { config: repo, notes } = applyOperatorCeilings(config, sources.appConfig);
  const { options } = request;
  const { sandbox, model, limits, prices } = mergeSettings({
    operator: { sandbox: sources.sandboxConfig, model: sources.modelConfig },
    repo,
    door: {
      sandbox: { commandTimeoutSeconds: options.timeoutSeconds || undefined },
      model: { model: options.model || undefined },
      limits: {
        maxAttempts: options.maxAttempts,
        // The App's loop times a run by the request's option or the repository's setting, else the loop's own
        // default, never the operator's sandbox setting (docs/settings-precedence.md says why).
        commandTimeoutSeconds:
          options.timeoutSeconds ?? repo.sandbox.timeout_seconds ?? DEFAULT_COMMAND_TIMEOUT_SECONDS,
      },
    },
    source: 'the operator settings and .github/selfdebug.yml',
  });
  return {
    repo,
    sandbox,
    model,
    limits,
    prices,
    mode: triggers.moduleOf(request.trigger).loopMode(request.trigger),
    // Notes (a setting the operator's ceiling changed) go in the status comment, so a job's comments stay bounded.
    report: { ...reportSettings(repo), notes },
    secrets: [
      sources.modelConfig.apiKey,
      ...(sources.operatorSecrets ?? []),
      ...repo.secret_env.map((name) => sources.environment[name]),
    ],
  };
}
