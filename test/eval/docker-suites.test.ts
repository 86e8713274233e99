import { expect, it } from 'vitest';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { evalCli, fixedCount, ownTasksDir, quixbugsDir, readResultsFile } from './eval-helpers.js';

/**
 * The eval in the real sandbox, with a scripted model that fixes each task
 * only on its second attempt: the loop (which gets a second attempt) fixes
 * everything, one-shot nothing. For our own tasks that also proves each one
 * fails as shipped and passes with its oracle fix, in the image CI builds.
 */
const SUITE_TIMEOUT_MS = 600_000;

describeWithDocker('selfdebug eval in the docker sandbox', () => {
  const tempDir = useTempDirs();
  const docker = ['--sandbox', 'docker', '--image', TEST_IMAGE];

  it(
    'our tasks (node, shell, c, go): the loop fixes 12/12 on the second attempt, one-shot 0/12',
    async () => {
      const out = await tempDir();
      const result = await evalCli([
        ownTasksDir,
        '--scripted',
        'second-attempt',
        // Sampling to the loop's tokens is checked locally (equal-budget.test.ts); here it would only add containers.
        '--no-equal-budget',
        ...docker,
        '--out',
        out,
        '--concurrency',
        '2',
      ]);
      expect(result.exitCode).toBe(0);
      const results = await readResultsFile(out);
      const languages = new Set(results.tasks.map((task) => task.language));
      expect(languages).toEqual(new Set(['node', 'shell', 'c', 'go']));
      expect(results.tasks.length).toBeGreaterThanOrEqual(10);
      const wrong = results.tasks.filter((task) => !task.loop.fixed || task.oneShot?.fixed !== false);
      expect(wrong.map((task) => `${task.name}: ${task.loop.reason} / ${task.oneShot?.reason}`)).toEqual([]);
      expect(results.tasks.every((task) => task.loop.attempts === 2)).toBe(true);
      // The baseline's failure is the task's own, not the sandbox's (a missing toolchain would say "environment").
      expect(new Set(results.tasks.map((task) => task.oneShot?.outcome))).toEqual(new Set(['not-fixed']));
      const count = results.tasks.length;
      expect(result.stdout).toContain(
        `Fixed: loop ${count}/${count} (100.0%) vs one-shot 0/${count} (0.0%) (+${count} for the loop)`,
      );
    },
    SUITE_TIMEOUT_MS,
  );

  it(
    'QuixBugs in docker: pytest, the per-test time limit and the oracle work in the image',
    async () => {
      const out = await tempDir();
      const tasks = ['gcd', 'bitcount', 'breadth_first_search'].flatMap((name) => ['--task', name]);
      const result = await evalCli([
        quixbugsDir,
        '--scripted',
        'second-attempt',
        // Sampling to the loop's tokens is checked locally (equal-budget.test.ts); here it would only add containers.
        '--no-equal-budget',
        ...docker,
        ...tasks,
        '--out',
        out,
      ]);
      expect(result.exitCode).toBe(0);
      const results = await readResultsFile(out);
      expect(results.tasks.map((task) => task.name)).toEqual(['bitcount', 'breadth_first_search', 'gcd']);
      expect(fixedCount(results, 'loop')).toBe(3);
      expect(fixedCount(results, 'oneShot')).toBe(0);
      expect(result.stdout).toContain('Fixed: loop 3/3 (100.0%) vs one-shot 0/3 (0.0%) (+3 for the loop)');
    },
    SUITE_TIMEOUT_MS,
  );
});
