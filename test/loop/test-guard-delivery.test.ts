import { describe, expect, it } from 'vitest';
import { defaultRepoConfig } from '../../src/config/repo-config.js';
import { planDelivery } from '../../src/jobs/delivery-plan.js';
import { runLoop } from '../../src/loop/run-loop.js';
import { TESTS_EDITED_LABEL } from '../../src/loop/test-guard/findings.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { renderPullRequestBody } from '../../src/report/pull-request.js';
import { Redactor } from '../../src/report/redact.js';
import { decide, eventsOf, limits, reflect, useLocalSandboxes } from '../helpers/loop-fixtures.js';
import { CODE_FIX, WEAKENING_PROJECT, WEAKENING_TASK, WEAKENINGS } from '../helpers/weakening-project.js';
import { fixedRun } from '../report/fixtures/attempts.js';

/** A run whose scripted model loosens an assertion, then fixes the code, under the given policy. */
async function loosenThenFix(sandboxWith: ReturnType<typeof useLocalSandboxes>, tests: 'flag' | 'protect') {
  const sandbox = await sandboxWith(WEAKENING_PROJECT);
  const loosen = WEAKENINGS[0].answer;
  const answers =
    tests === 'flag' ? [loosen, decide(true, 'fix the code too'), CODE_FIX] : [loosen, CODE_FIX];
  const model = new ScriptedModel([...answers, reflect()]);
  return runLoop({ task: WEAKENING_TASK, limits: limits({ tests }), model, sandbox });
}

function delivered(result: Awaited<ReturnType<typeof loosenThenFix>>) {
  const run = fixedRun();
  const finished = run.events.findIndex((event) => event.type === 'finished');
  const [summary] = eventsOf(result.events, 'finished');
  run.events[finished] = { ...(run.events[finished] as object), ...summary } as (typeof run.events)[number];
  const plan = planDelivery({
    loop: result,
    fixes: WEAKENING_TASK.command,
    trailers: [],
    scripts: null,
    refused: [],
    partialFix: 'withhold',
    target: { workBranch: 'selfdebug/issue-1-job', baseBranch: 'main', existingPull: null, reportTo: 1 },
    settings: { ...defaultRepoConfig.pull_request, labels: ['bot'] },
    author: { name: 'selfdebug[bot]', email: 'bot@example.com' },
    redactor: Redactor.none,
  });
  return { body: renderPullRequestBody(run.view(), Redactor.none), plan };
}

describe('the test guard in the pull request', () => {
  const sandboxWith = useLocalSandboxes();

  it('under flag, delivers the weakening, lists it with its reason and labels the pull request', async () => {
    const result = await loosenThenFix(sandboxWith, 'flag');
    expect(result.outcome).toBe('fixed');
    expect(result.changedFiles.sort()).toEqual(['calc.py', 'tests/test_calc.py']);
    expect(result.testEdits?.findings.map((finding) => finding.kind)).toEqual(['assertion-loosened']);
    const { body, plan } = delivered(result);
    expect(body).toContain('### Tests and checks this fix changes');
    expect(body).toContain('- `tests/test_calc.py`: a pytest/unittest test file, changed');
    expect(body).toMatch(/tests: flag[\s\S]*tests\/test_calc\.py: an assertion was changed/);
    expect(plan.kind === 'push' && plan.pullRequest?.labels).toEqual(['bot', TESTS_EDITED_LABEL]);
  });

  it('under protect, delivers the code fix alone: no test listed, no label', async () => {
    const result = await loosenThenFix(sandboxWith, 'protect');
    expect(result.outcome).toBe('fixed');
    expect(result.changedFiles).toEqual(['calc.py']);
    expect(result.testEdits).toBeUndefined();
    const { body, plan } = delivered(result);
    expect(body).not.toContain('### Tests and checks this fix changes');
    expect(plan.kind === 'push' && plan.pullRequest?.labels).toEqual(['bot']);
  });
});
