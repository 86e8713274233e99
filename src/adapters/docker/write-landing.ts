import { WorkspacePathError, WorkspaceTransferError } from '../../errors/index.js';
import type { ContainerCalls } from './container-calls.js';
import { parsePathCheck, pathCheckCommand } from './path-check.js';

/**
 * Where a write lands, checked first: the engine would replace a file in the
 * way by a folder, or a folder (or a link) by the file, and would follow a
 * link anywhere, so it is given the path with every link resolved by a
 * command run as the sandbox user (see path-check.ts).
 *
 * A read resolves its path by the same script. An edit reads a file and
 * writes it straight back: while nothing else ran in the container or
 * wrote to it, the file lands where the read resolved it, and the check
 * need not run twice. The sandbox forgets the read whenever anything runs
 * (the sweep after each command leaves nothing of it running).
 */
export class WriteLanding {
  private lastRead: { path: string; resolved: string } | null = null;

  constructor(
    private readonly calls: ContainerCalls,
    private readonly workdir: string,
  ) {}

  /** A read of `path` resolved to `resolved` ('' is the path itself). */
  read(path: string, resolved: string): void {
    this.lastRead = { path, resolved: resolved === '' ? path : resolved };
  }

  /** Something ran in the container or changed its workspace. */
  forget(): void {
    this.lastRead = null;
  }

  async of(relative: string): Promise<{ resolved: string }> {
    const read = this.lastRead;
    this.lastRead = null;
    if (read?.path === relative) return { resolved: read.resolved };
    const check = await this.calls.runBytes(pathCheckCommand(this.workdir, relative), 16 * 1024);
    if (check.exitCode !== 0)
      throw new WorkspaceTransferError('in', `could not check ${relative}: ${check.stderr.slice(0, 500)}`);
    const landing = parsePathCheck(relative, check.stdout);
    if (landing instanceof WorkspacePathError) throw landing;
    return landing;
  }
}
