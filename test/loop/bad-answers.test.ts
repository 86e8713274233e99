import { describe, expect, it } from 'vitest';
import { FixProgress } from '../../src/cli/fix-progress.js';
import {
  ModelApiError,
  ModelAuthError,
  UNUSABLE_ANSWER_ADVICE,
  type WorkspacePathProblem,
  workspacePathProblem,
} from '../../src/errors/index.js';
import { type LoopInput, runLoop } from '../../src/loop/run-loop.js';
import { type ScriptedAnswer, ScriptedModel } from '../../src/model/scripted-model.js';
import { renderAttemptComment } from '../../src/report/attempt-comment.js';
import { jobView } from '../../src/report/job-view.js';
import { Redactor } from '../../src/report/redact.js';
import { renderStatusComment } from '../../src/report/status-comment.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { mentionTrigger } from '../fakes/job-requests.js';
import {
  decide,
  eventsOf,
  fix,
  limits,
  reflect,
  reflection,
  types,
  useLocalSandboxes,
} from '../helpers/loop-fixtures.js';

/**
 * A bad answer costs an attempt, never the job: each kind below is rejected
 * with a precise message, the model is told it in its next request, and the
 * loop goes on within max_attempts. Only a model server that cannot be used
 * (unreachable, refusing the key) ends a job.
 */

const BROKEN = 'import sys\nprint(greeting)\nsys.exit(0)\n';
const task = { description: 'app.py crashes with NameError', command: 'python3 app.py' };
const goodEdit = {
  path: 'app.py',
  search: 'print(greeting)',
  replace: 'greeting = "hello"\nprint(greeting)',
};
const wrongEdit = { path: 'app.py', search: 'print(greeting)', replace: 'print(greting)' };

/** The user message of a generate request: the task, earlier attempts and the latest failure. */
function promptOf(model: ScriptedModel, call: number): string {
  return model.calls[call]?.messages[1]?.content ?? '';
}

/** The answer a tool call got, as the model saw it in its next request. */
function toolAnswerIn(model: ScriptedModel, call: number): string {
  return model.calls[call]?.messages.findLast((message) => message.role === 'tool')?.content ?? '';
}

describe('bad answers cost an attempt, not the job', () => {
  const sandboxWith = useLocalSandboxes();

  async function run(answers: ScriptedAnswer[], extra: Partial<LoopInput> = {}) {
    const sandbox = extra.sandbox ?? (await sandboxWith({ 'app.py': BROKEN, 'lib/util.py': 'X = 1\n' }));
    const model = new ScriptedModel(answers);
    const result = await runLoop({ task, limits: limits(), model, sandbox, ...extra });
    return { model, result, sandbox };
  }

  it('unparseable JSON, even after the repair round: the attempt fails and the next one is told why', async () => {
    const { model, result } = await run([
      { content: 'Sure! I would edit app.py to define greeting.' },
      { content: '{"analysis": "define greeting", "edits": [' },
      fix('define it', [goodEdit]),
      reflect(),
    ]);
    expect(result.outcome).toBe('fixed');
    expect(result.attempts).toBe(2);
    expect(model.calls.map((call) => call.purpose)).toEqual(['generate', 'repair', 'generate', 'reflect']);
    const [rejected] = eventsOf(result.events, 'answer-rejected');
    expect(rejected).toEqual({
      type: 'answer-rejected',
      attempt: 1,
      purpose: 'generate',
      // What the model said instead, from the repair round's answer: the person and the model see the same.
      problem:
        'the answer is not a JSON object; it begins: "{\\"analysis\\": \\"define greeting\\", \\"edits\\": ["',
      consequence: 'the attempt counts as failed; the next attempt is told what was wrong',
      advice: UNUSABLE_ANSWER_ADVICE,
    });
    // What to do names the setting, the variable and the command that tells whether it can help.
    expect(UNUSABLE_ANSWER_ADVICE).toMatch(/model\.structured_output: json_schema/);
    expect(UNUSABLE_ANSWER_ADVICE).toMatch(/SELFDEBUG_MODEL_STRUCTURED_OUTPUT=json_schema/);
    expect(UNUSABLE_ANSWER_ADVICE).toMatch(/selfdebug doctor --model/);
    expect(UNUSABLE_ANSWER_ADVICE).toMatch(/model\.max_output_tokens/);
    expect(types(result.events).slice(2, 7)).toEqual([
      'attempt-started',
      'model:generate',
      'model:repair',
      'answer-rejected',
      'attempt-started',
    ]);
    const next = promptOf(model, 2);
    expect(next).toContain(
      'The answer of attempt 1 could not be used, so nothing was changed or run. ' +
        'No usable answer: the answer is not a JSON object; it begins: "{\\"analysis\\"',
    );
    // The failure itself is still in front of the model, though nothing was run again.
    expect(next).toContain('The command was not run again; its latest run:\nexit code 1');
    expect(next).toContain("NameError: name 'greeting' is not defined");
  });

  it('an answer that violates the schema: the model is told which field is wrong', async () => {
    const { model, result } = await run([
      { content: '{"analysis": 1, "edits": "app.py"}' },
      { content: '{"analysis": "", "edits": []}' },
      fix('define it', [goodEdit]),
      reflect(),
    ]);
    expect(result.outcome).toBe('fixed');
    const [rejected] = eventsOf(result.events, 'answer-rejected');
    expect(rejected?.problem).toMatch(/^the JSON does not match the schema:\n[\s\S]*→ at analysis/);
    expect(promptOf(model, 2)).toMatch(
      /No usable answer: the JSON does not match the schema:[\s\S]*at analysis/,
    );
    expect(promptOf(model, 2)).toContain('Answer with only the JSON object described in the instructions.');
  });

  it('an unknown tool: the call is answered with the tools there are, and the attempt goes on', async () => {
    const { model, result } = await run([
      ScriptedModel.toolCall('write_file', { path: 'app.py', content: 'print(1)' }),
      fix('define it', [goodEdit]),
      reflect(),
    ]);
    expect(result.outcome).toBe('fixed');
    expect(result.attempts).toBe(1);
    const [call] = eventsOf(result.events, 'tool-called');
    expect(call).toMatchObject({ name: 'write_file', ok: false });
    expect(toolAnswerIn(model, 1)).toBe(
      'Error: there is no tool "write_file"; the tools are list_files, read_file, search_text',
    );
  });

  it('a path that does not exist: a read says so, and an edit of it is rejected', async () => {
    const { model, result } = await run([
      ScriptedModel.toolCall('read_file', { path: 'src/app.py' }),
      fix('edit the module', [{ path: 'src/app.py', search: 'print(greeting)', replace: 'x' }]),
      fix('define it', [goodEdit]),
      reflect(),
    ]);
    expect(toolAnswerIn(model, 1)).toBe(
      'Error: src/app.py does not exist or is not a regular file; list_files shows the files there are',
    );
    const [rejected] = eventsOf(result.events, 'edits-rejected');
    expect(rejected).toEqual({
      type: 'edits-rejected',
      attempt: 1,
      problems: ['src/app.py: the file does not exist; to create it, use an empty "search".'],
    });
    expect(promptOf(model, 2)).toContain('The edits of attempt 1 did not apply, so nothing was run');
    expect(result).toMatchObject({ outcome: 'fixed', attempts: 2 });
  });

  it('an edit outside the workspace: rejected, nothing written, the model told why', async () => {
    const linked = await sandboxWith({ 'app.py': BROKEN });
    await linked.exec('ln -s .. up');
    const { model, result, sandbox } = await run(
      [
        ScriptedModel.toolCall('read_file', { path: '../../etc/passwd' }),
        fix('escape', [
          { path: '../outside.py', search: '', replace: 'x' },
          { path: '/etc/cron.d/job', search: '', replace: 'x' },
          { path: '.git/config', search: '', replace: 'x' },
        ]),
        fix('through a link', [{ path: 'up/escaped.py', search: '', replace: 'x' }]),
        fix('define it', [goodEdit]),
        reflect(),
      ],
      { sandbox: linked },
    );
    expect(toolAnswerIn(model, 1)).toBe(
      'Error: "../../etc/passwd" is not a usable workspace path: it leaves the workspace.',
    );
    expect(eventsOf(result.events, 'edits-rejected')[0]?.problems).toEqual([
      '"../outside.py" is not a usable workspace path: it leaves the workspace.',
      '"/etc/cron.d/job" is not a usable workspace path: it is absolute; use a path relative to the repository root.',
      `".git/config" is not a usable workspace path: it is inside git's own .git folder.`,
    ]);
    // A symbolic link in the repository is no way out either.
    expect(eventsOf(result.events, 'edits-rejected')[1]?.problems).toEqual([
      '"up/escaped.py" is not a usable workspace path: "up" leads out of the workspace through a symbolic link.',
    ]);
    expect(promptOf(model, 2)).toContain('it leaves the workspace');
    expect((await sandbox.exec('ls ../outside.py ../escaped.py 2>/dev/null || echo absent')).stdout).toBe(
      'absent\n',
    );
    expect(result).toMatchObject({ outcome: 'fixed', attempts: 3 });
  });

  it('a file used as a folder (ENOTDIR): the edit and the read are refused, the job goes on', async () => {
    const { model, result, sandbox } = await run([
      ScriptedModel.toolCall('read_file', { path: 'app.py/helpers.py' }),
      fix('split it up', [
        { path: 'app.py/helpers.py', search: '', replace: 'greeting = "hello"\n' },
        { path: 'app.py', search: 'import sys', replace: 'import sys\nfrom helpers import greeting' },
      ]),
      fix('define it', [goodEdit]),
      reflect(),
    ]);
    const expected =
      '"app.py/helpers.py" is not a usable workspace path: "app.py" is a file, not a folder, so nothing can be inside it.';
    // The answer names the workspace path, never where the sandbox keeps it on the host.
    expect(toolAnswerIn(model, 1)).toBe(`Error: ${expected}`);
    expect(eventsOf(result.events, 'edits-rejected')[0]?.problems).toEqual([expected]);
    expect(promptOf(model, 2)).toContain(expected);
    expect(result).toMatchObject({ outcome: 'fixed', attempts: 2 });
    expect(result.reason).not.toMatch(/ENOTDIR|unexpected error/);
    expect((await sandbox.readFile('app.py'))?.content.toString()).toContain('greeting = "hello"');
  });

  it('a name longer than the file system allows (ENAMETOOLONG): rejected with the limit', async () => {
    const long = `${'helpers_'.repeat(40)}.py`;
    const { model, result } = await run([
      fix('new module', [{ path: long, search: '', replace: 'x = 1\n' }]),
      fix('define it', [goodEdit]),
      reflect(),
    ]);
    const [rejected] = eventsOf(result.events, 'edits-rejected');
    expect(rejected?.problems).toEqual([
      `"${long}" is not a usable workspace path: a name in it is longer than the file system allows ` +
        '(255 bytes per name, 4095 per path); use a shorter name.',
    ]);
    expect(promptOf(model, 1)).toContain('use a shorter name');
    expect(result).toMatchObject({ outcome: 'fixed', attempts: 2 });
  });

  it('a folder written as a file (EISDIR): refused, and the answer’s other edits are undone', async () => {
    const { model, result, sandbox } = await run([
      fix('replace the package', [
        { path: 'app.py', search: 'print(greeting)', replace: 'print("half-applied")' },
        { path: 'notes.txt', search: '', replace: 'new file\n' },
        { path: 'lib', search: '', replace: 'X = 2\n' },
      ]),
      fix('define it', [goodEdit]),
      reflect(),
    ]);
    expect(eventsOf(result.events, 'edits-rejected')[0]?.problems).toEqual([
      '"lib" is not a usable workspace path: it is a folder, not a file; name a file inside it.',
    ]);
    expect(promptOf(model, 1)).toContain('it is a folder, not a file');
    // All or nothing: the edits before the refused one were rolled back, the new file removed.
    expect(result.diff).not.toContain('half-applied');
    expect(result.changedFiles).toEqual(['app.py']);
    expect(await sandbox.readFile('notes.txt')).toBeNull();
    expect((await sandbox.readFile('lib/util.py'))?.content.toString()).toBe('X = 1\n');
    expect(result.outcome).toBe('fixed');
  });

  it('a file the sandbox may not touch (EACCES, as mapped by the adapter): rejected like any bad path', async () => {
    // The tests run as root, whom permissions do not stop; the adapters' mapping of EACCES is unit-tested.
    const sandbox = refusing(
      await sandboxWith({ 'app.py': BROKEN, 'secret.py': 'x\n' }),
      'secret.py',
      'permission-denied',
    );
    const { model, result } = await run(
      [
        ScriptedModel.toolCall('read_file', { path: 'secret.py' }),
        fix('edit it', [{ path: 'secret.py', search: 'x', replace: 'y' }]),
        fix('define it', [goodEdit]),
        reflect(),
      ],
      { sandbox },
    );
    const expected =
      '"secret.py" is not a usable workspace path: the sandbox is not allowed to read or write it (permission denied).';
    expect(toolAnswerIn(model, 1)).toBe(`Error: ${expected}`);
    expect(eventsOf(result.events, 'edits-rejected')[0]?.problems).toEqual([expected]);
    expect(result).toMatchObject({ outcome: 'fixed', attempts: 2 });
  });

  it('an unusable retry decision counts as "retry" while attempts remain, and says so', async () => {
    const { model, result } = await run([
      fix('typo', [wrongEdit]),
      { content: 'maybe?' },
      { content: '{"retry": "yes"}' },
      fix('define it', [
        { path: 'app.py', search: 'print(greting)', replace: 'greting = 1\nprint(greting)' },
      ]),
      reflect(),
    ]);
    expect(result).toMatchObject({ outcome: 'fixed', attempts: 2 });
    const [rejected] = eventsOf(result.events, 'answer-rejected');
    expect(rejected).toMatchObject({
      attempt: 1,
      purpose: 'retry-decision',
      consequence: 'taken as "retry", since attempts remain',
    });
    expect(rejected?.problem).toMatch(/does not match the schema[\s\S]*retry/);
    expect(eventsOf(result.events, 'retry-decided')).toEqual([
      {
        type: 'retry-decided',
        attempt: 1,
        retry: true,
        reason: 'the model gave no usable decision, so another attempt is made while attempts remain',
      },
    ]);
    expect(promptOf(model, 3)).toContain('Decision: retry — the model gave no usable decision');
  });

  it('an unusable reflection leaves the result without one, and says so', async () => {
    const { result } = await run([
      fix('define it', [goodEdit]),
      { content: 'It works now.' },
      { content: '{"summary": "fixed"}' },
    ]);
    expect(result.outcome).toBe('fixed');
    expect(result.reflection).toBeNull();
    expect(result.reason).toBe(
      "the command passed on attempt 1 (no reflection: the model's answer could not be read as one)",
    );
    expect(eventsOf(result.events, 'answer-rejected')).toEqual([
      expect.objectContaining({
        attempt: null,
        purpose: 'reflect',
        consequence: 'the result has no reflection',
      }),
    ]);
    expect(types(result.events).slice(-3)).toEqual(['model:repair', 'answer-rejected', 'finished']);
    expect(result.diff).toContain('+greeting = "hello"');
  });

  it('answers that are never usable end the run as not fixed after max_attempts, not as an error', async () => {
    const garbage = { content: 'no idea' };
    const { model, result } = await run([garbage, garbage, garbage, garbage, reflect()], {
      limits: limits({ maxAttempts: 2 }),
    });
    expect(result).toMatchObject({
      outcome: 'not-fixed',
      attempts: 2,
      reason: 'still failing after 2 attempts',
    });
    expect(result.reflection).toEqual(reflection);
    expect(eventsOf(result.events, 'answer-rejected').map((event) => event.attempt)).toEqual([1, 2]);
    expect(model.remaining).toBe(0);
  });

  it('shows rejected answers in the attempt comment, the status comment and the CLI', async () => {
    const { result } = await run([
      { content: 'not json' },
      { content: 'still not json' },
      fix('typo', [wrongEdit]),
      { content: 'retry?' },
      { content: 'retry!' },
      fix('define it', [
        { path: 'app.py', search: 'print(greting)', replace: 'greting = 1\nprint(greting)' },
      ]),
      { content: 'done' },
      { content: 'done!' },
    ]);
    expect(result.outcome).toBe('fixed');
    const view = jobView(
      {
        jobId: 'job-1',
        repository: 'acme/app',
        trigger: mentionTrigger({ issueNumber: 1 }),
        requestedBy: 'bob',
      },
      result.events,
    );
    const first = renderAttemptComment(view, 1, Redactor.none);
    expect(first).toContain("### Attempt 1 of 5: ⚠️ the model's answer could not be used");
    expect(first).toContain('#### Unusable generate answer');
    expect(first).toContain('the attempt counts as failed; the next attempt is told what was wrong');
    expect(first).toContain('the answer is not a JSON object; it begins: "still not json"');
    expect(first).toContain(UNUSABLE_ANSWER_ADVICE.slice(0, 60));
    const second = renderAttemptComment(view, 2, Redactor.none);
    expect(second).toContain('#### Unusable retry-decision answer');
    expect(second).toContain('taken as "retry", since attempts remain');
    // Next to the decision it stands for, after the run.
    expect(second.indexOf('#### Unusable retry-decision answer')).toBeGreaterThan(second.indexOf('#### Run'));
    const status = renderStatusComment(view, Redactor.none);
    expect(status).toContain("Attempt 1: ⚠️ the model's answer could not be used, nothing was run");
    expect(status).toContain("- [ ] Reflect: ⚠️ the model's answer could not be used");

    const written: string[] = [];
    const progress = new FixProgress({ write: (text: string) => written.push(text) }, { isTTY: false });
    for (const event of result.events) progress.render(event);
    const text = written.join('');
    expect(text).toContain(
      '  generate answer rejected, the attempt counts as failed; the next attempt is told what was wrong:\n' +
        '    the answer is not a JSON object; it begins: "still not json"\n    If this repeats: let the server enforce',
    );
    expect(text).toContain('  retry-decision answer rejected, taken as "retry", since attempts remain:');
    expect(text).toContain(
      'reflect answer rejected, the result has no reflection:\n  the answer is not a JSON object; it begins: "done!"',
    );
  });

  it('a model server that refuses the key ends the job, with what to do', async () => {
    const refusal = new ModelAuthError(
      'The model server at http://127.0.0.1:1/v1 refused the API key (HTTP 401). Check the key in SELFDEBUG_MODEL_API_KEY.',
    );
    const { model, result } = await run([fix('typo', [wrongEdit]), decide(true, 'again'), refusal]);
    expect(result).toMatchObject({ outcome: 'error', attempts: 2, reflection: null });
    expect(result.reason).toBe(refusal.message);
    expect(model.calls).toHaveLength(3);
    expect(eventsOf(result.events, 'answer-rejected')).toEqual([]);
  });

  it('a model server that stays unreachable ends the job, with what to do', async () => {
    const down = new ModelApiError(
      'Could not reach the model server at http://127.0.0.1:1/v1 (connection refused) after 3 tries. ' +
        'Check SELFDEBUG_MODEL_BASE_URL and that the server is running and reachable.',
      { retryable: true },
    );
    const { result } = await run([{ content: 'not json' }, down]);
    expect(result).toMatchObject({ outcome: 'error', attempts: 1, reason: down.message, reflection: null });
  });
});

/** A sandbox whose file system refuses one path, the way an adapter reports it. */
function refusing(
  sandbox: Sandbox,
  path: string,
  problem: Exclude<WorkspacePathProblem, 'invalid'>,
): Sandbox {
  const refuse = (asked: string) => {
    if (asked === path) throw workspacePathProblem(path, problem);
  };
  return Object.assign(Object.create(sandbox) as Sandbox, {
    readFile: async (asked: string) => {
      refuse(asked);
      return sandbox.readFile(asked);
    },
    writeFile: async (asked: string, content: string | Buffer, mode?: number) => {
      refuse(asked);
      return sandbox.writeFile(asked, content, mode);
    },
  });
}
