import { describe, expect, it } from 'vitest';
import { runLoop } from '../../src/loop/run-loop.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { eventsOf, fix, limits, reflect, useLocalSandboxes } from '../helpers/loop-fixtures.js';

const BROKEN = 'import sys\nprint(greeting)\nsys.exit(0)\n';
const task = { description: 'main.py crashes with NameError', command: 'python3 main.py' };
const goodEdit = {
  path: 'main.py',
  search: 'print(greeting)',
  replace: 'greeting = "hello"\nprint(greeting)',
};

/** The last tool answer the model was sent before its request number `call`. */
function toolAnswerIn(model: ScriptedModel, call: number): string {
  return model.calls[call]?.messages.findLast((message) => message.role === 'tool')?.content ?? '';
}

/**
 * Links in a repository, as the model's tools and the editor meet them: a
 * link inside the workspace is followed and the file it leads to is what the
 * run changed; a link leading out is a failed tool call or a rejected edit
 * that names the link, never the content of a file outside.
 */
describe('links in the loop', () => {
  const sandboxWith = useLocalSandboxes();

  it('edits the file a link inside the workspace leads to, and names that file as changed', async () => {
    const sandbox = await sandboxWith({ 'src/app.py': BROKEN });
    await sandbox.exec('ln -s src/app.py main.py');
    const model = new ScriptedModel([fix('greeting is never defined', [goodEdit]), reflect()]);
    const result = await runLoop({ task, limits: limits(), model, sandbox });
    expect(result).toMatchObject({ outcome: 'fixed', changedFiles: ['src/app.py'] });
    expect(result.diff).toContain('+++ b/src/app.py');
    expect((await sandbox.exec('readlink main.py; cat src/app.py')).stdout).toBe(
      'src/app.py\nimport sys\ngreeting = "hello"\nprint(greeting)\nsys.exit(0)\n',
    );
  });

  it('answers a read through a link leading out with the reason, not the content', async () => {
    const sandbox = await sandboxWith({ 'main.py': BROKEN });
    await sandbox.exec('ln -s /etc/passwd users.txt && ln -s /etc etc');
    const model = new ScriptedModel([
      ScriptedModel.toolCall('read_file', { path: 'users.txt' }),
      ScriptedModel.toolCall('read_file', { path: 'etc/passwd' }),
      fix('through the link', [{ path: 'users.txt', search: '', replace: 'x' }]),
      fix('define it', [goodEdit]),
      reflect(),
    ]);
    const result = await runLoop({ task, limits: limits(), model, sandbox });
    expect(toolAnswerIn(model, 1)).toBe(
      'Error: "users.txt" is not a usable workspace path: "users.txt" leads out of the workspace through a symbolic link.',
    );
    expect(toolAnswerIn(model, 2)).toBe(
      'Error: "etc/passwd" is not a usable workspace path: "etc" leads out of the workspace through a symbolic link.',
    );
    expect(model.calls.map((call) => JSON.stringify(call.messages))).not.toContainEqual(
      expect.stringContaining('root:x:0:0'),
    );
    expect(eventsOf(result.events, 'edits-rejected')[0]?.problems).toEqual([
      '"users.txt" is not a usable workspace path: "users.txt" leads out of the workspace through a symbolic link.',
    ]);
    expect(result).toMatchObject({ outcome: 'fixed', changedFiles: ['main.py'] });
  });
});
