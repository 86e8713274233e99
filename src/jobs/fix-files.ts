import type { FileReader } from '../sandbox/read-once.js';
import { workspacePath } from '../sandbox/workspace-path.js';

/** The files of an issue's scripts as the loop left them, read through the sandbox port. */
export async function fixedScripts(sandbox: FileReader, paths: readonly string[]) {
  const scripts: { path: string; content: string }[] = [];
  for (const path of paths) {
    const file = await sandbox.readFile(workspacePath(path));
    if (file !== null) scripts.push({ path, content: file.content.toString('utf8') });
  }
  return scripts;
}
