import { describe, expect, it } from 'vitest';
import {
  ACTION_TIMEOUT,
  failedRun,
  fixProposal,
  inputsFor,
  readText,
  reflection,
  runSimulated,
  simulateRunner,
  useActionWorld,
} from './harness.js';
import { BRANCH, otherRun, ownPullRequest, ownPushRunner, pullBody, verdictChecks } from './own-branch.js';

/**
 * The Action run again on its own pull request's CI (docs/ci-verdict.md, "The Action"): it records the
 * verdict of the commit it pushed on that pull request and as a check run, and never "fixes" a run
 * that passed; a failure is reported with its links before the round cap is asked.
 */
describe('the GitHub Action on its own branch', () => {
  const world = useActionWorld();

  it('records "passed" from a workflow_run workflow once, and never debugs the passing run', async () => {
    const { standin, repository, token, clone, sha, pull, model } = await ownPullRequest(world);
    const ci = otherRun(standin, sha, 'CI', 'success');
    otherRun(standin, sha, 'Lint', 'success');
    const main = repository.commits[0]!;
    // This workflow's own run is on the default branch's last commit, as GitHub runs workflow_run workflows.
    const own = standin.createWorkflowRun(repository.fullName, {
      workflowName: 'selfdebug',
      path: '.github/workflows/selfdebug.yml',
      headBranch: 'main',
      headSha: main,
      event: 'workflow_run',
      running: true,
      jobs: [{ name: 'debug', conclusion: 'success', steps: [], log: '' }],
    });
    const record = standin.repositoryRecord(repository.fullName);
    const event = {
      workflow_run: {
        id: ci.id,
        name: 'CI',
        head_branch: BRANCH,
        head_sha: sha,
        run_attempt: 1,
        conclusion: 'success',
        actor: { login: 'selfdebug-app[bot]', type: 'Bot' },
        repository: record,
        head_repository: record,
      },
      repository: record,
      sender: { login: 'selfdebug-app[bot]', type: 'Bot' },
    };
    const root = await world.tempDir('selfdebug-action-');
    const simulated = await simulateRunner(root, standin, {
      repository: repository.fullName,
      workspace: clone,
      eventName: 'workflow_run',
      event,
      ref: 'refs/heads/main',
      runId: own.id,
      sha: main,
      inputs: inputsFor(model, token),
    });

    const first = await runSimulated(simulated.env);
    const again = await runSimulated(simulated.env);

    expect(first.log).not.toContain('::');
    expect(first.code).toBe(0);
    expect(first.log).toContain(`selfdebug: Your CI passed on ${sha.slice(0, 7)}.`);
    expect(first.log).toContain('did not fail: nothing to fix');
    expect(again.code).toBe(0);
    expect(pullBody(standin)).toContain('The fix.\n\nFixes the failure of the run.');
    expect(pullBody(standin)).toContain(`✅ **Your CI passed** on \`${sha.slice(0, 7)}\` (2 workflow runs).`);
    // The second run found the same verdict in the body: nothing written twice.
    expect(verdictChecks(standin)).toEqual([
      expect.objectContaining({ headSha: sha, status: 'completed', conclusion: 'success' }),
    ]);
    expect(await readText(simulated.summaryPath)).toContain('**Your CI passed**');
    expect(model.requests).toEqual([]);
    expect(standin.pulls(repository.fullName)).toHaveLength(1);
    expect(pull.number).toBe(standin.pulls(repository.fullName)[0]!.number);
    expect(standin.problems).toEqual([]);
  });

  it('reports its own failed run with its link, then stops at the round cap instead of chaining', async () => {
    const own = await ownPullRequest(world, 'triggers:\n  workflow_runs:\n    max_rounds: 1\n');
    const { standin, sha } = own;
    // The job this step runs in failed at `python3 stats.py`; its run is still in progress.
    const ci = failedRun(standin, own.repository.fullName, sha, { headBranch: BRANCH, running: true });
    otherRun(standin, sha, 'Lint', 'success');
    const simulated = await ownPushRunner(world, own, ci.id);

    const { code, log } = await runSimulated(simulated.env);

    expect(code).toBe(0);
    const runUrl = `http://${standin.host}/octo-org/app/actions/runs/${ci.id}`;
    expect(log).toContain(`selfdebug: Your CI failed on ${sha.slice(0, 7)}: CI (${runUrl})`);
    expect(pullBody(standin)).toContain(`❌ **Your CI failed** on \`${sha.slice(0, 7)}\`: [CI](${runUrl}).`);
    expect(verdictChecks(standin)).toEqual([
      expect.objectContaining({ headSha: sha, conclusion: 'failure' }),
    ]);
    expect(log).toContain('already pushed 1 automatic fix on this branch (the limit is 1');
    expect(own.model.requests).toEqual([]);
    expect(standin.pulls(own.repository.fullName)).toHaveLength(1);
  });

  it('records a failure of its own run, then debugs it as the next round while max_rounds allows', {
    timeout: ACTION_TIMEOUT,
  }, async () => {
    const own = await ownPullRequest(world, '', [{ json: fixProposal }, { json: reflection }]);
    const { standin, sha } = own;
    const ci = failedRun(standin, own.repository.fullName, sha, { headBranch: BRANCH, running: true });
    const simulated = await ownPushRunner(world, own, ci.id);

    const { code, log } = await runSimulated(simulated.env);

    expect(code).toBe(0);
    expect(log).toContain(`selfdebug: Your CI failed on ${sha.slice(0, 7)}: CI (`);
    expect(pullBody(standin)).toContain('❌ **Your CI failed**');
    // Round 2: its own pull request into the branch of round 1, the verdict of round 1 left on round 1's.
    const pulls = standin.pulls(own.repository.fullName);
    expect(pulls).toHaveLength(2);
    expect(pulls[1]).toMatchObject({ head: `selfdebug/run-${ci.id}-1`, base: BRANCH });
    expect(pulls[1]!.body).not.toContain('Your CI');
    expect(await standin.readFile(own.repository.fullName, pulls[1]!.head, 'stats.py')).toContain(
      'import statistics\n',
    );
  });

  it('says "No CI" when its own run, still going and not failed, is the only one on the commit', async () => {
    const own = await ownPullRequest(world);
    const { standin, sha } = own;
    const ci = otherRun(standin, sha, 'CI', 'success', true);
    const simulated = await ownPushRunner(world, own, ci.id);

    const { code, log } = await runSimulated(simulated.env);

    expect(code).toBe(0);
    expect(log).toContain(`selfdebug: No CI on ${sha.slice(0, 7)}.`);
    expect(pullBody(standin)).toContain(`➖ **No CI** on \`${sha.slice(0, 7)}\``);
    expect(verdictChecks(standin)).toEqual([
      expect.objectContaining({ headSha: sha, conclusion: 'neutral' }),
    ]);
    expect(own.model.requests).toEqual([]);
  });
});
