import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { installationToken, standinOctokit } from '../fakes/github-standin/clients.js';
import { GitHubStandin } from '../fakes/github-standin/standin.js';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import {
  FAILED_STEPS,
  FIXED_STATS,
  fixProposal,
  PROJECT,
  readText,
  reflection,
  runSimulated,
  simulateRunner,
  writeFiles,
} from './harness.js';

describeWithDocker('the GitHub Action with sandbox: docker', () => {
  const tempDir = useTempDirs();
  let standin: GitHubStandin | undefined;
  let model: FakeOpenAIServer | undefined;

  afterEach(async () => {
    await model?.close();
    await standin?.close();
  });

  it('runs the commands in a container that sees none of the step environment, and opens a pull request', async () => {
    standin = await GitHubStandin.start();
    const repository = await standin.createRepository('octo-org', 'app', [PROJECT]);
    const token = await installationToken(standinOctokit(standin));
    model = await startFakeOpenAIServer([{ json: fixProposal }, { json: reflection }]);
    const sha = repository.commits[0]!;
    const run = standin.createWorkflowRun(repository.fullName, {
      workflowName: 'CI',
      path: '.github/workflows/ci.yml',
      headBranch: 'main',
      headSha: sha,
      jobs: [{ name: 'test', conclusion: 'failure', steps: FAILED_STEPS, log: 'failed\n' }],
    });
    const root = await tempDir('selfdebug-action-docker-');
    const workspace = join(root, 'workspace');
    await writeFiles(workspace, PROJECT);
    const simulated = await simulateRunner(root, standin, {
      repository: repository.fullName,
      workspace,
      eventName: 'push',
      event: { ref: 'refs/heads/main', sender: { login: 'alice', type: 'User' } },
      runId: run.id,
      sha,
      ref: 'refs/heads/main',
      inputs: {
        // `env` first: the transcript then shows what the container's environment holds.
        command: 'env; python3 stats.py',
        'api-key': 'test-key',
        'base-url': model.url,
        sandbox: 'docker',
        image: TEST_IMAGE,
        'github-token': token,
      },
    });

    const { code, log } = await runSimulated(simulated.env);

    expect(log).not.toContain('::error::');
    expect(log).not.toContain('UNSAFE');
    expect(code).toBe(0);
    const [pull] = standin.pulls(repository.fullName);
    expect(await standin.readFile(repository.fullName, pull!.head, 'stats.py')).toBe(FIXED_STATS);
    const summary = await readText(simulated.summaryPath);
    expect(summary).toContain('PATH=');
    for (const name of ['INPUT_', 'GITHUB_', 'RUNNER_', 'test-key', token])
      expect(summary).not.toContain(name);
    expect(standin.problems).toEqual([]);
  });
});
