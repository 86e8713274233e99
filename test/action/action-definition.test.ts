import { execFile } from 'node:child_process';
import { cp, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ACTION_INPUTS, inputVariable } from '../../src/action/inputs.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const execFileAsync = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

interface ActionDefinition {
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string }>;
  runs: { using: string; main: string };
}

async function actionDefinition(): Promise<ActionDefinition> {
  return parse(await readFile(join(root, 'action.yml'), 'utf8')) as ActionDefinition;
}

/** The `with:` of every step that uses this action (any ref of selfdebug/selfdebug, or `./`). */
function selfdebugSteps(workflow: unknown): Record<string, unknown>[] {
  const jobs = (
    workflow as { jobs?: Record<string, { steps?: { uses?: string; with?: Record<string, unknown> }[] }> }
  ).jobs;
  return Object.values(jobs ?? {}).flatMap((job) =>
    (job.steps ?? [])
      .filter((step) => step.uses === './' || step.uses?.startsWith('selfdebug/selfdebug@'))
      .map((step) => step.with ?? {}),
  );
}

describe('action.yml', () => {
  it('declares exactly the inputs the entry point reads, and runs the bundle on node20', async () => {
    const action = await actionDefinition();
    expect(Object.keys(action.inputs).sort()).toEqual([...ACTION_INPUTS].sort());
    expect(action.runs).toEqual({ using: 'node20', main: 'dist-action/index.js' });
    expect(inputVariable('api-key')).toBe('INPUT_API-KEY');
  });

  it('has example workflows that parse and pass only inputs action.yml defines', async () => {
    const action = await actionDefinition();
    const folder = join(root, 'docs/examples');
    const files = (await readdir(folder)).filter((name) => name.endsWith('.yml'));
    expect(files.sort()).toEqual(['in-job.yml', 'workflow-run.yml']);
    for (const file of files) {
      const steps = selfdebugSteps(parse(await readFile(join(folder, file), 'utf8')));
      expect(steps, file).toHaveLength(1);
      for (const name of Object.keys(steps[0]!))
        expect(Object.keys(action.inputs), `${file}: ${name}`).toContain(name);
      expect(steps[0]!['api-key'], file).toMatch(/secrets\./);
    }
  });
});

describe('the bundled action (dist-action/)', () => {
  const tempDir = useTempDirs();

  it('starts with no node_modules near it and fails clearly without a model key', async () => {
    const alone = await tempDir('selfdebug-action-dist-');
    await cp(join(root, 'dist-action'), alone, { recursive: true });
    const result = await execFileAsync(process.execPath, [join(alone, 'index.js')], {
      cwd: alone,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GITHUB_WORKSPACE: alone,
        GITHUB_REPOSITORY: 'octo-org/app',
        'INPUT_GITHUB-TOKEN': 'ghs_token',
        INPUT_SANDBOX: 'docker',
        INPUT_DELIVER: 'pull-request',
      },
    }).then(
      (done) => ({ code: 0, stdout: done.stdout }),
      (failed: { code: number; stdout: string }) => ({ code: failed.code, stdout: failed.stdout }),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^::error::selfdebug: input `api-key`: the model API key is missing/m);
  });
});
