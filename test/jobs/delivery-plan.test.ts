import { describe, expect, it } from 'vitest';
import { defaultRepoConfig } from '../../src/config/repo-config.js';
import {
  type DeliveryInput,
  jobTrailers,
  planDelivery,
  pullRequestText,
} from '../../src/jobs/delivery-plan.js';
import type { JobRequest } from '../../src/queue/job-request.js';
import { Redactor } from '../../src/report/index.js';
import { ROUND_TRAILER } from '../../src/workspace/selfdebug-branches.js';
import { jobRequest, mentionTrigger } from '../fakes/job-requests.js';
import { fixedRun } from '../report/fixtures/attempts.js';
import { REFLECTION } from '../report/fixtures/reflection.js';

const SECRET = 'ghs_plantoken0123456789abcdefghijklmnopq';

const MENTION = jobRequest({ id: 'job-1', trigger: mentionTrigger({ issueNumber: 12 }) });

function input(overrides: Partial<DeliveryInput> = {}, request: JobRequest = MENTION): DeliveryInput {
  return {
    loop: {
      outcome: 'fixed',
      changedFiles: ['app.py'],
      reflection: { ...REFLECTION, summary: 'define greeting' },
    },
    fixes: 'python3 app.py',
    trailers: jobTrailers(request),
    scripts: null,
    refused: [],
    partialFix: 'withhold',
    target: { workBranch: 'selfdebug/issue-12-job1', baseBranch: 'main', existingPull: null, reportTo: 12 },
    settings: defaultRepoConfig.pull_request,
    author: { name: 'selfdebug[bot]', email: 'bot@example.com' },
    redactor: new Redactor([SECRET]),
    ...overrides,
  };
}

describe('planDelivery', () => {
  it('pushes a passing fix to the work branch and opens a pull request for it', () => {
    const plan = planDelivery(input());
    expect(plan).toMatchObject({
      kind: 'push',
      branch: 'selfdebug/issue-12-job1',
      commit: { author: { name: 'selfdebug[bot]' }, files: ['app.py'] },
      pullRequest: {
        existing: null,
        titlePrefix: defaultRepoConfig.pull_request.title_prefix,
        base: 'main',
        draft: defaultRepoConfig.pull_request.draft,
        labels: [],
      },
    });
    expect(plan.kind === 'push' && plan.commit.message).toContain('define greeting');
    expect(plan.kind === 'push' && plan.commit.message).toContain('Selfdebug-Job: job-1');
    expect(plan.kind === 'push' && plan.commit.message).not.toContain(ROUND_TRAILER);
  });

  it('counts a failed run round in the commit, and commits on top of a known pull request', () => {
    const request = jobRequest({
      id: 'job-2',
      trigger: {
        kind: 'workflow-run',
        runId: 1,
        runAttempt: 1,
        workflowName: 'CI',
        workflowPath: '.github/workflows/ci.yml',
        branch: 'selfdebug/x',
        ownPullRequest: 44,
      },
    });
    const target = { workBranch: 'selfdebug/x', baseBranch: 'main', existingPull: 44, reportTo: 44 };
    const plan = planDelivery(input({ target }, request));
    expect(plan).toMatchObject({ kind: 'push', pullRequest: { existing: 44 } });
    expect(plan.kind === 'push' && plan.commit.message).toContain(ROUND_TRAILER);
  });

  it('delivers nothing when the loop did not fix it, unless the branch is pushed on failure (without a pull request)', () => {
    const failed = { outcome: 'not-fixed' as const, changedFiles: ['app.py'], reflection: null };
    expect(planDelivery(input({ loop: failed }))).toEqual({ kind: 'nothing', deliveryError: null });
    const settings = { ...defaultRepoConfig.pull_request, push_branch_on_failure: true };
    const plan = planDelivery(input({ loop: failed, settings }));
    expect(plan).toMatchObject({ kind: 'push', pullRequest: null, commit: { files: ['app.py'] } });
    expect(plan.kind === 'push' && plan.commit.message).toContain('fix python3 app.py');
  });

  it('pushes nothing when a file of the fix was left out by the copy-back, and says why', () => {
    const plan = planDelivery(input({ refused: [{ path: 'app.py', reason: 'a link' }] }));
    expect(plan).toEqual({
      kind: 'nothing',
      deliveryError: expect.stringContaining('app.py (a link)'),
    });
  });

  it('commits the files that came back when the fix may go out partly, as the Action does', () => {
    const loop = { outcome: 'fixed' as const, changedFiles: ['app.py', 'link.py'], reflection: null };
    const plan = planDelivery(
      input({ loop, refused: [{ path: 'link.py', reason: 'a link' }], partialFix: 'commit-the-rest' }),
    );
    expect(plan).toMatchObject({
      kind: 'push',
      commit: { files: ['app.py'] },
      pullRequest: { existing: null },
    });
  });

  it("posts an issue's fixed script as a redacted comment instead of pushing it", () => {
    const scripts = [{ path: 'selfdebug-scripts/issue-12-1.py', content: `print("${SECRET}")\n` }];
    const plan = planDelivery(input({ scripts }));
    expect(plan).toMatchObject({ kind: 'comment', issueNumber: 12 });
    expect(plan.kind === 'comment' && plan.body).toContain('```python');
    expect(plan.kind === 'comment' && plan.body).not.toContain(SECRET);
    const nowhere = { workBranch: 'selfdebug/x', baseBranch: 'main', existingPull: null, reportTo: null };
    expect(planDelivery(input({ scripts, target: nowhere }))).toEqual({
      kind: 'nothing',
      deliveryError: null,
    });
  });
});

describe('pullRequestText', () => {
  it('titles a new pull request with the prefix and ends its body with the footer, redacted', () => {
    const plan = planDelivery(input({ footer: `\n\nFixes the failure of ${SECRET}.\n` }));
    if (plan.kind !== 'push' || plan.pullRequest === null) throw new Error('expected a pull request');
    const text = pullRequestText(plan.pullRequest, fixedRun().view(), new Redactor([SECRET]));
    expect(text.title).toBe('selfdebug: Import the statistics module that stats.py uses');
    expect(text.body).toContain('### Root cause');
    expect(text.body.endsWith('\n\nFixes the failure of [REDACTED].\n')).toBe(true);
  });
});
