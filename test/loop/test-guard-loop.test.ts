import { describe, expect, it } from 'vitest';
import { runLoop } from '../../src/loop/run-loop.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { eventsOf, limits, reflect, useLocalSandboxes } from '../helpers/loop-fixtures.js';
import { CODE_FIX, WEAKENING_PROJECT, WEAKENING_TASK, WEAKENINGS } from '../helpers/weakening-project.js';

describe('the test guard in the loop', () => {
  const sandboxWith = useLocalSandboxes();

  it('under protect, refuses every weakening with its reason and delivers the code fix alone', async () => {
    const sandbox = await sandboxWith(WEAKENING_PROJECT);
    const model = new ScriptedModel([
      ...WEAKENINGS.map((weakening) => weakening.answer),
      CODE_FIX,
      reflect(),
    ]);
    const result = await runLoop({
      task: WEAKENING_TASK,
      limits: limits({ maxAttempts: 6 }),
      model,
      sandbox,
    });

    expect(result.outcome).toBe('fixed');
    expect(result.attempts).toBe(6);
    const rejected = eventsOf(result.events, 'edits-rejected');
    expect(rejected.map((event) => event.attempt)).toEqual([1, 2, 3, 4, 5]);
    const reasons = [
      /tests\/test_calc\.py: an assertion was changed.*assertEqual\(add\(2, 3\), 5\).*assertTrue/,
      /tests\/test_calc\.py: a skip marker was added/,
      /tests\/test_calc\.py: a test was deleted or renamed: "test_expected_output"/,
      /tests\/fixtures\/expected\.txt: expected output \(a fixture or snapshot\) was changed/,
      /Makefile: this file decides what the command `make test` runs/,
    ];
    rejected.forEach((event, index) => {
      expect(event.problems[0]).toMatch(/tests: protect/);
      expect(event.problems.slice(1).join('\n')).toMatch(reasons[index] as RegExp);
      // The reports head the attempt from the findings behind the problems.
      expect(event.guardFindings?.map((finding) => finding.reason)).toEqual(event.problems.slice(1));
      // The next attempt's prompt carries the refusal in the same words.
      const prompt = JSON.stringify(model.calls[index + 1]?.messages);
      expect(prompt).toMatch(/fix the code under test instead/);
    });
    // Nothing refused was ever run or written: one run, and the diff is the code fix only.
    expect(eventsOf(result.events, 'executed')).toHaveLength(1);
    expect(result.changedFiles).toEqual(['calc.py']);
    expect(new TextDecoder().decode((await sandbox.readFile('tests/fixtures/expected.txt'))?.content)).toBe(
      '2\n',
    );
    expect(new TextDecoder().decode((await sandbox.readFile('Makefile'))?.content)).toBe(
      WEAKENING_PROJECT.Makefile,
    );
  });

  it.each(['flag', 'allow'] as const)('under %s, lets a weakening through', async (tests) => {
    const sandbox = await sandboxWith(WEAKENING_PROJECT);
    const weakening = WEAKENINGS.find((entry) => entry.kind === 'command-edited');
    const model = new ScriptedModel([weakening?.answer ?? CODE_FIX, reflect()]);
    const result = await runLoop({ task: WEAKENING_TASK, limits: limits({ tests }), model, sandbox });
    expect(result.outcome).toBe('fixed');
    expect(eventsOf(result.events, 'edits-rejected')).toEqual([]);
    expect(result.changedFiles).toEqual(['Makefile']);
  });

  it("under protect, a review's requested change to a test is flagged, not refused", async () => {
    const sandbox = await sandboxWith(WEAKENING_PROJECT);
    const weakening = WEAKENINGS.find((entry) => entry.kind === 'skip-added');
    const model = new ScriptedModel([weakening?.answer ?? CODE_FIX, reflect()]);
    const result = await runLoop({ task: WEAKENING_TASK, limits: limits(), model, sandbox, mode: 'revise' });
    expect(eventsOf(result.events, 'edits-rejected')).toEqual([]);
    expect(result.changedFiles).toEqual(['tests/test_calc.py']);
    // Listed for the pull request as under flag: the reviewer asked, the change is still shown.
    expect(result.testEdits?.findings.map((finding) => finding.reason).join('\n')).toMatch(
      /a skip marker was added/,
    );
  });

  it('guards the globs of protected_paths too', async () => {
    const sandbox = await sandboxWith(WEAKENING_PROJECT);
    const model = new ScriptedModel([CODE_FIX, reflect()]);
    const result = await runLoop({
      task: WEAKENING_TASK,
      limits: limits({ maxAttempts: 1, protectedPaths: ['calc.*'] }),
      model,
      sandbox,
    });
    expect(result.outcome).toBe('not-fixed');
    expect(eventsOf(result.events, 'edits-rejected')[0]?.problems[1]).toMatch(
      /calc\.py: the repository's protected_paths/,
    );
  });
});
