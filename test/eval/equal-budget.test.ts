import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalSandboxProvider } from '../../src/adapters/local/local-sandbox-provider.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { sampleToBudget } from '../../src/eval/equal-budget.js';
import type { EvalTask } from '../../src/eval/eval-task.js';
import { loadSuite } from '../../src/eval/load-suite.js';
import type { ModeResult } from '../../src/eval/results-file.js';
import { runEval } from '../../src/eval/run-eval.js';
import { type ScriptedKind, scriptedModel } from '../../src/eval/scripted-models.js';
import { loopLimitsSchema } from '../../src/loop/task.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { evalCli } from './eval-helpers.js';

const sample = (fixed: boolean, totalTokens: number): ModeResult => ({
  fixed,
  outcome: fixed ? 'fixed' : 'not-fixed',
  reason: fixed ? 'the command passed' : 'still failing',
  attempts: 1,
  spend: { promptTokens: totalTokens - 10, completionTokens: 10, totalTokens, costUsd: totalTokens / 1e6 },
  durationMs: 100,
});

/** A sampler that hands out the given samples in order and counts the calls. */
function sampler(...samples: ModeResult[]) {
  const calls = { count: 0 };
  return { calls, next: async () => samples[calls.count++] ?? null };
}

describe('one-shot sampled to the loop tokens', () => {
  it('samples until the spent tokens reach the loop, and sums them', async () => {
    const { calls, next } = sampler(sample(false, 100), sample(false, 100), sample(false, 100));
    const result = await sampleToBudget(sample(false, 100), 250, next);
    expect(calls.count).toBe(2);
    expect(result).toMatchObject({
      fixed: false,
      attempts: 3,
      spend: { promptTokens: 270, completionTokens: 30, totalTokens: 300 },
      durationMs: 300,
    });
    expect(result?.reason).toBe(
      "no sample passed in 3 samples (300 of the loop's 250 tokens); last: still failing",
    );
  });

  it('stops at the first passing sample', async () => {
    const { calls, next } = sampler(sample(true, 100), sample(false, 100));
    const result = await sampleToBudget(sample(false, 100), 1000, next);
    expect(calls.count).toBe(1);
    expect(result).toMatchObject({ fixed: true, outcome: 'fixed', attempts: 2 });
    expect(result?.reason).toBe('sample 2 of 2 samples passed: the command passed');
  });

  it('takes a passing one-shot as it is, and one that already spent the budget', async () => {
    const passed = sampler();
    expect(await sampleToBudget(sample(true, 100), 1000, passed.next)).toMatchObject({
      fixed: true,
      attempts: 1,
    });
    const spent = sampler();
    expect(await sampleToBudget(sample(false, 500), 400, spent.next)).toMatchObject({
      fixed: false,
      attempts: 1,
    });
    expect(passed.calls.count + spent.calls.count).toBe(0);
  });

  it('stops on a sample that spent no tokens, and passes a cancellation on', async () => {
    const free = sampler(sample(false, 0), sample(true, 0));
    expect(await sampleToBudget(sample(false, 0), 100, free.next)).toMatchObject({
      fixed: false,
      attempts: 2,
    });
    const cancelled = sampler();
    expect(await sampleToBudget(sample(false, 10), 100, cancelled.next)).toBeNull();
  });
});

describe('the one-in-three scripted model', () => {
  const task = {
    name: 'gcd',
    oracle: [{ path: 'gcd.py', search: 'a', replace: 'b' }],
  } as unknown as EvalTask;

  async function firstAnswerFixes(sampleNumber: number): Promise<boolean> {
    const model = scriptedModel('one-in-three', task, sampleNumber);
    const answer = await model.complete({ purpose: 'generate', messages: [] } as never);
    return JSON.parse(answer.content ?? '').edits[0].path === 'gcd.py';
  }

  it('gives fresh samples different, reproducible answers, about one in three fixing', async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => firstAnswerFixes(index)));
    const fixing = answers.filter(Boolean).length;
    expect(fixing).toBeGreaterThan(4);
    expect(fixing).toBeLessThan(20);
    expect(await Promise.all(Array.from({ length: 30 }, (_, index) => firstAnswerFixes(index)))).toEqual(
      answers,
    );
  });
});

/** Three tiny shell tasks, fixed by replacing one script. */
async function tinySuite(dir: string): Promise<string> {
  const files: Record<string, string> = {};
  for (const name of ['alpha', 'beta', 'gamma']) {
    files[`${name}/task.yml`] = `language: shell\ndescription: ${name}.sh fails\ncommand: sh ${name}.sh\n`;
    files[`${name}/broken/${name}.sh`] = 'echo "expected 2, got 1"; exit 1\n';
    files[`${name}/fixed/${name}.sh`] = 'exit 0\n';
  }
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

describe('selfdebug eval at equal tokens', () => {
  const tempDir = useTempDirs();

  async function evaluate(kind: ScriptedKind) {
    const suite = await loadSuite(await tinySuite(await tempDir()));
    const provider = new LocalSandboxProvider(parseSandboxConfig({ kind: 'local' }), {
      host: process.env,
      warn: () => {},
    });
    const identity = {
      suite: suite.name,
      source: suite.source,
      model: kind,
      maxAttempts: 5,
      sandbox: 'local',
    };
    const run = await runEval({
      suite,
      provider,
      modelFor: (task, number) => scriptedModel(kind, task, number),
      limits: loopLimitsSchema.parse({ commandTimeoutSeconds: 20 }),
      prices: { inputPerMillion: 0, outputPerMillion: 0 },
      baseline: true,
      concurrency: 1,
      resultsPath: join(await tempDir(), 'results.json'),
      identity: { ...identity, baseline: true },
      fresh: false,
    });
    return run.results.tasks;
  }

  it('second-attempt: every fresh one-shot sample writes the note, so it spends the loop tokens and fails', async () => {
    for (const task of await evaluate('second-attempt')) {
      const equal = task.oneShotEqualBudget!;
      expect(task.loop.fixed).toBe(true);
      expect(equal.fixed).toBe(false);
      expect(equal.attempts).toBeGreaterThan(1);
      expect(equal.spend.totalTokens).toBeGreaterThanOrEqual(task.loop.spend.totalTokens);
      expect(equal.spend.totalTokens - task.oneShot!.spend.totalTokens).toBeLessThan(
        task.loop.spend.totalTokens,
      );
    }
  });

  it('oracle: the first sample passes and no more are drawn', async () => {
    for (const task of await evaluate('oracle')) {
      expect(task.oneShotEqualBudget).toEqual(task.oneShot);
    }
  });

  it('one-in-three: samples stop at a pass or at the loop tokens, and never fix less than one-shot', async () => {
    for (const task of await evaluate('one-in-three')) {
      const equal = task.oneShotEqualBudget!;
      if (task.oneShot!.fixed) expect(equal).toEqual(task.oneShot);
      else if (!equal.fixed)
        expect(equal.spend.totalTokens).toBeGreaterThanOrEqual(task.loop.spend.totalTokens);
      else
        expect(equal.reason).toMatch(
          new RegExp(`^sample ${equal.attempts} of ${equal.attempts} samples passed`),
        );
    }
  });

  it('puts the third column in the table, with the fix rate beside the others', async () => {
    const suite = await tinySuite(await tempDir());
    const out = await tempDir();
    const result = await evalCli([suite, '--scripted', 'second-attempt', '--sandbox', 'local', '--out', out]);
    expect(result.exitCode).toBe(0);
    const table = await readFile(join(out, 'results.md'), 'utf8');
    expect(table).toContain(
      "**Fixed: loop 3/3 (100.0%) vs one-shot 0/3 (0.0%) (+3 for the loop) vs one-shot at the loop's tokens 0/3 (0.0%) (+3 for the loop)**",
    );
    expect(table).toContain("| one-shot at the loop's tokens fixed | samples | tokens | cost | time |");
  });
});

describe('selfdebug eval --no-equal-budget', () => {
  const tempDir = useTempDirs();

  it('runs one-shot once and leaves the third baseline out of the results and the table', async () => {
    const suite = await tinySuite(await tempDir());
    const out = await tempDir();
    const args = [
      suite,
      '--scripted',
      'second-attempt',
      '--sandbox',
      'local',
      '--out',
      out,
      '--no-equal-budget',
    ];
    const result = await evalCli(args);
    expect(result.exitCode).toBe(0);
    const table = await readFile(join(out, 'results.md'), 'utf8');
    expect(table).toContain('**Fixed: loop 3/3 (100.0%) vs one-shot 0/3 (0.0%) (+3 for the loop)**');
    expect(table).not.toContain("loop's tokens");
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    expect(
      results.tasks.every((task: { oneShotEqualBudget?: unknown }) => task.oneShotEqualBudget === undefined),
    ).toBe(true);
  });
});
