import { describe, expect, it } from 'vitest';
import { inputsFor, readText, runSimulated, simulateRunner, useActionWorld } from './harness.js';
import { BRANCH, otherRun, ownPullRequest, ownPushRunner, pullBody, verdictChecks } from './own-branch.js';

/**
 * The Action on its own pull request's CI, continued: a pull_request run (whose commit is a merge
 * commit), a CI not finished yet, `ci_verdict: off`, and a workflow token without the permissions.
 */
describe('the GitHub Action on its own branch, by event and permission', () => {
  const world = useActionWorld();

  it('judges the head of its pull request in a pull_request run, not the merge commit, and says so there', async () => {
    const own = await ownPullRequest(world);
    const { standin, sha, pull } = own;
    const ci = otherRun(standin, sha, 'CI', 'success', true);
    otherRun(standin, sha, 'Lint', 'success');
    const merge = 'a'.repeat(40);
    const root = await world.tempDir('selfdebug-action-');
    const simulated = await simulateRunner(root, standin, {
      repository: own.repository.fullName,
      workspace: own.clone,
      eventName: 'pull_request',
      event: {
        number: pull.number,
        pull_request: { number: pull.number, head: { ref: BRANCH, sha }, base: { ref: 'main' } },
        sender: { login: 'selfdebug-app[bot]', type: 'Bot' },
      },
      ref: `refs/pull/${pull.number}/merge`,
      runId: ci.id,
      sha: merge,
      inputs: inputsFor(own.model, own.token),
      extra: { GITHUB_HEAD_REF: BRANCH },
    });

    const { code, log } = await runSimulated(simulated.env);

    expect(log).not.toContain('::');
    expect(code).toBe(0);
    expect(pullBody(standin)).toContain(`✅ **Your CI passed** on \`${sha.slice(0, 7)}\` (1 workflow run).`);
    expect(verdictChecks(standin)).toEqual([
      expect.objectContaining({ headSha: sha, conclusion: 'success' }),
    ]);
    expect(own.model.requests).toEqual([]);
  });

  it('writes nothing while another workflow still runs and nothing has failed, and debugs nothing', async () => {
    const own = await ownPullRequest(world);
    const { standin, sha } = own;
    const ci = otherRun(standin, sha, 'CI', 'success', true);
    otherRun(standin, sha, 'Lint', 'success', true);
    const simulated = await ownPushRunner(world, own, ci.id);

    const { code, log } = await runSimulated(simulated.env);

    expect(code).toBe(0);
    expect(log).toContain(`the CI on ${sha.slice(0, 7)} has not finished: nothing to fix`);
    expect(pullBody(standin)).not.toContain('Your CI');
    expect(verdictChecks(standin)).toEqual([]);
    expect(own.model.requests).toEqual([]);
  });

  it('with `ci_verdict: off`, keeps the verdict to the job summary and still never debugs a passing run', async () => {
    const own = await ownPullRequest(world, 'ci_verdict: off\n');
    const { standin, sha } = own;
    const ci = otherRun(standin, sha, 'CI', 'success', true);
    otherRun(standin, sha, 'Lint', 'success');
    const simulated = await ownPushRunner(world, own, ci.id);

    const { code, log } = await runSimulated(simulated.env);

    expect(code).toBe(0);
    expect(log).toContain('`ci_verdict: off` in .github/selfdebug.yml: the verdict is not written to GitHub');
    expect(await readText(simulated.summaryPath)).toContain('**Your CI passed**');
    expect(pullBody(standin)).not.toContain('Your CI');
    expect(verdictChecks(standin)).toEqual([]);
    expect(own.model.requests).toEqual([]);
  });

  it("names the permission the workflow's token lacks: a warning for the check run, the body still written", async () => {
    const own = await ownPullRequest(world);
    const { standin, sha } = own;
    const ci = otherRun(standin, sha, 'CI', 'success', true);
    otherRun(standin, sha, 'Lint', 'success');
    standin.withholdPermission('POST /repos/{owner}/{repo}/check-runs', 'checks=write');
    const simulated = await ownPushRunner(world, own, ci.id);

    const { code, log } = await runSimulated(simulated.env);

    expect(code).toBe(0);
    expect(log).toMatch(/::warning::selfdebug: could not write the CI verdict check run: .*checks: write/);
    expect(log).toContain('Add `permissions:` with `checks: write` to the workflow');
    expect(pullBody(standin)).toContain('**Your CI passed**');
    expect(verdictChecks(standin)).toEqual([]);
    expect(log).not.toContain(own.token);
  });

  it('fails the step naming `actions: read` when the token cannot list the runs', async () => {
    const own = await ownPullRequest(world);
    const { standin, sha } = own;
    const ci = otherRun(standin, sha, 'CI', 'success', true);
    standin.withholdPermission('GET /repos/{owner}/{repo}/actions/runs', 'actions=read');
    const simulated = await ownPushRunner(world, own, ci.id);

    const { code, log } = await runSimulated(simulated.env);

    expect(code).toBe(1);
    expect(log).toMatch(/::error::selfdebug: .*Add `permissions:` with `actions: read` to the workflow/);
    expect(pullBody(standin)).not.toContain('Your CI');
    expect(own.model.requests).toEqual([]);
  });
});
