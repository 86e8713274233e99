import { readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { SandboxConfig } from '../../config/sandbox-config.js';
import { SandboxError, WorkspaceFullError } from '../../errors/index.js';
import type { DockerSandbox } from './docker-sandbox.js';
import { PREPARED_WORKSPACE } from './environment-cache.js';

/**
 * The prepared image keeps what setup produced (node_modules, .venv, build
 * caches) but not the sources: every job copies its own commit in fresh, so
 * a file deleted since never lingers. What is left goes to the sandbox user
 * and moves to PREPARED_WORKSPACE, since the loop's workspace is a new tmpfs
 * over the image's; it must fit that workspace, or no job could start from it.
 */
export async function stowPrepared(
  setup: DockerSandbox,
  workspace: string,
  config: SandboxConfig,
): Promise<void> {
  const { files, folders } = await listTree(workspace);
  const quote = (path: string) => `'${path.replaceAll("'", "'\\''")}'`;
  const script = [
    ...chunk(files.map(quote), 200).map((part) => `rm -f -- ${part.join(' ')}`),
    // Deepest first, and only the sources' own folders: setup may have made empty ones on purpose.
    ...chunk(folders.reverse().map(quote), 200).map(
      (part) => `rmdir --ignore-fail-on-non-empty -- ${part.join(' ')} 2>/dev/null || true`,
    ),
    `chown -R ${config.user} .`,
    `mkdir -p ${PREPARED_WORKSPACE}`,
    `find . -mindepth 1 -maxdepth 1 -exec mv -t ${PREPARED_WORKSPACE} -- {} +`,
    `du -sm ${PREPARED_WORKSPACE} | cut -f1`,
  ].join('\n');
  const result = await setup.exec(script, { timeoutSeconds: 600 });
  if (result.exitCode !== 0)
    throw new SandboxError(
      `Could not clear the sources from the prepared environment: ${result.output.slice(0, 500)}`,
    );
  const megabytes = Number(result.stdout.trim().split('\n').at(-1));
  if (megabytes > config.workspaceMb)
    throw new WorkspaceFullError(`What setup installed (${megabytes} MB)`, config.workspaceMb);
}

async function listTree(root: string, prefix = ''): Promise<{ files: string[]; folders: string[] }> {
  const entries = await readdir(join(root, prefix), { withFileTypes: true });
  const tree = { files: [] as string[], folders: [] as string[] };
  for (const entry of entries) {
    const path = prefix ? posix.join(prefix, entry.name) : entry.name;
    if (!entry.isDirectory()) {
      tree.files.push(path);
      continue;
    }
    tree.folders.push(path);
    const inner = await listTree(root, path);
    tree.files.push(...inner.files);
    tree.folders.push(...inner.folders);
  }
  return tree;
}

function chunk<T>(items: T[], size: number): T[][] {
  const parts: T[][] = [];
  for (let index = 0; index < items.length; index += size) parts.push(items.slice(index, index + size));
  return parts;
}
