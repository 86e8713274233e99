import { describe, expect, it, vi } from 'vitest';
import { ModelApiError } from '../../src/errors/index.js';
import { JobCancelledError } from '../../src/errors/job-errors.js';
import { runLoop } from '../../src/loop/run-loop.js';
import type { LanguageModel } from '../../src/model/language-model.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import type { Timers } from '../../src/util/timers.js';
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

const BROKEN = 'import sys\nprint(greeting)\nsys.exit(0)\n';
const task = { description: 'app.py crashes with NameError', command: 'python3 app.py' };
const goodEdit = {
  path: 'app.py',
  search: 'print(greeting)',
  replace: 'greeting = "hello"\nprint(greeting)',
};
const wrongEdit = { path: 'app.py', search: 'print(greeting)', replace: 'print(greting)' };

describe('runLoop', () => {
  const sandboxWith = useLocalSandboxes();

  it('fixes on the first attempt and reports every step', async () => {
    const sandbox = await sandboxWith({ 'app.py': BROKEN });
    const model = new ScriptedModel([fix('greeting is never defined', [goodEdit]), reflect()]);
    const result = await runLoop({ task, limits: limits(), model, sandbox });

    expect(result.outcome).toBe('fixed');
    expect(result.attempts).toBe(1);
    expect(types(result.events)).toEqual([
      'started',
      'reproduced',
      'attempt-started',
      'model:generate',
      'proposal',
      'edits-applied',
      'executed',
      'model:reflect',
      'reflected',
      'finished',
    ]);
    const [reproduced] = eventsOf(result.events, 'reproduced');
    expect(reproduced?.status).toBe('failing');
    expect(reproduced?.runs[0]?.stderr).toContain("NameError: name 'greeting' is not defined");
    const [executed] = eventsOf(result.events, 'executed');
    expect(executed?.result).toMatchObject({ exitCode: 0, stdout: 'hello\n' });
    expect(result.diff).toContain('+greeting = "hello"\n print(greeting)');
    expect(result.changedFiles).toEqual(['app.py']);
    expect(result.reflection).toEqual(reflection);
    expect((await sandbox.readFile('app.py'))?.content.toString()).toContain('greeting = "hello"');
    // The model saw the real failure. Tools were offered, so no response format rode along:
    // its JSON answer in that request was valid and taken without a separate answer request.
    expect(model.calls[0]?.messages[1]?.content).toContain('NameError');
    expect(model.calls[0]?.output).toBeUndefined();
    expect(model.calls[0]?.tools?.map((tool) => tool.name)).toEqual([
      'list_files',
      'read_file',
      'search_text',
    ]);
    const [finished] = eventsOf(result.events, 'finished');
    expect(finished?.total.usage.totalTokens).toBeGreaterThan(0);
  });

  it('retries after a failed attempt, showing the model what happened', async () => {
    const sandbox = await sandboxWith({ 'app.py': BROKEN });
    const model = new ScriptedModel([
      fix('typo fix', [wrongEdit]),
      decide(true, 'the name is still undefined; define it'),
      fix('define it', [
        { path: 'app.py', search: 'print(greting)', replace: 'greting = 1\nprint(greting)' },
      ]),
      reflect(),
    ]);
    const result = await runLoop({ task, limits: limits(), model, sandbox });
    expect(result.outcome).toBe('fixed');
    expect(result.attempts).toBe(2);
    expect(eventsOf(result.events, 'retry-decided')).toEqual([
      { type: 'retry-decided', attempt: 1, retry: true, reason: 'the name is still undefined; define it' },
    ]);
    expect(model.calls.map((call) => call.purpose)).toEqual([
      'generate',
      'retry-decision',
      'generate',
      'reflect',
    ]);
    const secondPrompt = model.calls[2]?.messages[1]?.content ?? '';
    expect(secondPrompt).toContain('## Earlier attempts');
    expect(secondPrompt).toContain('+print(greting)');
    expect(secondPrompt).toContain("name 'greting' is not defined");
    expect(secondPrompt).toContain('Decision: retry — the name is still undefined');
    expect(result.diff).toContain('+greting = 1');
  });

  it('stops when the model declines a retry, and still reflects', async () => {
    const sandbox = await sandboxWith({ 'app.py': BROKEN });
    const model = new ScriptedModel([
      fix('try', [wrongEdit]),
      decide(false, 'needs a network service'),
      reflect(),
    ]);
    const result = await runLoop({ task, limits: limits(), model, sandbox });
    expect(result.outcome).toBe('declined');
    expect(result.reason).toBe('needs a network service');
    expect(result.attempts).toBe(1);
    expect(types(result.events).slice(-5)).toEqual([
      'model:retry-decision',
      'retry-decided',
      'model:reflect',
      'reflected',
      'finished',
    ]);
  });

  it('stops at the attempt limit without asking for a pointless decision', async () => {
    const sandbox = await sandboxWith({ 'app.py': BROKEN });
    const model = new ScriptedModel([
      fix('one', [wrongEdit]),
      decide(true, 'again'),
      fix('two', [{ path: 'app.py', search: 'print(greting)', replace: 'print(gretting)' }]),
      reflect(),
    ]);
    const result = await runLoop({ task, limits: limits({ maxAttempts: 2 }), model, sandbox });
    expect(result.outcome).toBe('not-fixed');
    expect(result.reason).toBe('still failing after 2 attempts');
    expect(result.attempts).toBe(2);
    expect(eventsOf(result.events, 'retry-decided')).toHaveLength(1);
    expect(model.remaining).toBe(0);
  });

  it('sends edits that do not apply back to the model instead of crashing', async () => {
    const sandbox = await sandboxWith({ 'app.py': BROKEN });
    const model = new ScriptedModel([
      fix('bad search', [
        { path: 'app.py', search: 'print(greetings)', replace: 'x' },
        { path: '../etc/passwd', search: '', replace: 'x' },
      ]),
      fix('good', [goodEdit]),
      reflect(),
    ]);
    const result = await runLoop({ task, limits: limits(), model, sandbox });
    expect(result.outcome).toBe('fixed');
    const [rejected] = eventsOf(result.events, 'edits-rejected');
    expect(rejected?.problems).toHaveLength(2);
    expect(rejected?.problems[0]).toMatch(/app\.py: the search text was not found.*print\(greeting\)/);
    expect(rejected?.problems[1]).toMatch(/leaves the workspace/);
    expect(model.calls[1]?.messages[1]?.content).toContain('did not apply');
    expect(eventsOf(result.events, 'executed')).toHaveLength(1);
  });

  it('treats a command that times out as a failure it can fix', async () => {
    // The scheduler, not the machine's speed, decides: the first run's limit passes as soon as it is set,
    // and no later one ever does. The broken run never ends on its own; the fixed one does.
    let armed = 0;
    const timers: Timers = {
      setTimeout: (callback) => {
        if (armed++ === 0) setImmediate(callback);
        return armed;
      },
      clearTimeout: () => {},
    };
    const sandbox = await sandboxWith({ 'app.py': 'import time\ntime.sleep(3600)\n' }, timers);
    const model = new ScriptedModel([
      fix('remove the sleep', [{ path: 'app.py', search: 'time.sleep(3600)', replace: 'pass' }]),
      reflect(),
    ]);
    const result = await runLoop({ task, limits: limits({ commandTimeoutSeconds: 5 }), model, sandbox });
    const [reproduced] = eventsOf(result.events, 'reproduced');
    expect(reproduced?.runs[0]).toMatchObject({ exitCode: 124, reason: 'timed out after 5 s' });
    expect(model.calls[0]?.messages[1]?.content).toContain('exit code 124 (timed out after 5 s)');
    expect(result.outcome).toBe('fixed');
  });

  it('explains without attempting a fix when asked to', async () => {
    const sandbox = await sandboxWith({ 'app.py': BROKEN });
    const model = new ScriptedModel([reflect()]);
    const result = await runLoop({ task, limits: limits(), model, sandbox, mode: 'explain' });
    expect(result.outcome).toBe('explained');
    expect(types(result.events)).toEqual(['started', 'reproduced', 'model:reflect', 'reflected', 'finished']);
    expect(model.calls[0]?.messages[1]?.content).toContain("name 'greeting' is not defined");
    expect(result.diff).toBe('');
  });

  it('revises a passing fix as a review asks, once, and keeps the command passing', async () => {
    const sandbox = await sandboxWith({ 'app.py': 'greeting = "hello"\nprint(greeting)\n' });
    const model = new ScriptedModel([
      fix('the reviewer wants a louder greeting', [
        { path: 'app.py', search: 'greeting = "hello"', replace: 'greeting = "HELLO"' },
      ]),
      reflect(),
    ]);
    const result = await runLoop({
      task: { description: 'A reviewer asked: shout the greeting', command: 'python3 app.py' },
      limits: limits(),
      model,
      sandbox,
      mode: 'revise',
    });
    expect(result.outcome).toBe('fixed');
    const [reproduced] = eventsOf(result.events, 'reproduced');
    // One run, not the reruns that tell flaky from cannot-reproduce.
    expect(reproduced).toMatchObject({ status: 'passing' });
    expect(reproduced?.runs).toHaveLength(1);
    expect(model.calls[0]?.messages[1]?.content).toContain('## Latest run (the command passes now');
    expect(result.diff).toContain('+greeting = "HELLO"');
  });

  it('tells "cannot reproduce" from "flaky" without changing code', async () => {
    const passing = await sandboxWith({});
    const calm = new ScriptedModel([reflect()]);
    const stable = await runLoop({
      task: { ...task, command: 'true' },
      limits: limits(),
      model: calm,
      sandbox: passing,
    });
    expect(stable.outcome).toBe('cannot-reproduce');
    expect(eventsOf(stable.events, 'reproduced')[0]?.runs).toHaveLength(3);
    expect(calm.calls.map((call) => call.purpose)).toEqual(['reflect']);

    const flakySandbox = await sandboxWith({});
    const flakyCommand = 'n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) > count; [ "$n" -ne 1 ]';
    const flaky = await runLoop({
      task: { ...task, command: flakyCommand },
      limits: limits(),
      model: new ScriptedModel([reflect()]),
      sandbox: flakySandbox,
    });
    expect(flaky.outcome).toBe('flaky');
    expect(eventsOf(flaky.events, 'reproduced')[0]?.runs.map((run) => run.exitCode)).toEqual([0, 1]);
    expect(flaky.diff).toBe('');
  });

  it('ends with budget-exhausted when the token budget is used up, and still reflects', async () => {
    const sandbox = await sandboxWith({ 'app.py': BROKEN });
    const usage = { promptTokens: 900, completionTokens: 100 };
    const model = new ScriptedModel([
      {
        content: JSON.stringify({ analysis: 'a', edits: [wrongEdit] }),
        usage: { ...usage, totalTokens: 1000 },
      },
      { content: JSON.stringify({ retry: true, reason: 'again' }), usage: { ...usage, totalTokens: 1000 } },
      reflect(),
    ]);
    const result = await runLoop({
      task,
      limits: limits({ maxTotalTokens: 1500 }),
      prices: { inputPerMillion: 2, outputPerMillion: 8 },
      model,
      sandbox,
    });
    expect(result.outcome).toBe('budget-exhausted');
    expect(result.reason).toMatch(/token budget used up \(2000 of 1500 tokens\)/);
    expect(types(result.events)).toContain('retry-decided');
    expect(result.attempts, JSON.stringify(types(result.events))).toBe(1);
    expect(result.reflection).toEqual(reflection);
    const costs = eventsOf(result.events, 'model-responded').map((event) => event.costUsd);
    expect(costs[0]).toBeCloseTo((900 * 2 + 100 * 8) / 1e6, 10);
  });

  it('ends with budget-exhausted when the time budget is used up, timed by the clock it is given', async () => {
    const sandbox = await sandboxWith({ 'app.py': BROKEN });
    // Time passes only while the model answers: 40 s an answer, against a 60 s budget.
    const clock = { now: () => elapsed };
    let elapsed = 0;
    const scripted = new ScriptedModel([fix('a', [wrongEdit]), decide(true, 'again'), reflect()]);
    const slow: LanguageModel = {
      model: 'slow',
      complete: async (request) => {
        elapsed += 40_000;
        return scripted.complete(request);
      },
    };
    const result = await runLoop({
      task,
      limits: limits({ maxDurationSeconds: 60 }),
      model: slow,
      sandbox,
      clock,
    });
    expect(result.outcome).toBe('budget-exhausted');
    expect(result.reason).toBe('time budget used up (60 s)');
    expect(result.attempts).toBe(1);
    expect(eventsOf(result.events, 'model-responded').map((event) => event.durationMs)).toEqual([
      40_000, 40_000, 40_000,
    ]);
    expect(result.durationMs).toBe(120_000);
  });

  it('repairs invalid structured output once, and after that fails the attempt, not the job', async () => {
    const sandbox = await sandboxWith({ 'app.py': BROKEN });
    const repaired = new ScriptedModel([
      { content: 'Sure! Here is the fix: edit app.py' },
      fix('define it', [goodEdit]),
      reflect(),
    ]);
    const result = await runLoop({ task, limits: limits(), model: repaired, sandbox });
    expect(result.outcome).toBe('fixed');
    expect(repaired.calls.map((call) => call.purpose)).toEqual(['generate', 'repair', 'reflect']);
    expect(repaired.calls[1]?.messages.at(-1)?.content).toMatch(/not usable[\s\S]*JSON Schema/);

    const other = await sandboxWith({ 'app.py': BROKEN });
    const hopeless = new ScriptedModel([
      { content: '{"analysis": 1}' },
      { content: 'still nothing' },
      reflect(),
    ]);
    const failed = await runLoop({
      task,
      limits: limits({ maxAttempts: 1 }),
      model: hopeless,
      sandbox: other,
    });
    // test/loop/bad-answers.test.ts covers each kind of bad answer; here only that the run goes on to its end.
    expect(failed.outcome).toBe('not-fixed');
    expect(eventsOf(failed.events, 'answer-rejected')).toEqual([
      expect.objectContaining({ attempt: 1, purpose: 'generate' }),
    ]);
    expect(failed.reflection).toEqual(reflection);
  });

  it('ends with error and no reflection when the model API keeps failing', async () => {
    const sandbox = await sandboxWith({ 'app.py': BROKEN });
    const model = new ScriptedModel([
      new ModelApiError('the model server did not answer after 5 tries', { status: 503, retryable: true }),
    ]);
    const result = await runLoop({ task, limits: limits(), model, sandbox });
    expect(result.outcome).toBe('error');
    expect(result.reason).toContain('did not answer after 5 tries');
    expect(result.reflection).toBeNull();
    expect(model.calls).toHaveLength(1);
  });

  it('is cancelled while the model thinks, and while the command runs', async () => {
    const thinking = await sandboxWith({ 'app.py': BROKEN });
    const controller = new AbortController();
    // A model that never answers on its own: only the abort can end its call, so the run ending proves it did.
    const calls: string[] = [];
    const stuck: LanguageModel = {
      model: 'stuck',
      complete: (request) =>
        new Promise((_, reject) => {
          calls.push(request.purpose);
          request.signal?.addEventListener('abort', () => reject(request.signal?.reason), { once: true });
          controller.abort();
        }),
    };
    const cancelled = await runLoop({
      task,
      limits: limits(),
      model: stuck,
      sandbox: thinking,
      signal: controller.signal,
    });
    expect(cancelled.outcome).toBe('cancelled');
    expect(calls).toEqual(['generate']);
    expect(types(cancelled.events).at(-1)).toBe('finished');
    expect(types(cancelled.events)).not.toContain('reflected');

    const running = await sandboxWith({ 'run.sh': 'exit 1\n' });
    const stop = new AbortController();
    const model = new ScriptedModel([
      fix('wait', [{ path: 'run.sh', search: 'exit 1', replace: 'touch running\nsleep 3600' }]),
    ]);
    // The stop comes once the command is seen running (it leaves a mark), not after a guessed delay.
    const stopWhenRunning = async () => {
      await vi.waitFor(async () => expect(await running.readFile('running')).not.toBeNull(), {
        timeout: 30_000,
        interval: 10,
      });
      stop.abort(new JobCancelledError('stopped by @octocat'));
    };
    const result = await runLoop({
      task: { description: 'run.sh fails', command: 'bash run.sh' },
      // No limit would end the command within the test: only the stop can, so the run ending proves it did.
      limits: limits({ commandTimeoutSeconds: 3600 }),
      model,
      sandbox: running,
      signal: stop.signal,
      emit: (event) => {
        if (event.type === 'edits-applied') void stopWhenRunning();
      },
    });
    expect(result.outcome).toBe('cancelled');
    // The reason given to abort() is the reason shown.
    expect(result.reason).toBe('stopped by @octocat');
    expect(result.diff).toContain('+sleep 3600');
  });

  it('lets the model read the workspace with a bounded number of tool calls', async () => {
    const sandbox = await sandboxWith({ 'app.py': BROKEN, 'lib/util.py': 'GREETING = "hi"\n' });
    const model = new ScriptedModel([
      ScriptedModel.toolCall('search_text', { text: 'GREETING' }),
      ScriptedModel.toolCall('read_file', { path: 'app.py', startLine: 2, endLine: 2 }),
      fix('use it', [goodEdit]),
      reflect(),
    ]);
    const result = await runLoop({ task, limits: limits({ maxToolCallsPerAttempt: 1 }), model, sandbox });
    const calls = eventsOf(result.events, 'tool-called');
    expect(calls.map((call) => [call.name, call.ok])).toEqual([['search_text', true]]);
    expect(calls[0]?.result).toContain('lib/util.py:1:GREETING = "hi"');
    // The second tool call exceeded the limit: it got an error answer and tools were no longer offered.
    expect(model.calls[1]?.tools).toBeUndefined();
    const toolAnswers = model.calls[2]?.messages.filter((message) => message.role === 'tool') ?? [];
    expect(toolAnswers.at(-1)?.content).toMatch(/no tool calls are left/);
    expect(result.outcome).toBe('fixed');
  });

  it('keeps every prompt within the token budget however large the output', async () => {
    const sandbox = await sandboxWith({
      'noisy.sh': 'head -c 5000000 /dev/zero | tr "\\0" x | fold -w 100; echo "Error: boom" >&2; exit 1\n',
    });
    const attempts = 4;
    const answers = [];
    for (let index = 1; index <= attempts; index++) {
      answers.push(
        fix(`attempt ${index}`, [{ path: `note${index}.txt`, search: '', replace: 'x'.repeat(20_000) }]),
      );
      if (index < attempts) answers.push(decide(true, 'again'));
    }
    answers.push(reflect());
    const model = new ScriptedModel(answers);
    const budget = 8000;
    const result = await runLoop({
      task: { description: 'noisy fails', command: 'bash noisy.sh' },
      limits: limits({ maxAttempts: attempts, promptTokenBudget: budget }),
      model,
      sandbox,
    });
    expect(result.outcome).toBe('not-fixed');
    for (const event of eventsOf(result.events, 'model-responded')) {
      expect(event.promptTokensEstimate).toBeLessThanOrEqual(budget);
    }
    expect(model.calls.at(-2)?.messages[1]?.content).toContain('Error: boom');
  });
});
