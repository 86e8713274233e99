import { describe, expect, it } from 'vitest';
import {
  type CiRun,
  type CiSuite,
  decideCiVerdict,
  decideCiVerdictNow,
} from '../../src/ci-verdict/ci-verdict.js';
import { parseRepoConfigText } from '../../src/config/repo-config.js';
import { ciVerdictWaitMs } from '../../src/config/repo-config-mappers.js';

const SHA = 'f1x0000000000000000000000000000000000001';

function run(id: number, name: string, status: string, conclusion: string | null = null): CiRun {
  return { id, name, url: `https://github.com/o/r/actions/runs/${id}`, status, conclusion };
}

/** Another app's check suite on the commit, with `checkRuns` check runs in it. */
function suite(id: number, name: string, status: string, conclusion: string | null, checkRuns = 1): CiSuite {
  const url = `https://github.com/o/r/commit/${SHA}/checks?check_suite_id=${id}`;
  return { id, name, url, status, conclusion, checkRuns };
}

const open = { timedOut: false };
const over = { timedOut: true };

describe('decideCiVerdict', () => {
  it('passes when every run has finished and none failed', () => {
    const runs = [run(1, 'Tests', 'completed', 'success'), run(2, 'Docs', 'completed', 'skipped')];
    expect(decideCiVerdict(SHA, { runs, suites: [], activeWorkflows: 2 }, open)).toEqual({
      verdict: 'passed',
      reason: null,
      sha: SHA,
      runs: 2,
      suites: 0,
      workflows: [
        { name: 'Tests', url: 'https://github.com/o/r/actions/runs/1', conclusion: 'success' },
        { name: 'Docs', url: 'https://github.com/o/r/actions/runs/2', conclusion: 'skipped' },
      ],
    });
  });

  it('fails with the failed workflows named once every run has finished', () => {
    const runs = [
      run(1, 'Tests', 'completed', 'failure'),
      run(2, 'Lint', 'completed', 'success'),
      run(3, 'Build', 'completed', 'timed_out'),
    ];
    const verdict = decideCiVerdict(SHA, { runs, suites: [], activeWorkflows: 3 }, open);
    expect(verdict).toMatchObject({ verdict: 'failed', reason: null, runs: 3 });
    expect(verdict?.workflows.map((workflow) => workflow.name)).toEqual(['Tests', 'Build']);
  });

  it('stays open while a run is unfinished, even when another has already failed', () => {
    const runs = [run(1, 'Tests', 'completed', 'failure'), run(2, 'Slow', 'in_progress')];
    expect(decideCiVerdict(SHA, { runs, suites: [], activeWorkflows: 2 }, open)).toBeNull();
  });

  it('is unknown (timed out) when runs are still unfinished once the wait is over, naming them', () => {
    const runs = [run(1, 'Tests', 'completed', 'success'), run(2, 'Slow', 'queued')];
    const verdict = decideCiVerdict(SHA, { runs, suites: [], activeWorkflows: 2 }, over);
    expect(verdict).toMatchObject({ verdict: 'unknown', reason: 'timed-out', runs: 2 });
    expect(verdict?.workflows.map((workflow) => workflow.name)).toEqual(['Slow']);
  });

  it('is "no CI" at once when the repository has no active workflow', () => {
    expect(decideCiVerdict(SHA, { runs: [], suites: [], activeWorkflows: 0 }, open)).toEqual({
      verdict: 'unknown',
      reason: 'no-ci',
      sha: SHA,
      runs: 0,
      suites: 0,
      workflows: [],
    });
  });

  it('waits for runs that have not started yet, and is "no CI" when none came by the end of the wait', () => {
    expect(decideCiVerdict(SHA, { runs: [], suites: [], activeWorkflows: 1 }, open)).toBeNull();
    expect(decideCiVerdict(SHA, { runs: [], suites: [], activeWorkflows: 1 }, over)).toMatchObject({
      verdict: 'unknown',
      reason: 'no-ci',
    });
  });

  it('is unknown when a run was cancelled: the code was not judged', () => {
    const runs = [run(1, 'Tests', 'completed', 'cancelled'), run(2, 'Lint', 'completed', 'success')];
    expect(decideCiVerdict(SHA, { runs, suites: [], activeWorkflows: 2 }, open)).toMatchObject({
      verdict: 'unknown',
      reason: 'cancelled',
      runs: 2,
      workflows: [{ name: 'Tests' }],
    });
  });
});

describe('decideCiVerdict over check suites', () => {
  const tests = [run(1, 'Tests', 'completed', 'success')];

  it('fails when a third-party check suite fails, though every workflow passed, naming the suite', () => {
    const suites = [suite(7, 'CircleCI Checks', 'completed', 'failure')];
    const verdict = decideCiVerdict(SHA, { runs: tests, suites, activeWorkflows: 1 }, open);
    expect(verdict).toMatchObject({ verdict: 'failed', runs: 1, suites: 1 });
    expect(verdict?.workflows).toEqual([
      {
        name: 'CircleCI Checks',
        url: `https://github.com/o/r/commit/${SHA}/checks?check_suite_id=7`,
        conclusion: 'failure',
      },
    ]);
  });

  it('passes on check suites alone, in a repository without workflows', () => {
    const suites = [suite(7, 'CircleCI Checks', 'completed', 'success')];
    expect(decideCiVerdict(SHA, { runs: [], suites, activeWorkflows: 0 }, open)).toMatchObject({
      verdict: 'passed',
      runs: 0,
      suites: 1,
    });
  });

  it('stays open while a suite runs, and names it when the wait ends first', () => {
    const suites = [suite(7, 'Buildkite', 'in_progress', null)];
    expect(decideCiVerdict(SHA, { runs: tests, suites, activeWorkflows: 1 }, open)).toBeNull();
    expect(decideCiVerdict(SHA, { runs: tests, suites, activeWorkflows: 1 }, over)).toMatchObject({
      verdict: 'unknown',
      reason: 'timed-out',
      workflows: [{ name: 'Buildkite' }],
    });
  });

  it('waits for a suite without check runs only while nothing else ran', () => {
    const empty = [suite(8, 'Some app', 'queued', null, 0)];
    // Without workflows it may be a CI about to start: not "no CI" at once, but by the end of the wait.
    expect(decideCiVerdict(SHA, { runs: [], suites: empty, activeWorkflows: 0 }, open)).toBeNull();
    expect(decideCiVerdict(SHA, { runs: [], suites: empty, activeWorkflows: 0 }, over)).toMatchObject({
      verdict: 'unknown',
      reason: 'no-ci',
    });
    // Beside finished runs it is an app that did not run here: it neither holds nor counts.
    expect(decideCiVerdict(SHA, { runs: tests, suites: empty, activeWorkflows: 1 }, open)).toMatchObject({
      verdict: 'passed',
      runs: 1,
      suites: 0,
    });
  });

  it('is unknown when a suite was cancelled or asks for an action', () => {
    const suites = [suite(7, 'Travis CI', 'completed', 'action_required')];
    expect(decideCiVerdict(SHA, { runs: tests, suites, activeWorkflows: 1 }, open)).toMatchObject({
      verdict: 'unknown',
      reason: 'cancelled',
      workflows: [{ name: 'Travis CI' }],
    });
  });
});

describe('ci_verdict in .github/selfdebug.yml', () => {
  function parsed(text: string) {
    const result = parseRepoConfigText(text, '.github/selfdebug.yml');
    if (!result.ok) throw new Error(result.message);
    return result.config;
  }

  it('waits an hour by default, as long as `wait_minutes` says, and never with `off`', () => {
    expect(ciVerdictWaitMs(parsed(''))).toBe(60 * 60_000);
    expect(ciVerdictWaitMs(parsed('ci_verdict:\n  wait_minutes: 5\n'))).toBe(5 * 60_000);
    expect(ciVerdictWaitMs(parsed('ci_verdict: off\n'))).toBeNull();
  });

  it('refuses a wait that is not a whole number of minutes, or an unknown key', () => {
    for (const text of [
      'ci_verdict:\n  wait_minutes: 0\n',
      'ci_verdict:\n  wait_minute: 5\n',
      'ci_verdict: on\n',
    ]) {
      const result = parseRepoConfigText(text, '.github/selfdebug.yml');
      expect(result.ok, text).toBe(false);
    }
  });
});

describe('decideCiVerdictNow (the Action, which cannot wait)', () => {
  it('fails at once on a failure, though another run still goes: nothing can turn it into a pass', () => {
    const runs = [run(1, 'Tests', 'completed', 'failure'), run(2, 'Slow', 'in_progress')];
    const verdict = decideCiVerdictNow(SHA, runs);
    expect(verdict).toMatchObject({ verdict: 'failed', sha: SHA, runs: 2 });
    expect(verdict?.workflows).toEqual([
      { name: 'Tests', url: 'https://github.com/o/r/actions/runs/1', conclusion: 'failure' },
    ]);
  });

  it('stays open while a run goes and none failed; passes once all are done', () => {
    expect(decideCiVerdictNow(SHA, [run(1, 'Slow', 'queued')])).toBeNull();
    expect(decideCiVerdictNow(SHA, [run(1, 'Tests', 'completed', 'success')])).toMatchObject({
      verdict: 'passed',
      runs: 1,
    });
  });

  it('is "no CI" when no run is listed, and unknown when a run was cancelled', () => {
    expect(decideCiVerdictNow(SHA, [])).toMatchObject({ verdict: 'unknown', reason: 'no-ci', runs: 0 });
    expect(decideCiVerdictNow(SHA, [run(1, 'Tests', 'completed', 'cancelled')])).toMatchObject({
      verdict: 'unknown',
      reason: 'cancelled',
    });
  });
});
