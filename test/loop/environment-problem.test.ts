import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { runLoop } from '../../src/loop/run-loop.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { fix, limits, types, useLocalSandboxes } from '../helpers/loop-fixtures.js';

/** npm's real output for `npm test` whose tests pass and whose `posttest` hook (`npm audit`) has no network. */
const posttestOutput: string = JSON.parse(
  readFileSync(new URL('../fixtures/network-failures/npm-posttest-audit.json', import.meta.url), 'utf8'),
).output;

describe('runLoop: environment problems', () => {
  const sandboxWith = useLocalSandboxes();

  it('stops before the model when the reproduction fails for want of a tool', async () => {
    const sandbox = await sandboxWith({ Makefile: 'test:\n\tfoo\n' });
    const model = new ScriptedModel([]);
    const result = await runLoop({
      task: { description: 'the linter fails', command: 'selfdebug-absent-linter-xyz src/' },
      limits: limits(),
      model,
      sandbox,
    });
    expect(result.outcome).toBe('environment');
    expect(result.reason).toMatch(/selfdebug-absent-linter-xyz/);
    expect(result.reason).toMatch(/setup/);
    expect(result.reason).toMatch(/No model attempt was spent/);
    expect(result.attempts).toBe(0);
    expect(model.calls).toEqual([]);
    expect(types(result.events)).toEqual(['started', 'reproduced', 'finished']);
  });

  it('a failure of the code itself still goes to the model', async () => {
    const sandbox = await sandboxWith({ 'app.py': 'assert 1 + 1 == 3\n' });
    const model = new ScriptedModel([new Error('the model was asked')]);
    const result = await runLoop({
      task: { description: 'x', command: 'python3 app.py' },
      limits: limits(),
      model,
      sandbox,
    });
    expect(result.outcome).not.toBe('environment');
    expect(model.calls.length).toBeGreaterThan(0);
  });

  it('a module the manifest lists but setup did not install stops before the model', async () => {
    const sandbox = await sandboxWith({
      'app.py': 'import selfdebug_absent_pkg\n',
      'requirements.txt': 'selfdebug-absent-pkg==1.0\n',
    });
    const model = new ScriptedModel([]);
    const result = await runLoop({
      task: { description: 'the app fails', command: 'python3 app.py' },
      limits: limits(),
      model,
      sandbox,
    });
    expect(result.outcome).toBe('environment');
    expect(result.reason).toContain("`selfdebug_absent_pkg` is listed in the project's manifest");
    expect(model.calls).toEqual([]);
  });

  it("reads the manifests only for an output that names a missing module, not for the code's own failure", async () => {
    const sandbox = await sandboxWith({ 'app.py': 'assert 1 + 1 == 3\n', 'requirements.txt': 'attrs\n' });
    const readFile = vi.spyOn(sandbox, 'readFile');
    const model = new ScriptedModel([new Error('the model was asked')]);
    await runLoop({
      task: { description: 'x', command: 'python3 app.py' },
      limits: limits(),
      model,
      sandbox,
    });
    expect(model.calls.length).toBeGreaterThan(0);
    expect(readFile.mock.calls.map(([path]) => path)).not.toContain('requirements.txt');
  });

  it('a reproduction whose posttest hook needs the network stops before the model, with the way round it', async () => {
    const sandbox = await sandboxWith({ 'npm-test.txt': posttestOutput });
    const model = new ScriptedModel([]);
    const result = await runLoop({
      task: { description: 'npm test fails', command: 'cat npm-test.txt; exit 1' },
      limits: limits(),
      model,
      sandbox,
    });
    expect(result.outcome).toBe('environment');
    expect(result.reason).toContain('The reproduction failed because of the environment');
    expect(result.reason).toContain('`posttest` hook');
    expect(result.reason).toContain('npm run tests-only');
    expect(result.attempts).toBe(0);
    expect(model.calls).toEqual([]);
  });

  it('an attempt whose fix passes the tests but not the networked hook ends there, with no further attempt', async () => {
    // The tests fail until the fix; then npm goes on to the posttest hook, which needs the network.
    const sandbox = await sandboxWith({
      'npm-test.sh':
        'if grep -q fixed value.txt; then cat npm-test.txt; else echo "not ok 1 - adds"; fi; exit 1\n',
      'npm-test.txt': posttestOutput,
      'value.txt': 'broken\n',
    });
    const model = new ScriptedModel([
      fix('value.txt is wrong', [{ path: 'value.txt', search: 'broken', replace: 'fixed' }]),
    ]);
    const result = await runLoop({
      task: { description: 'npm test fails', command: 'bash npm-test.sh' },
      limits: limits({ maxAttempts: 3 }),
      model,
      sandbox,
    });
    expect(result.outcome).toBe('environment');
    expect(result.reason).toContain('The run of attempt 1 failed because of the environment');
    expect(result.reason).toContain('No further model attempt was spent');
    expect(result.attempts).toBe(1);
    // Only the proposal: no retry decision, no second attempt, no reflection.
    expect(model.calls.map((call) => call.purpose)).toEqual(['generate']);
    expect(types(result.events)).toContain('executed');
  });
});
