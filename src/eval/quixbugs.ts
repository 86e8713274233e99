import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { EvalSuite, EvalTask } from './eval-task.js';
import { isDirectory, isFile } from './files.js';

/**
 * QuixBugs (Python half) read straight from its folder at run time: one task
 * per `python_testcases/test_NAME.py`. The data stays where it is (shared/
 * beside the project), never copied into the repository.
 */
export const QUIXBUGS_DEFAULT_PATH = '../shared/data/quixbugs';

/** A safety net only: the per-test limit below ends an endless loop long before. */
const QUIXBUGS_TIMEOUT_SECONDS = 60;

/**
 * Two defects (bitcount, sqrt) loop forever. A per-test limit, as CI would
 * set with pytest-timeout (not installed in the sandbox image), turns the hang
 * into a failing test with a traceback at the loop, in seconds. It counts CPU
 * time, not wall time, so a busy machine does not fail correct programs: the
 * slowest fast case (levenshtein) needs under 2 s.
 */
const TIME_LIMIT_CONFTEST = `# Added by selfdebug eval (not part of QuixBugs): a per-test CPU-time limit, like
# pytest-timeout, so a program that loops forever fails its test instead of hanging.
import signal

import pytest

CPU_SECONDS = 5


def _expired(signum, frame):
    raise TimeoutError(f"the test used more than {CPU_SECONDS} s of CPU time: an endless loop?")


@pytest.fixture(autouse=True)
def _cpu_time_limit():
    previous = signal.signal(signal.SIGVTALRM, _expired)
    signal.setitimer(signal.ITIMER_VIRTUAL, CPU_SECONDS)
    yield
    signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    signal.signal(signal.SIGVTALRM, previous)
`;

/** Whether `dir` has the QuixBugs layout: programs, their corrected versions and tests. */
export async function isQuixBugsFolder(dir: string): Promise<boolean> {
  const needed = ['python_programs', 'correct_python_programs', 'python_testcases'];
  const found = await Promise.all(needed.map((name) => isDirectory(join(dir, name))));
  return found.every(Boolean);
}

export async function loadQuixBugs(dir: string): Promise<EvalSuite> {
  const tests = (await readdir(join(dir, 'python_testcases')))
    .filter((file) => /^test_\w+\.py$/.test(file))
    .sort();
  const tasks: EvalTask[] = [];
  for (const file of tests) {
    const name = file.slice('test_'.length, -'.py'.length);
    const program = `python_programs/${name}.py`;
    const correct = join(dir, 'correct_python_programs', `${name}.py`);
    if (!(await isFile(join(dir, program))) || !(await isFile(correct))) continue;
    tasks.push({
      name,
      language: 'python',
      description:
        `The QuixBugs tests in python_testcases/test_${name}.py fail. ` +
        `The defect is in ${program} (the tests and their data are right).`,
      // No --runslow: the conftest then skips the few cases marked slow and keeps every fast one.
      // -x stops at the first failing case: one clear failure, and no wait on the rest of a broken program.
      command: `python3 -m pytest -q -x --tb=short -p no:cacheprovider python_testcases/test_${name}.py`,
      setup: [],
      timeoutSeconds: QUIXBUGS_TIMEOUT_SECONDS,
      oracle: [{ path: program, search: '', replace: await readFile(correct, 'utf8') }],
      prepare: () => prepareWorkspace(dir, name),
    });
  }
  return { name: 'quixbugs', source: dir, tasks };
}

/**
 * Only what the task's tests need: above all not `correct_python_programs/`,
 * which a model with a file-reading tool would otherwise just copy.
 */
async function prepareWorkspace(dir: string, name: string) {
  const workspace = await mkdtemp(join(tmpdir(), `selfdebug-eval-${name}-`));
  const files = [
    'conftest.py',
    `python_programs/${name}.py`,
    'python_programs/node.py',
    `python_testcases/test_${name}.py`,
    'python_testcases/load_testdata.py',
    'python_testcases/node.py',
    `json_testcases/${name}.json`,
  ];
  try {
    for (const file of files) {
      if (!(await isFile(join(dir, file)))) continue;
      await mkdir(dirname(join(workspace, file)), { recursive: true });
      await copyFile(join(dir, file), join(workspace, file));
    }
    await writeFile(join(workspace, 'python_testcases', 'conftest.py'), TIME_LIMIT_CONFTEST);
  } catch (error) {
    await rm(workspace, { recursive: true, force: true });
    throw error;
  }
  return { dir: workspace, dispose: () => rm(workspace, { recursive: true, force: true }) };
}
