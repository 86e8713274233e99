import { mkdir } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import type { SandboxConfig } from '../../config/sandbox-config.js';
import {
  nameTooLong,
  SelfdebugError,
  WorkspaceFullError,
  WorkspacePathError,
  WorkspaceTransferError,
  workspacePathProblem,
} from '../../errors/index.js';
import {
  type CopyInReport,
  type CopyOutReport,
  DEFAULT_FILE_MODE,
  type WorkspaceFile,
} from '../../sandbox/sandbox.js';
import { workspacePath } from '../../sandbox/workspace-path.js';
import { replaceDirectoryContents } from '../../util/replace-directory-contents.js';
import type { ContainerCalls } from './container-calls.js';
import { PREPARED_WORKSPACE } from './environment-cache.js';
import { fileHelperFailure } from './file-helper-failure.js';
import {
  parseReadFile,
  parseWriteFile,
  readFileCommand,
  workspaceFile,
  writeFileCommand,
} from './path-check.js';
import { extractWorkspace, packWorkspace } from './workspace-archive.js';

/** Files larger than this are not read back whole (the model gets line ranges through exec instead). */
const MAX_READ_BYTES = 16 * 1024 * 1024;

/** Room for the read command's header (mode, resolved path, link target) before the file's bytes. */
const READ_HEADER_BYTES = 16 * 1024;

/** Room for the write command's answer: a verdict and the path it landed on. */
const WRITE_ANSWER_BYTES = 16 * 1024;

/** The numeric uid and gid of a `uid:gid` user setting. */
function ownerOf(user: string): { uid: number; gid: number } {
  const [uid = 1000, gid = uid] = user.split(':').map(Number);
  return { uid, gid };
}

/** A workspace path, refused before the engine sees a name no file system takes (it would answer a bare 500). */
function checkedPath(path: string): string {
  const relative = workspacePath(path);
  if (nameTooLong(relative)) throw workspacePathProblem(relative, 'name-too-long');
  return relative;
}

/**
 * One sandbox's workspace as files: single files read and written by a
 * command run as the sandbox user (path-check.ts), the whole workspace
 * copied in and out through the engine's archives, and what setup installed
 * put back.
 */
export class WorkspaceFiles {
  private filled = false;

  constructor(
    private readonly container: Docker.Container,
    private readonly calls: ContainerCalls,
    private readonly config: SandboxConfig,
    /** Who commands run as: a copy-out leaves out what this user could not read. */
    private readonly execUser: string,
  ) {}

  async readFile(path: string): Promise<WorkspaceFile | null> {
    const relative = checkedPath(path);
    // Read by a command run as the sandbox user: the engine's archive API would read as root.
    const read = await this.calls.runBytes(
      readFileCommand(this.config.workdir, relative, MAX_READ_BYTES),
      MAX_READ_BYTES + READ_HEADER_BYTES,
    );
    if (read.exitCode !== 0) throw fileHelperFailure('read', relative, read, this.config.workspaceMb);
    const outcome = parseReadFile(relative, read.stdout);
    if (outcome instanceof WorkspacePathError) throw outcome;
    if (outcome === null || outcome.content.length > MAX_READ_BYTES) return null;
    return workspaceFile(relative, outcome);
  }

  /**
   * Written by one command run as the sandbox user, which resolves the path
   * and writes the bytes it reads from stdin: no check made first and a write
   * made later as root, so nothing can swap the path in between, and the
   * kernel's permissions decide where the write may go.
   */
  async writeFile(path: string, content: string | Buffer, mode = DEFAULT_FILE_MODE): Promise<void> {
    const relative = checkedPath(path);
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    const written = await this.calls.runBytes(
      writeFileCommand(this.config.workdir, relative, mode),
      WRITE_ANSWER_BYTES,
      bytes,
    );
    if (written.exitCode !== 0) throw fileHelperFailure('write', relative, written, this.config.workspaceMb);
    const outcome = parseWriteFile(relative, written.stdout);
    if (outcome instanceof WorkspacePathError) throw outcome;
  }

  async copyIn(hostDir: string): Promise<CopyInReport> {
    const { workdir } = this.config;
    if (this.filled) {
      const cleared = await this.calls.runQuiet(['find', workdir, '-mindepth', '1', '-delete']);
      if (cleared.exitCode !== 0) {
        throw new WorkspaceTransferError('in', `could not clear ${workdir}: ${cleared.output.slice(0, 500)}`);
      }
    }
    const { archive, removed } = packWorkspace(hostDir, ownerOf(this.config.user));
    try {
      await this.container.putArchive(archive, { path: workdir });
      this.filled = true;
      return { removed: await removed };
    } catch (error) {
      throw this.transferError('in', error);
    }
  }

  async copyOut(hostDir: string): Promise<CopyOutReport> {
    await mkdir(hostDir, { recursive: true });
    try {
      const archive = (await this.container.getArchive({ path: this.config.workdir })) as unknown as Readable;
      const limits = {
        maxBytes: this.config.maxCopyOutMb * 1024 * 1024,
        maxEntries: this.config.maxCopyOutFiles,
        reader: ownerOf(this.execUser),
      };
      // The host's .git stays: the sandbox's copy of it is never taken (see extractWorkspace).
      const refused = await replaceDirectoryContents(
        hostDir,
        (staging) => extractWorkspace(archive, staging, limits),
        ['.git'],
      );
      return { refused };
    } catch (error) {
      throw this.transferError('out', error);
    }
  }

  /**
   * Puts what setup installed (kept in the prepared image outside the
   * workspace, see stowPrepared) back into the workspace, where setup's
   * absolute paths expect it. Runs in the container, so it counts against
   * the workspace limit like anything else the job writes.
   */
  async restorePrepared(): Promise<void> {
    const restored = await this.calls.runQuiet([
      'sh',
      '-c',
      '[ ! -d "$0" ] || cp -a "$0"/. "$1"/',
      PREPARED_WORKSPACE,
      this.config.workdir,
    ]);
    if (restored.exitCode === 0) return;
    if (/no space left on device/i.test(restored.output))
      throw new WorkspaceFullError('What setup installed', this.config.workspaceMb);
    throw new WorkspaceTransferError(
      'in',
      `could not restore the prepared environment: ${restored.output.slice(0, 500)}`,
    );
  }

  private transferError(direction: 'in' | 'out', error: unknown): SelfdebugError {
    if (error instanceof SelfdebugError) return error;
    if (direction === 'in' && /no space left on device/i.test(String((error as Error).message ?? error)))
      return new WorkspaceFullError('The repository', this.config.workspaceMb, { cause: error });
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined || (error as { code?: string }).code === 'ECONNREFUSED')
      return this.calls.mapped(error);
    return new WorkspaceTransferError(direction, error instanceof Error ? error.message : String(error), {
      cause: error,
    });
  }
}
