import { describe, expect, it } from 'vitest';
import { runLoop } from '../../src/loop/run-loop.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { limits, types, useLocalSandboxes } from '../helpers/loop-fixtures.js';

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
});
