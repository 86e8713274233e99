import { describe, expect, it } from 'vitest';
import { activityText, currentActivity } from '../../src/report/activity.js';
import { attemptStatus } from '../../src/report/attempt-status.js';
import { initialProgress, jobView, reduceJobEvent } from '../../src/report/job-view.js';
import { firstAttempt, fixedRun } from './fixtures/attempts.js';
import { FINAL_DIFF } from './fixtures/diffs.js';
import { EventList } from './fixtures/event-list.js';
import { exec } from './fixtures/exec-results.js';
import { COMMAND, context } from './fixtures/job-context.js';
import { REFLECTION } from './fixtures/reflection.js';

describe('jobView', () => {
  it('folds a whole run into attempts, reproduction, reflection and the end', () => {
    const view = fixedRun().view({ attemptCommentUrls: { 1: 'https://x/1' } });
    expect(view.model).toBe('gpt-4.1-mini');
    expect(view.task?.command).toBe(COMMAND);
    expect(view.setup).toHaveLength(1);
    expect(view.reproduction?.status).toBe('failing');
    expect(view.attempts.map((attempt) => attempt.number)).toEqual([1, 2]);
    expect(view.reflection).toEqual(REFLECTION);
    expect(view.finished?.outcome).toBe('fixed');
    expect(view.finished?.diff).toBe(FINAL_DIFF);
    expect(view.attemptCommentUrls).toEqual({ 1: 'https://x/1' });
    expect(view.handle).toBe('selfdebug');
    expect(view.events).toHaveLength(fixedRun().events.length);
  });

  it('gives each attempt its tool calls, proposal, run, decision and model usage', () => {
    const [first, second] = fixedRun().view().attempts;
    expect(first?.toolCalls.map((call) => call.name)).toEqual(['read_file', 'search_text']);
    expect(first?.proposal?.edits).toHaveLength(1);
    expect(first?.run?.result.exitCode).toBe(1);
    expect(first?.decision).toEqual({ retry: true, reason: expect.stringContaining('statistics') });
    expect(first?.modelCalls.map((call) => call.purpose)).toEqual([
      'generate',
      'generate',
      'generate',
      'retry-decision',
    ]);
    expect(first?.usage).toEqual({ promptTokens: 8300, completionTokens: 350, totalTokens: 8650 });
    expect(second?.run?.result.exitCode).toBe(0);
    expect(second?.decision).toBeNull();
  });

  it('keeps the reflection call out of the attempts, and its repair with it', () => {
    const list = fixedRun();
    const reflected = list.events.findIndex((event) => event.type === 'reflected');
    // The loop tags a repair during reflection with the last attempt's number.
    list.events.splice(reflected, 0, {
      type: 'model-responded',
      attempt: 2,
      purpose: 'repair',
      content: '{}',
      toolCalls: [],
      usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
      costUsd: 0,
      promptTokensEstimate: 10,
      durationMs: 100,
      total: { usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 }, costUsd: 0 },
    });
    const view = jobView(context(), list.events);
    expect(view.otherModelCalls.map((call) => call.purpose)).toEqual(['reflect', 'repair']);
    expect(view.attempts[1]?.modelCalls.map((call) => call.purpose)).toEqual(['generate']);
  });

  it('counts a repair during an attempt towards that attempt', () => {
    const list = new EventList()
      .started()
      .reproduced('failing', [exec(1, 'x', 10)])
      .attempt(1);
    list.model(1, 'generate', 'not json', 100, 10).model(1, 'repair', '{"analysis":"a","edits":[]}', 120, 12);
    expect(list.view().attempts[0]?.modelCalls.map((call) => call.purpose)).toEqual(['generate', 'repair']);
  });

  it('is a pure reducer: earlier states are left untouched', () => {
    const events = fixedRun().events;
    const halfway = events.slice(0, 10).reduce(reduceJobEvent, initialProgress);
    const snapshot = JSON.stringify(halfway);
    events.slice(10).reduce(reduceJobEvent, halfway);
    expect(JSON.stringify(halfway)).toBe(snapshot);
    expect(initialProgress.attempts).toEqual([]);
  });

  it('shows an event for an attempt that never started instead of dropping it', () => {
    const list = new EventList().started().reproduced('failing', [exec(1, 'x', 10)]);
    list.rejected(4, ['no match']);
    expect(list.view().attempts.map((attempt) => [attempt.number, attempt.rejected])).toEqual([
      [4, ['no match']],
    ]);
  });
});

describe('attemptStatus', () => {
  it('follows an attempt through its steps', () => {
    const list = new EventList()
      .started()
      .reproduced('failing', [exec(1, 'x', 10)])
      .attempt(1);
    const status = () => attemptStatus(list.view().attempts[0]!, false);
    expect(status()).toBe('thinking');
    list.proposal(1, 'a', []);
    expect(status()).toBe('applying');
    list.applied(1, FINAL_DIFF);
    expect(status()).toBe('running');
    list.executed(1, exec(1, 'still failing', 10));
    expect(status()).toBe('deciding');
    list.decided(1, true, 'try again');
    expect(status()).toBe('failed');
  });

  it('is stopped when the job ended in the middle of the attempt', () => {
    const list = new EventList()
      .started()
      .reproduced('failing', [exec(1, 'x', 10)])
      .attempt(1);
    list.finished('cancelled', 'the job was cancelled');
    expect(attemptStatus(list.view().attempts[0]!, true)).toBe('stopped');
  });
});

describe('currentActivity', () => {
  const text = (list: EventList) => {
    const activity = currentActivity(list.view());
    return activity ? activityText(activity) : null;
  };

  it('names the step in progress after each event', () => {
    const list = new EventList();
    expect(text(list)).toBe('Starting');
    list.started(['pip install -r requirements.txt']);
    expect(text(list)).toBe('Setup: running pip install -r requirements.txt');
    list.setup('pip install -r requirements.txt', exec(0, '', 10));
    expect(text(list)).toBe(`Reproducing: running ${COMMAND}`);
    list.reproduced('failing', [exec(1, 'x', 10)]);
    expect(text(list)).toBe('Attempt 1 of 3: starting');
    list.attempt(1);
    expect(text(list)).toBe('Attempt 1 of 3: the model is working on a fix');
    list.tool(1, 'read_file', '{}', 'content');
    expect(text(list)).toBe('Attempt 1 of 3: the model is reading the code (1 tool call so far)');
    list.proposal(1, 'a', []).applied(1, FINAL_DIFF);
    expect(text(list)).toBe(`Attempt 1 of 3: running ${COMMAND}`);
    list.executed(1, exec(1, 'x', 10));
    expect(text(list)).toBe('Attempt 1 of 3: the model is deciding whether another attempt can help');
    list.decided(1, true, 'again');
    expect(text(list)).toBe('Attempt 2 of 3: starting');
    list.attempt(2).proposal(2, 'b', []).rejected(2, ['no match']);
    expect(text(list)).toBe('Attempt 3 of 3: starting');
    list
      .attempt(3)
      .proposal(3, 'c', [])
      .applied(3, FINAL_DIFF)
      .executed(3, exec(0, 'ok', 10));
    expect(text(list)).toBe('The command passed; the model is reflecting on the run');
    list.reflected();
    expect(text(list)).toBe('Wrapping up');
    list.finished('fixed', 'passed', FINAL_DIFF);
    expect(text(list)).toBeNull();
  });

  it('goes to the reflection when the model declines, the last attempt fails, or nothing reproduces', () => {
    const declined = firstAttempt(new EventList('python stats.py data.csv', 5));
    declined.events.pop();
    declined.decided(1, false, 'needs a database');
    expect(text(declined)).toBe('The model is reflecting on the run');
    const passing = new EventList().started().reproduced('passing', [exec(0, '', 1), exec(0, '', 1)]);
    expect(text(passing)).toBe('The model is reflecting on the run');
  });
});
