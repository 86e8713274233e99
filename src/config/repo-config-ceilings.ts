import { matchesAny } from '../util/glob.js';
import type { AppConfig } from './app-config.js';
import type { RepoConfig } from './repo-config-schema.js';

export interface CeilingResult {
  /** The repository's settings with everything above the operator's ceilings brought down. */
  config: RepoConfig;
  /** One Markdown sentence per setting that was changed, to show in the status comment. */
  notes: string[];
}

/**
 * A repository's file is written by anyone with push access, so it may ask
 * but not decide where the operator has drawn a line: memory above the
 * host's ceiling is capped, host networking and a model server of its own
 * are ignored unless the operator allows them. Capping (not rejecting) keeps
 * a job running on a host that is merely smaller than the one the file was
 * written for; the notes make the change visible instead of silent.
 */
export function applyOperatorCeilings(
  config: RepoConfig,
  appConfig: Pick<AppConfig, 'maxMemoryMb' | 'allowHostNetwork' | 'allowRepoModelUrl'> &
    Partial<Pick<AppConfig, 'repoEgressCeiling'>>,
): CeilingResult {
  const notes: string[] = [];
  const sandbox = { ...config.sandbox };
  const model = { ...config.model };

  if (sandbox.memory_mb !== undefined && sandbox.memory_mb > appConfig.maxMemoryMb) {
    notes.push(
      `\`sandbox.memory_mb\` asks for ${sandbox.memory_mb} MB, but this App allows at most ` +
        `${appConfig.maxMemoryMb} MB, so ${appConfig.maxMemoryMb} MB is used.`,
    );
    sandbox.memory_mb = appConfig.maxMemoryMb;
  }
  if (sandbox.network === 'host' && !appConfig.allowHostNetwork) {
    notes.push(
      '`sandbox.network: host` is not allowed by this App (its operator can set SELFDEBUG_ALLOW_HOST_NETWORK), ' +
        'so the container runs without network.',
    );
    sandbox.network = 'none';
  }
  const ceiling = appConfig.repoEgressCeiling ?? ['*'];
  const beyond = sandbox.allowed_hosts.filter((host) => !matchesAny(host.replace(/:\d+$/, ''), ceiling));
  if (beyond.length > 0) {
    notes.push(
      `\`sandbox.allowed_hosts\` lists ${beyond.map((host) => `\`${host}\``).join(', ')}, which this App does not let ` +
        'repositories open (its operator sets SELFDEBUG_REPO_EGRESS_CEILING), so setup cannot reach them.',
    );
    sandbox.allowed_hosts = sandbox.allowed_hosts.filter((host) => !beyond.includes(host));
  }
  if (model.base_url !== undefined && !appConfig.allowRepoModelUrl) {
    notes.push(
      '`model.base_url` is ignored: this App sends its API key only to its own model server (its operator can ' +
        'set SELFDEBUG_ALLOW_REPO_MODEL_URL).',
    );
    delete model.base_url;
  }

  return { config: notes.length === 0 ? config : { ...config, sandbox, model }, notes };
}
