import { readdir, readFile } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../errors/index.js';
import type { Edit } from '../loop/schemas.js';
import type { EvalSuite, EvalTask } from './eval-task.js';
import { isDirectory, isFile } from './files.js';

/**
 * A folder of tasks: `NAME/task.yml` names the command; `NAME/broken/` is the
 * workspace as CI saw it; `NAME/fixed/` holds the files the known fix changes,
 * at the same paths. The format is documented in docs/eval.md.
 */
export const TASK_FILE = 'task.yml';

const taskFileSchema = z.strictObject({
  description: z.string().min(1),
  command: z.string().min(1),
  language: z.string().min(1).default('unknown'),
  setup: z.array(z.string().min(1)).default([]),
  /** Seconds per run of the command. */
  timeout: z.number().positive().max(3600).optional(),
});

/** Whether `dir` holds task folders (at least one `NAME/task.yml`). */
export async function isTaskFolder(dir: string): Promise<boolean> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory() && (await isFile(join(dir, entry.name, TASK_FILE)))) return true;
  }
  return false;
}

export async function loadTaskFolder(dir: string): Promise<EvalSuite> {
  const entries = await readdir(dir, { withFileTypes: true });
  const tasks: EvalTask[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory() || !(await isFile(join(dir, entry.name, TASK_FILE)))) continue;
    tasks.push(await loadTask(join(dir, entry.name)));
  }
  return { name: basename(dir), source: dir, tasks };
}

async function loadTask(taskDir: string): Promise<EvalTask> {
  const source = join(taskDir, TASK_FILE);
  let data: unknown;
  try {
    data = parseYaml(await readFile(source, 'utf8'));
  } catch (error) {
    throw new ConfigError(source, `✖ not valid YAML: ${(error as Error).message}`);
  }
  const parsed = taskFileSchema.safeParse(data);
  if (!parsed.success) throw new ConfigError(source, z.prettifyError(parsed.error));
  const broken = join(taskDir, 'broken');
  if (!(await isDirectory(broken))) {
    throw new ConfigError(source, `✖ ${broken} is missing: put the broken workspace there.`);
  }
  const spec = parsed.data;
  const workspace = { dir: broken, dispose: async () => {} };
  return {
    name: basename(taskDir),
    language: spec.language,
    description: spec.description,
    command: spec.command,
    setup: spec.setup,
    timeoutSeconds: spec.timeout,
    oracle: await oracleEdits(join(taskDir, 'fixed')),
    prepare: async () => workspace,
  };
}

/** Each file under `fixed/` replaces the broken one whole: exact, and needs no diffing. */
async function oracleEdits(fixedDir: string): Promise<Edit[]> {
  if (!(await isDirectory(fixedDir))) return [];
  const edits: Edit[] = [];
  for (const path of await filesUnder(fixedDir)) {
    edits.push({
      path: relative(fixedDir, path).split(sep).join('/'),
      search: '',
      replace: await readFile(path, 'utf8'),
    });
  }
  return edits;
}

async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(path)));
    else if (entry.isFile()) found.push(path);
  }
  return found.sort();
}
