import type { Sandbox } from '../sandbox/sandbox.js';
import { workspacePath } from '../sandbox/workspace-path.js';
import type { Logger } from '../util/logger.js';
import { copyBack } from '../workspace/copy-back.js';

/**
 * Only the files the loop edited come back: never .git, build output or anything else the command wrote.
 * The refused ones are logged here and returned, since the delivery plan reports them too.
 */
export async function copyFixBack(
  sandbox: Sandbox,
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
export async function fixedScripts(sandbox: Sandbox, paths: readonly string[]) {
  const scripts: { path: string; content: string }[] = [];
  for (const path of paths) {
    const file = await sandbox.readFile(workspacePath(path));
    if (file !== null) scripts.push({ path, content: file.content.toString('utf8') });
  }
  return scripts;
}
