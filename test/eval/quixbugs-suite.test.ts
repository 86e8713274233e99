import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/temp-dir.js';
import { evalCli, fixedCount, hostHasPytest, quixbugsDir, readResultsFile } from './eval-helpers.js';

/**
 * The whole of QuixBugs with scripted models: the oracle (each program's
 * corrected version) must fix all 40, and a model that fixes nothing none.
 * 120 sandboxes and 240 runs of pytest (about 1.5 s of CPU each), so the
 * local sandbox when the host has pytest; docker-suites.test.ts runs a few
 * QuixBugs tasks in the docker sandbox.
 */
const sandbox = hostHasPytest ? 'local' : 'docker';
const SUITE_TIMEOUT_MS = 600_000;

describe(`selfdebug eval on QuixBugs (${sandbox} sandbox)`, () => {
  const tempDir = useTempDirs();

  it(
    'the oracle replay scores 40/40 with the loop and with one-shot',
    async () => {
      const out = await tempDir();
      const result = await evalCli([
        quixbugsDir,
        '--scripted',
        'oracle',
        '--sandbox',
        sandbox,
        '--out',
        out,
        '--concurrency',
        '2',
      ]);
      expect(result.stderr).not.toContain('selfdebug eval:');
      expect(result.exitCode).toBe(0);
      const results = await readResultsFile(out);
      expect(results.tasks).toHaveLength(40);
      const failed = results.tasks.filter((task) => !task.loop.fixed || !task.oneShot?.fixed);
      expect(failed.map((task) => `${task.name}: ${task.loop.reason} / ${task.oneShot?.reason}`)).toEqual([]);
      expect(fixedCount(results, 'loop')).toBe(40);
      expect(fixedCount(results, 'oneShot')).toBe(40);
      expect(results.tasks.every((task) => task.loop.attempts === 1)).toBe(true);
      const table = await readFile(join(out, 'results.md'), 'utf8');
      expect(table).toContain('Fixed: loop 40/40 (100.0%) vs one-shot 40/40 (100.0%) (+0 for the loop)');
      expect(result.stdout).toContain(table);
      // One line when each task starts and one when it ends.
      expect(result.stdout.match(/^\[ ?\d+\/40\] \w+: started$/gm)).toHaveLength(40);
      expect(result.stdout.match(/^\[ ?\d+\/40\] \w+: loop fixed/gm)).toHaveLength(40);
    },
    SUITE_TIMEOUT_MS,
  );

  it(
    'a do-nothing replay scores 0/40: every defect is real and the command catches it',
    async () => {
      const out = await tempDir();
      // The loop only: one-shot of a model that fixes nothing would only repeat the loop's first attempt.
      const result = await evalCli([
        quixbugsDir,
        '--scripted',
        'do-nothing',
        '--no-baseline',
        '--sandbox',
        sandbox,
        '--out',
        out,
        '--concurrency',
        '2',
      ]);
      expect(result.exitCode).toBe(0);
      const results = await readResultsFile(out);
      expect(results.tasks).toHaveLength(40);
      expect(fixedCount(results, 'loop')).toBe(0);
      // It ran the command after its useless edit and then gave up: nothing broke on the way.
      expect(new Set(results.tasks.map((task) => task.loop.outcome))).toEqual(new Set(['declined']));
      expect(results.tasks.every((task) => task.oneShot === undefined)).toBe(true);
      expect(result.stdout).toContain('**Fixed: loop 0/40 (0.0%)**');
    },
    SUITE_TIMEOUT_MS,
  );
});
