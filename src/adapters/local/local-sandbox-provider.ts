import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Environment } from '../../config/read-environment.js';
import type { SandboxConfig } from '../../config/sandbox-config.js';
import { Redactor } from '../../report/index.js';
import { credentialNotes } from '../../sandbox/credential-plan.js';
import { NO_PREPARATION, type PreparationReport } from '../../sandbox/environment.js';
import { runSetup } from '../../sandbox/run-setup.js';
import type { OpenSandboxRequest, Sandbox, SandboxProvider } from '../../sandbox/sandbox.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { realTimers, type Timers } from '../../util/timers.js';
import { LocalSandbox, passedHostVariables } from './local-sandbox.js';

/** The banner; `instead` says how to go back to Docker, in the terms the person used to leave it. */
export function localSandboxWarning(instead = 'set SELFDEBUG_SANDBOX=docker'): string {
  return (
    'UNSAFE: the local sandbox runs commands as child processes of selfdebug, with its user, its network and ' +
    `its file system. Use it only for development on code you trust; ${instead} for anything else.`
  );
}

export const LOCAL_SANDBOX_WARNING = localSandboxWarning();

export interface LocalSandboxOptions {
  /** The variables selfdebug was started with: commands get PATH, LANG, LC_ALL and TZ of them, nothing else. */
  host: Environment;
  logger?: Logger;
  /** Where the banner goes once; stderr unless the caller has its own channel (the Action's annotations). */
  warn?: (message: string) => void;
  /** The banner; LOCAL_SANDBOX_WARNING unless the person chose this sandbox some other way than the variable. */
  warning?: string;
  /** Times each command's limit; the real scheduler unless a test brings its own. */
  timers?: Timers;
}

/** Development sandbox: a temporary copy of the workspace and plain child processes. */
export class LocalSandboxProvider implements SandboxProvider {
  readonly kind = 'local' as const;
  private warned = false;
  private readonly hostVariables: Readonly<Record<string, string>>;
  private readonly logger: Logger;
  private readonly warn: (message: string) => void;
  private readonly warning: string;
  private readonly timers: Timers;

  constructor(
    private readonly config: SandboxConfig,
    options: LocalSandboxOptions,
  ) {
    this.hostVariables = passedHostVariables(options.host);
    this.logger = options.logger ?? silentLogger;
    this.warn = options.warn ?? ((message) => process.stderr.write(`\n⚠️  ${message}\n\n`));
    this.warning = options.warning ?? LOCAL_SANDBOX_WARNING;
    this.timers = options.timers ?? realTimers;
  }

  async open(request: OpenSandboxRequest): Promise<Sandbox> {
    request.signal?.throwIfAborted();
    if (!this.warned) {
      this.warned = true;
      this.warn(this.warning);
      this.logger.warn({ sandbox: 'local' }, this.warning);
    }
    const root = await mkdtemp(
      join(tmpdir(), `selfdebug-${request.jobId.replace(/[^\w.-]/g, '-').slice(0, 40)}-`),
    );
    const sandbox = new LocalSandbox(root, this.config, this.hostVariables, this.timers);
    try {
      await Promise.all(['workspace', 'home', 'tmp'].map((name) => mkdir(join(root, name))));
      const copied = credentialNotes((await sandbox.copyIn(await request.workspace)).removed);
      sandbox.preparation = await this.prepare(sandbox, request, copied);
      // Without a preparation report the notes have no transcript to go to: the log says it.
      if (sandbox.preparation === null && copied.length > 0)
        this.logger.warn({ sandbox: 'local' }, copied[0]!);
      return sandbox;
    } catch (error) {
      await sandbox.dispose();
      throw error;
    }
  }

  /**
   * Setup runs here like any other command: this sandbox has the host's
   * network and tools, so there is no image to pull, no proxy and no cache.
   */
  private async prepare(
    sandbox: LocalSandbox,
    request: OpenSandboxRequest,
    copyNotes: string[],
  ): Promise<PreparationReport | null> {
    const environment = await request.environment;
    if (!environment) return null;
    const before: PreparationReport = {
      ...NO_PREPARATION,
      image: 'the local machine',
      notes: [
        ...(environment.notes ?? []),
        ...(environment.image ? [`the local sandbox ignores the image ${environment.image}`] : []),
        ...(environment.services.length > 0 ? ['the local sandbox starts no services'] : []),
        ...copyNotes,
      ],
      ...(environment.names ? { names: environment.names } : {}),
    };
    const ran = await runSetup(sandbox, environment.setup, before, {
      timeoutSeconds: this.config.setupTimeoutSeconds,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.onProgress ? { onProgress: request.onProgress } : {}),
      redact: (text) => Redactor.none.redact(text),
    });
    return { ...before, ...ran };
  }
}
