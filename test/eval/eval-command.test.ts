import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalSandboxProvider } from '../../src/adapters/local/local-sandbox-provider.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { loadSuite } from '../../src/eval/load-suite.js';
import { readResults } from '../../src/eval/results-file.js';
import { runEval } from '../../src/eval/run-eval.js';
import { scriptedModel } from '../../src/eval/scripted-models.js';
import { loopLimitsSchema } from '../../src/loop/task.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { evalCli, quixbugsDir, readResultsFile } from './eval-helpers.js';

/** A suite of two tiny shell tasks: fast enough to exercise resume, --fresh and the usage errors. */
async function tinySuite(dir: string): Promise<string> {
  const files: Record<string, string> = {
    'alpha/task.yml': 'language: shell\ndescription: check.sh fails\ncommand: sh check.sh\n',
    'alpha/broken/check.sh': 'echo "expected 2, got 1"; exit 1\n',
    'alpha/fixed/check.sh': 'exit 0\n',
    'beta/task.yml': 'language: shell\ndescription: the sum is wrong\ncommand: test "$(sh sum.sh)" = 3\n',
    'beta/broken/sum.sh': 'echo $((1 + 1))\n',
    'beta/fixed/sum.sh': 'echo $((1 + 2))\n',
  };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

const local = ['--sandbox', 'local'];

describe('selfdebug eval: options, resume and results', () => {
  const tempDir = useTempDirs();

  it('writes Markdown and JSON, and the fix rates of the loop against one-shot', async () => {
    const suite = await tinySuite(await tempDir());
    const out = await tempDir();
    const result = await evalCli([suite, '--scripted', 'second-attempt', ...local, '--out', out]);
    expect(result.exitCode).toBe(0);
    const table = await readFile(join(out, 'results.md'), 'utf8');
    expect(table).toContain(
      "**Fixed: loop 2/2 (100.0%) vs one-shot 0/2 (0.0%) (+2 for the loop) vs one-shot at the loop's tokens 0/2 (0.0%) (+2 for the loop)**",
    );
    expect(table).toMatch(
      /\| alpha \| shell \| yes \| 2 \| [\d,]+ \| \$0\.0000 \| [\d.]+ s \| no \(not-fixed\) \| 1 \|/,
    );
    expect(table).toMatch(/\| \*\*total\*\* \| {2}\| \*\*2\/2 \(100\.0%\)\*\* \| 4 \|/);
    expect(result.stdout).toContain(table);
    // Each task's progress line gives all three results; the samples drawn to the loop's tokens count as its attempts.
    const facts = String.raw`[\d,]+ tokens, [\d.]+ s`;
    for (const [index, name] of ['alpha', 'beta'].entries())
      expect(result.stdout).toMatch(
        new RegExp(
          String.raw`^\[${index + 1}/2\] ${name}: loop fixed, 2 attempts, ${facts}; ` +
            String.raw`one-shot not fixed \(not-fixed\), 1 attempt, ${facts}; ` +
            String.raw`one-shot at the loop's tokens not fixed \(not-fixed\), \d+ samples, ${facts}$`,
          'm',
        ),
      );
    const results = await readResultsFile(out);
    expect(results.run).toMatchObject({
      model: 'scripted-second-attempt',
      maxAttempts: 5,
      sandbox: 'local',
      baseline: true,
    });
    expect(results.tasks[1]).toMatchObject({
      name: 'beta',
      loop: { fixed: true, outcome: 'fixed', attempts: 2 },
      oneShot: { fixed: false, outcome: 'not-fixed', attempts: 1 },
    });
    // One-shot makes exactly one model call: no retry decision, no reflection.
    expect(results.tasks[1]!.oneShot!.spend.totalTokens).toBeLessThan(
      results.tasks[1]!.loop.spend.totalTokens / 2,
    );
  });

  it('resumes after an interruption: tasks done are skipped, --fresh runs them again', async () => {
    const suite = await tinySuite(await tempDir());
    const out = await tempDir();
    const first = await evalCli([suite, '--scripted', 'oracle', ...local, '--out', out, '--task', 'alpha']);
    expect(first.exitCode).toBe(0);
    expect((await readResultsFile(out)).tasks.map((task) => task.name)).toEqual(['alpha']);

    const resumed = await evalCli([suite, '--scripted', 'oracle', ...local, '--out', out]);
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toContain('Resuming: 1 of 2 tasks already done (--fresh starts over).');
    expect(resumed.stdout).not.toContain('alpha: started');
    expect(resumed.stdout).toContain('[2/2] beta: started');
    expect(resumed.stdout).toContain('Fixed: loop 2/2 (100.0%)');

    const fresh = await evalCli([suite, '--scripted', 'oracle', ...local, '--out', out, '--fresh']);
    expect(fresh.stdout).toContain('[1/2] alpha: started');
    expect(fresh.stdout).not.toContain('Resuming');
    expect((await readResultsFile(out)).tasks).toHaveLength(2);
  });

  it('refuses to mix results of another model into a results file (exit 2)', async () => {
    const suite = await tinySuite(await tempDir());
    const out = await tempDir();
    await evalCli([suite, '--scripted', 'oracle', ...local, '--out', out, '--task', 'alpha']);
    const other = await evalCli([suite, '--scripted', 'do-nothing', ...local, '--out', out]);
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain(
      'holds results of a different run (model was "scripted-oracle", now "scripted-do-nothing")',
    );
    expect(other.stderr).toContain('--fresh');
  });

  it('saves after each task, and a cancelled run keeps what it finished', async () => {
    const suite = await loadSuite(await tinySuite(await tempDir()));
    const resultsPath = join(await tempDir(), 'results.json');
    const controller = new AbortController();
    const savedAtFinish: string[][] = [];
    const provider = new LocalSandboxProvider(parseSandboxConfig({ kind: 'local' }), {
      host: process.env,
      warn: () => {},
    });
    const options = {
      suite,
      provider,
      modelFor: (task: (typeof suite.tasks)[number]) => scriptedModel('oracle', task),
      limits: loopLimitsSchema.parse({ commandTimeoutSeconds: 20 }),
      prices: { inputPerMillion: 0, outputPerMillion: 0 },
      baseline: true,
      concurrency: 1,
      resultsPath,
      identity: {
        suite: suite.name,
        source: suite.source,
        model: 'scripted-oracle',
        maxAttempts: 5,
        sandbox: 'local',
        baseline: true,
      },
      fresh: false,
    };
    const run = await runEval({
      ...options,
      signal: controller.signal,
      onProgress: async (event) => {
        if (event.type !== 'task-finished') return;
        const saved = await readResults(resultsPath);
        savedAtFinish.push(saved?.tasks.map((task) => task.name) ?? []);
        controller.abort();
      },
    });
    expect(run.cancelled).toBe(true);
    expect(run.missing).toEqual(['beta']);
    expect(savedAtFinish[0]).toEqual(['alpha']);
    expect((await readResults(resultsPath))?.tasks.map((task) => task.name)).toEqual(['alpha']);

    const resumed = await runEval(options);
    expect(resumed.missing).toEqual([]);
    expect(resumed.results.tasks.map((task) => [task.name, task.loop.fixed])).toEqual([
      ['alpha', true],
      ['beta', true],
    ]);
  });

  it("--no-equal-budget leaves the samples at the loop's tokens out of the progress lines", async () => {
    const suite = await tinySuite(await tempDir());
    const out = await tempDir();
    const result = await evalCli([
      suite,
      '--scripted',
      'oracle',
      ...local,
      '--out',
      out,
      '--no-equal-budget',
    ]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(
      /^\[2\/2\] beta: loop fixed, 1 attempt, .*; one-shot fixed, 1 attempt, [\d,]+ tokens, [\d.]+ s$/m,
    );
    expect(result.stdout).not.toContain("at the loop's tokens");
  });

  it('--no-baseline runs the loop only', async () => {
    const suite = await tinySuite(await tempDir());
    const out = await tempDir();
    const result = await evalCli([suite, '--scripted', 'oracle', ...local, '--out', out, '--no-baseline']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('**Fixed: loop 2/2 (100.0%)**');
    expect(result.stdout).not.toContain('one-shot fixed');
    expect((await readResultsFile(out)).tasks.every((task) => task.oneShot === undefined)).toBe(true);
  });

  it.each([
    [[], 'Missing the suite folder'],
    [['a', 'b'], '"eval" takes one folder'],
    [['dir', '--scripted', 'perfect'], '--scripted must be one of oracle, do-nothing, second-attempt'],
    [['dir', '--concurrency', '0'], '--concurrency must be a whole number from 1 to 32'],
    [['dir', '--max-attempts', '1e3'], '--max-attempts must be a whole number from 1 to 20'],
    [['dir', '--timeout', 'soon'], '--timeout must be a number of seconds'],
    [['dir', '--sandbox', 'vm'], '--sandbox must be "docker" or "local"'],
    [['dir', '--nope'], 'Unknown option "--nope" for "eval"'],
    [['dir', '--out', '--fresh'], 'needs a value, but the next word is the option "--fresh"'],
    [['dir', '--scripted', 'oracle', '--model', 'gpt-4.1'], '--scripted needs no model server'],
    [['/no/such/folder'], '/no/such/folder is not a folder'],
  ])('usage error %j exits 2 and says what to do', async (argv, message) => {
    const result = await evalCli(argv);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  it('names the folder and the fix when it holds no tasks or a bad task.yml', async () => {
    const empty = await tempDir();
    const none = await evalCli([empty, '--scripted', 'oracle']);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('holds no eval tasks. Give a folder of tasks (each NAME/task.yml');

    const bad = await tempDir();
    await mkdir(join(bad, 'broken-task', 'broken'), { recursive: true });
    await writeFile(join(bad, 'broken-task', 'task.yml'), 'description: no command\ntimeout: -1\n');
    const invalid = await evalCli([bad, '--scripted', 'oracle']);
    expect(invalid.exitCode).toBe(2);
    expect(invalid.stderr).toContain(join(bad, 'broken-task', 'task.yml'));
    expect(invalid.stderr).toContain('command');

    const unknown = await evalCli([
      await tinySuite(await tempDir()),
      '--scripted',
      'oracle',
      '--task',
      'gamma',
    ]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('has no task named gamma (it has alpha, beta)');
  });

  it('prints its help with exit 0', async () => {
    const result = await evalCli(['--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Usage: selfdebug eval DIR [options]');
  });
});

describe('the QuixBugs suite as tasks', () => {
  it('makes 40 tasks whose workspaces hold the program and its tests, never the corrected programs', async () => {
    const suite = await loadSuite(quixbugsDir);
    expect(suite.name).toBe('quixbugs');
    expect(suite.tasks).toHaveLength(40);
    const gcd = suite.tasks.find((task) => task.name === 'gcd')!;
    expect(gcd.command).toBe(
      'python3 -m pytest -q -x --tb=short -p no:cacheprovider python_testcases/test_gcd.py',
    );
    expect(gcd.oracle).toEqual([
      {
        path: 'python_programs/gcd.py',
        search: '',
        replace: await readFile(join(quixbugsDir, 'correct_python_programs', 'gcd.py'), 'utf8'),
      },
    ]);
    const workspace = await gcd.prepare();
    try {
      expect((await readdir(workspace.dir)).sort()).toEqual([
        'conftest.py',
        'json_testcases',
        'python_programs',
        'python_testcases',
      ]);
      expect((await readdir(join(workspace.dir, 'python_programs'))).sort()).toEqual(['gcd.py', 'node.py']);
      expect(await readFile(join(workspace.dir, 'python_testcases', 'conftest.py'), 'utf8')).toContain(
        'ITIMER_VIRTUAL',
      );
    } finally {
      await workspace.dispose();
    }
  });
});
