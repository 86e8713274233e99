import type { Sandbox, WorkspaceFile } from '../sandbox/sandbox.js';
import { workspacePath } from '../sandbox/workspace-path.js';
import type { Logger } from '../util/logger.js';
import { copyBack } from '../workspace/copy-back.js';

type FileReader = Pick<Sandbox, 'readFile'>;

/**
 * The sandbox's files, each read once. The copy-back and the scripts
 * read the same edited files one after the other, with no command between
 * them that could change one, and each read is a command in the sandbox.
 */
export function readOnce(sandbox: FileReader): FileReader {
  const reads = new Map<string, Promise<WorkspaceFile | null>>();
  return {
    readFile(path) {
      const read = reads.get(path) ?? sandbox.readFile(path);
      reads.set(path, read);
      return read;
    },
  };
}

/**
 * Only the files the loop edited come back: never .git, build output or anything else the command wrote.
 * The refused ones are logged here and returned, since the delivery plan reports them too.
 */
export async function copyFixBack(
  sandbox: FileReader,
  changedFiles: readonly string[],
  dir: string,
  log: { logger: Logger; jobId: string },
) {
  const { refused } = await copyBack(sandbox, changedFiles, dir);
  if (refused.length > 0) {
    const paths = refused.map((entry) => `${entry.path} (${entry.reason})`).join('; ');
    log.logger.warn({ job: log.jobId, refused: paths }, 'files of the fix could not be copied back');
  }
  return refused;
}

/** The files of an issue's scripts as the loop left them, read through the sandbox port. */
export async function fixedScripts(sandbox: FileReader, paths: readonly string[]) {
  const scripts: { path: string; content: string }[] = [];
  for (const path of paths) {
    const file = await sandbox.readFile(workspacePath(path));
    if (file !== null) scripts.push({ path, content: file.content.toString('utf8') });
  }
  return scripts;
}
