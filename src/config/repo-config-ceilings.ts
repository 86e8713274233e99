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
 * host's ceiling is capped (and the workspace's size), host networking and a model server of its own
 * are ignored unless the operator allows them. Capping (not rejecting) keeps
 * a job running on a host that is merely smaller than the one the file was
 * written for; the notes make the change visible instead of silent.
 */
export function applyOperatorCeilings(config: RepoConfig, appConfig: OperatorCeilings): CeilingResult {
  const notes: string[] = [];
  const sandbox = { ...config.sandbox };
  const model = { ...config.model };
  capSizes(sandbox, appConfig, notes);
  capNetwork(sandbox, appConfig, notes);
  if (model.base_url !== undefined && !appConfig.allowRepoModelUrl) {
    notes.push(
      '`model.base_url` is ignored: this App sends its API key only to its own model server (its operator can ' +
        'set SELFDEBUG_ALLOW_REPO_MODEL_URL).',
    );
    delete model.base_url;
  }

  return { config: notes.length === 0 ? config : { ...config, sandbox, model }, notes };
}

type OperatorCeilings = Pick<AppConfig, 'maxMemoryMb' | 'allowHostNetwork' | 'allowRepoModelUrl'> &
  Partial<Pick<AppConfig, 'repoEgressCeiling' | 'maxWorkspaceMb'>>;

/** Memory and workspace size above the operator's ceiling come down to it. */
function capSizes(sandbox: RepoConfig['sandbox'], appConfig: OperatorCeilings, notes: string[]): void {
  for (const [key, limit, variable] of [
    ['memory_mb', appConfig.maxMemoryMb, 'SELFDEBUG_MAX_MEMORY_MB'],
    ['workspace_mb', appConfig.maxWorkspaceMb ?? Number.POSITIVE_INFINITY, 'SELFDEBUG_MAX_WORKSPACE_MB'],
  ] as const) {
    const asked = sandbox[key];
    if (asked === undefined || asked <= limit) continue;
    notes.push(
      `\`sandbox.${key}\` asks for ${asked} MB, but this App allows at most ${limit} MB ` +
        `(its operator sets ${variable}), so ${limit} MB is used.`,
    );
    sandbox[key] = limit;
  }
}

/** Host networking unless allowed, and hosts beyond the operator's egress ceiling, are dropped. */
function capNetwork(sandbox: RepoConfig['sandbox'], appConfig: OperatorCeilings, notes: string[]): void {
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
}
