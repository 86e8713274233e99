import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxConfig } from '../../config/sandbox-config.js';
import type { OpenSandboxRequest, Sandbox, SandboxProvider } from '../../sandbox/sandbox.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { LocalSandbox } from './local-sandbox.js';

export const LOCAL_SANDBOX_WARNING =
  'UNSAFE: the local sandbox runs commands as child processes of selfdebug, with its user, its network and ' +
  'its file system. Use it only for development on code you trust; set SELFDEBUG_SANDBOX=docker for anything else.';

/** Development sandbox: a temporary copy of the workspace and plain child processes. */
export class LocalSandboxProvider implements SandboxProvider {
  readonly kind = 'local' as const;
  private warned = false;

  constructor(
    private readonly config: SandboxConfig,
    private readonly logger: Logger = silentLogger,
    private readonly warn: (message: string) => void = (message) =>
      process.stderr.write(`\n⚠️  ${message}\n\n`),
  ) {}

  async open(request: OpenSandboxRequest): Promise<Sandbox> {
    request.signal?.throwIfAborted();
    if (!this.warned) {
      this.warned = true;
      this.warn(LOCAL_SANDBOX_WARNING);
      this.logger.warn({ sandbox: 'local' }, LOCAL_SANDBOX_WARNING);
    }
    const root = await mkdtemp(
      join(tmpdir(), `selfdebug-${request.jobId.replace(/[^\w.-]/g, '-').slice(0, 40)}-`),
    );
    const sandbox = new LocalSandbox(root, this.config);
    try {
      await Promise.all(['workspace', 'home', 'tmp'].map((name) => mkdir(join(root, name))));
      await sandbox.copyIn(await request.workspace);
      return sandbox;
    } catch (error) {
      await sandbox.dispose();
      throw error;
    }
  }
}
