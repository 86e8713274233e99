import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/cli/main.js';
import { type ResultsFile, resultsFileSchema } from '../../src/eval/results-file.js';

export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
/** shared/ sits beside the project, here and in CI. */
export const quixbugsDir = join(projectRoot, '..', 'shared', 'data', 'quixbugs');
export const ownTasksDir = join(projectRoot, 'eval', 'tasks');

/** Whether the host can run QuixBugs in the local sandbox (python3 with pytest). */
export const hostHasPytest =
  spawnSync('python3', ['-m', 'pytest', '--version'], { stdio: 'ignore' }).status === 0;

export interface EvalCliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** `selfdebug eval …` in this process, with only the settings given (no model server, no host keys). */
export async function evalCli(argv: string[], env: Record<string, string> = {}): Promise<EvalCliResult> {
  let stdout = '';
  let stderr = '';
  const exitCode = await run(['eval', ...argv], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { PATH: process.env.PATH, ...env },
  });
  return { exitCode, stdout, stderr };
}

export async function readResultsFile(outDir: string): Promise<ResultsFile> {
  return resultsFileSchema.parse(JSON.parse(await readFile(join(outDir, 'results.json'), 'utf8')));
}

export function fixedCount(results: ResultsFile, mode: 'loop' | 'oneShot'): number {
  return results.tasks.filter((task) => task[mode]?.fixed).length;
}
