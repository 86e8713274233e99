import { resolve } from 'node:path';
import { SelfdebugError } from '../errors/index.js';
import type { EvalSuite } from './eval-task.js';
import { isDirectory } from './files.js';
import { isQuixBugsFolder, loadQuixBugs } from './quixbugs.js';
import { isTaskFolder, loadTaskFolder, TASK_FILE } from './task-folder.js';

/** The folder given to `selfdebug eval` holds no suite we know; the message says what would. */
export class SuiteNotFoundError extends SelfdebugError {
  constructor(dir: string, why: string) {
    super(
      'eval-suite',
      `${dir} ${why}. Give a folder of tasks (each NAME/${TASK_FILE} with NAME/broken/, ` +
        'e.g. eval/tasks) or a QuixBugs folder (e.g. ../shared/data/quixbugs); see docs/eval.md.',
    );
  }
}

/** Reads a suite: a QuixBugs folder as it is, or a folder of task folders. */
export async function loadSuite(dir: string, only: readonly string[] = []): Promise<EvalSuite> {
  const absolute = resolve(dir);
  if (!(await isDirectory(absolute))) throw new SuiteNotFoundError(dir, 'is not a folder');
  let suite: EvalSuite;
  if (await isQuixBugsFolder(absolute)) suite = await loadQuixBugs(absolute);
  else if (await isTaskFolder(absolute)) suite = await loadTaskFolder(absolute);
  else throw new SuiteNotFoundError(dir, 'holds no eval tasks');
  if (only.length === 0) return suite;
  const unknown = only.filter((name) => !suite.tasks.some((task) => task.name === name));
  if (unknown.length > 0) {
    throw new SuiteNotFoundError(
      dir,
      `has no task named ${unknown.join(', ')} (it has ${suite.tasks.map((task) => task.name).join(', ')})`,
    );
  }
  return { ...suite, tasks: suite.tasks.filter((task) => only.includes(task.name)) };
}
