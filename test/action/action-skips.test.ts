import { describe, expect, it } from 'vitest';
import {
  failedRun,
  inputsFor,
  PROJECT,
  pushBy,
  pushOwnFix,
  readText,
  runSimulated,
  simulateRunner,
  useActionWorld,
} from './harness.js';

/** Runs that stop before the loop: its own branch at max_rounds, an untrusted bot, a missing key. */
describe('the GitHub Action, when it has nothing to do or cannot start', () => {
  const world = useActionWorld();

  it('does nothing on its own branch once max_rounds automatic fixes are there', async () => {
    const configured = {
      ...PROJECT,
      '.github/selfdebug.yml': 'triggers:\n  workflow_runs:\n    max_rounds: 1\n',
    };
    const { standin, repository, token } = await world.repository([configured]);
    // One earlier round: a commit on the branch carrying the round trailer, pushed as the action pushes.
    const clone = await world.tempDir('selfdebug-clone-');
    const sha = await pushOwnFix(clone, repository, token);
    const model = await world.model([]);
    const run = failedRun(standin, repository.fullName, sha, { headBranch: 'selfdebug/run-1-1' });
    const root = await world.tempDir('selfdebug-action-');
    const simulated = await simulateRunner(root, standin, {
      repository: repository.fullName,
      workspace: clone,
      ...pushBy('selfdebug[bot]', 'selfdebug/run-1-1'),
      runId: run.id,
      sha,
      inputs: inputsFor(model, token),
    });

    const { code, log } = await runSimulated(simulated.env);

    expect(code).toBe(0);
    expect(log).toContain('already pushed 1 automatic fix on this branch (the limit is 1');
    expect(await readText(simulated.summaryPath)).toContain('it stops here so it can never loop');
    expect(model.requests).toEqual([]);
    expect(standin.pulls(repository.fullName)).toEqual([]);
  });

  it('skips a run started by a bot not listed in trusted-bots', async () => {
    const { standin, repository, token } = await world.repository();
    const model = await world.model([]);
    const root = await world.tempDir('selfdebug-action-');
    const simulated = await simulateRunner(root, standin, {
      repository: repository.fullName,
      workspace: root,
      ...pushBy('dependabot[bot]'),
      runId: 1,
      sha: repository.commits[0]!,
      inputs: inputsFor(model, token),
    });

    const { code, log } = await runSimulated(simulated.env);

    expect(code).toBe(0);
    expect(log).toContain('started by dependabot[bot], a bot not listed in the `trusted-bots` input');
    expect(model.requests).toEqual([]);
  });

  it('fails the step with an ::error:: line naming the input when the model key is missing', async () => {
    const root = await world.tempDir('selfdebug-action-');
    const { code, log } = await runSimulated({
      GITHUB_WORKSPACE: root,
      GITHUB_REPOSITORY: 'octo-org/app',
      'INPUT_GITHUB-TOKEN': 'ghs_token',
      'INPUT_API-KEY': '',
    });

    expect(code).toBe(1);
    expect(log).toBe(
      `::error::selfdebug: input \`api-key\`: the model API key is missing: set \`api-key: \${{ secrets.OPENAI_API_KEY }}\` ` +
        "(or the secret holding your key) in the step's `with:`",
    );
  });
});
