import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionSettings } from '../../src/action/action-settings.js';
import { readActionEnvironment } from '../../src/action/inputs.js';
import { withToolPath } from '../../src/action/tool-path.js';
import { LocalSandboxProvider } from '../../src/adapters/local/local-sandbox-provider.js';
import { parseFixOptions } from '../../src/cli/fix-options.js';
import { resolveSettings } from '../../src/cli/fix-settings.js';
import { appConfigSchema } from '../../src/config/app-config.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { modelConfigSchema } from '../../src/config/model-config.js';
import { defaultRepoConfig } from '../../src/config/repo-config.js';
import { type FixPlan, mergeSettings, modelPrices, runFixPlan } from '../../src/fix/index.js';
import { jobSettings } from '../../src/jobs/job-settings.js';
import type { LoopEvent } from '../../src/loop/events.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import type { Sandbox, SandboxProvider } from '../../src/sandbox/sandbox.js';
import { jobRequest } from '../fakes/job-requests.js';
import { fix, limits, reflect } from '../helpers/loop-fixtures.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();
const BROKEN = 'print(greting)\n';
const FIXED = 'greting = "hi"\nprint(greting)\n';
const goodEdit = { path: 'app.py', search: 'print(greting)', replace: 'greting = "hi"\nprint(greting)' };
const task = { description: 'app.py fails', command: 'python3 app.py' };

/** A fresh folder holding the broken script, and a scripted model that fixes it in one attempt. */
async function brokenFolder(): Promise<string> {
  const dir = await tempDir();
  await writeFile(join(dir, 'app.py'), BROKEN);
  return dir;
}
const fixingModel = () => new ScriptedModel([fix('greting is never defined', [goodEdit]), reflect()]);

/** The local sandbox (the loop's real commands on this machine), counting what it opens and removes. */
function countingProvider(view: (sandbox: Sandbox) => Sandbox = (sandbox) => sandbox) {
  const local = new LocalSandboxProvider(parseSandboxConfig({ kind: 'local' }), {
    host: process.env,
    warn: () => {},
  });
  const counts = { opened: 0, disposed: 0 };
  const provider: SandboxProvider = {
    kind: 'local',
    open: async (request) => {
      const sandbox = await local.open(request);
      counts.opened++;
      const viewed = view(sandbox);
      const dispose = viewed.dispose.bind(viewed);
      viewed.dispose = async () => {
        counts.disposed++;
        await dispose();
      };
      return viewed;
    },
  };
  return { provider, counts };
}

describe('runFixPlan: the one use case every door runs its plan through', () => {
  it("runs the App job's plan: a clone still in the making, every change copied back, delivered while the sandbox is open", async () => {
    const dir = await brokenFolder();
    const settings = jobSettings(jobRequest(), defaultRepoConfig, {
      sandboxConfig: parseSandboxConfig({ kind: 'local' }),
      modelConfig: modelConfigSchema.parse({}),
      appConfig: appConfigSchema.parse({}),
      environment: {},
    });
    // The App keeps its loop's own time limit (docs/settings-precedence.md), whatever the operator's sandbox says.
    expect([settings.sandbox.commandTimeoutSeconds, settings.limits.commandTimeoutSeconds]).toEqual([
      600, 300,
    ]);
    const { provider, counts } = countingProvider();
    const events: LoopEvent[] = [];
    const plan: FixPlan = {
      jobId: 'job-1',
      task,
      limits: { ...settings.limits, commandTimeoutSeconds: 20 },
      prices: settings.prices,
      mode: settings.mode,
      workspace: Promise.resolve(dir),
      copyBack: 'always',
    };
    const delivered = await runFixPlan(plan, {
      sandboxes: provider,
      model: fixingModel(),
      emit: (event) => void events.push(event),
      deliver: async ({ loop, copied, sandbox }) => {
        expect(counts.disposed).toBe(0);
        expect((await sandbox.readFile('app.py'))?.content.toString()).toBe(FIXED);
        return { outcome: loop.outcome, written: copied.written };
      },
    });
    expect(delivered).toEqual({ outcome: 'fixed', written: ['app.py'] });
    expect(await readFile(join(dir, 'app.py'), 'utf8')).toBe(FIXED);
    expect(events[0]?.type).toBe('started');
    expect(counts).toEqual({ opened: 1, disposed: 1 });
  });

  it("runs the Action's plan: the runner's workspace, its tool path in every command, nothing copied back by the use case", async () => {
    const dir = await brokenFolder();
    const read = readActionEnvironment({
      GITHUB_WORKSPACE: dir,
      GITHUB_REPOSITORY: 'o/r',
      INPUT_SANDBOX: 'runner',
      'INPUT_API-KEY': 'k',
      'INPUT_GITHUB-TOKEN': 't',
    });
    if (!read.ok) throw new Error(read.problems.join('; '));
    const settings = actionSettings(read.inputs, defaultRepoConfig, () => {}, {});
    expect(settings.sandbox.kind).toBe('local');
    const tools = join(dir, '.tools');
    await mkdir(tools);
    await writeFile(join(tools, 'python3'), '#!/bin/sh\necho from-the-tool-cache\nexit 3\n', { mode: 0o755 });
    const { provider, counts } = countingProvider((sandbox) => withToolPath(sandbox, [tools]));
    const delivered = await runFixPlan(
      {
        jobId: 'action-1-1',
        task,
        limits: limits({ maxAttempts: 1 }),
        prices: settings.prices,
        workspace: dir,
        copyBack: 'never',
      },
      {
        sandboxes: provider,
        model: new ScriptedModel([fix('try', [goodEdit]), reflect()]),
        deliver: async ({ loop, copied }) => ({ loop, copied }),
      },
    );
    // The tool cache's python3 answered every run: the view the Action puts on its sandbox held.
    const executed = delivered.loop.events.filter((event) => event.type === 'reproduced');
    expect(JSON.stringify(executed)).toContain('from-the-tool-cache');
    expect(delivered.copied).toEqual({ written: [], refused: [] });
    expect(await readFile(join(dir, 'app.py'), 'utf8')).toBe(BROKEN);
    expect(counts).toEqual({ opened: 1, disposed: 1 });
  });

  it("runs the Action's pull-request plan: a fix comes back into a clean checkout, never the runner's workspace, and a credential file never", async () => {
    const dir = await brokenFolder();
    const clean = await brokenFolder();
    const { provider } = countingProvider();
    const steal = { path: '.git-credentials', search: '', replace: 'https://user:pw@host.example\n' };
    let asked = 0;
    const delivered = await runFixPlan(
      {
        jobId: 'action-2-1',
        task,
        limits: limits({ maxAttempts: 1, reproduceRuns: 1 }),
        prices: modelPrices({ inputPricePerMillion: 0, outputPricePerMillion: 0 }),
        workspace: dir,
        copyBack: 'when-fixed',
        copyBackInto: async () => {
          asked++;
          return clean;
        },
      },
      {
        sandboxes: provider,
        model: new ScriptedModel([fix('greting is never defined', [goodEdit, steal]), reflect()]),
        deliver: async ({ loop, copied }) => ({ outcome: loop.outcome, copied }),
      },
    );
    expect(delivered.outcome).toBe('fixed');
    expect(asked).toBe(1);
    expect(delivered.copied.written).toEqual(['app.py']);
    expect(delivered.copied.refused.map((entry) => entry.path)).toEqual(['.git-credentials']);
    expect(await readFile(join(clean, 'app.py'), 'utf8')).toBe(FIXED);
    expect(await readFile(join(dir, 'app.py'), 'utf8')).toBe(BROKEN);
  });

  it("runs the CLI's plan: the folder itself, its file back only for a fix, and --patch keeps the folder untouched", async () => {
    for (const patch of [false, true]) {
      const dir = await brokenFolder();
      const request = parseFixOptions([
        '--command',
        task.command,
        '--dir',
        dir,
        ...(patch ? ['--patch', 'x'] : []),
      ]);
      if (request.kind !== 'run') throw new Error('not a run');
      const settings = resolveSettings(
        request.options,
        {},
        { config: defaultRepoConfig, path: null, notes: [] },
      );
      const { provider } = countingProvider();
      const exit = await runFixPlan(
        {
          jobId: 'cli-1',
          task: { description: settings.description, command: settings.command },
          limits: { ...settings.limits, commandTimeoutSeconds: 20 },
          prices: settings.prices,
          workspace: dir,
          copyBack: request.options.patch === undefined ? 'when-fixed' : 'never',
        },
        {
          sandboxes: provider,
          model: fixingModel(),
          deliver: async ({ loop, copied }) =>
            loop.outcome === 'fixed' ? { code: 0, copied } : { code: 1, copied },
        },
      );
      expect(exit.code).toBe(0);
      expect(exit.copied.written).toEqual(patch ? [] : ['app.py']);
      expect(await readFile(join(dir, 'app.py'), 'utf8')).toBe(patch ? BROKEN : FIXED);
    }
  });

  it("runs the eval's plan: a task folder, the loop's result as the delivery, and the sandbox removed when cancelled", async () => {
    const dir = await brokenFolder();
    const { provider, counts } = countingProvider();
    const plan: FixPlan = {
      jobId: 'eval-suite-task-loop',
      task: { ...task, setupCommands: [] },
      limits: limits({ reproduceRuns: 0 }),
      prices: modelPrices({ inputPricePerMillion: 1, outputPricePerMillion: 2 }),
      workspace: dir,
      copyBack: 'never',
    };
    const result = await runFixPlan(plan, {
      sandboxes: provider,
      model: fixingModel(),
      deliver: async ({ loop }) => loop,
    });
    expect(result.outcome).toBe('fixed');
    expect(result.total.costUsd).toBeGreaterThan(0);
    expect(await readFile(join(dir, 'app.py'), 'utf8')).toBe(BROKEN);

    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(
      runFixPlan(plan, {
        sandboxes: provider,
        model: fixingModel(),
        signal: controller.signal,
        deliver: async () => 0,
      }),
    ).rejects.toThrow('cancelled');
    expect(counts).toEqual({ opened: 1, disposed: 1 });
  });
});

describe('mergeSettings: one precedence order for every door', () => {
  it('stacks defaults < operator < repository config < door overrides, and an unset override keeps the layer below', () => {
    const repo = {
      ...defaultRepoConfig,
      sandbox: { ...defaultRepoConfig.sandbox, memory_mb: 2048, timeout_seconds: 90 },
    };
    const merged = mergeSettings({
      operator: {
        sandbox: { memoryMb: 1024, cpus: 3, commandTimeoutSeconds: 600 },
        model: { model: 'op-model' },
      },
      repo,
      door: {
        sandbox: { commandTimeoutSeconds: 45, image: undefined },
        model: { model: 'flag-model' },
        limits: {},
      },
      source: 'the test',
    });
    expect(merged.sandbox).toMatchObject({ cpus: 3, memoryMb: 2048, commandTimeoutSeconds: 45 });
    expect(merged.sandbox.image).toBe(parseSandboxConfig({}).image);
    expect(merged.model.model).toBe('flag-model');
    // One time limit per command run: the loop's is the sandbox's.
    expect(merged.limits.commandTimeoutSeconds).toBe(45);
    expect(merged.prices).toEqual({ inputPerMillion: 0, outputPerMillion: 0 });
  });
});
