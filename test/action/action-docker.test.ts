import { access, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { installationToken, standinOctokit } from '../fakes/github-standin/clients.js';
import { GitHubStandin } from '../fakes/github-standin/standin.js';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import {
  ACTION_TIMEOUT,
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

  it('runs the commands in a container that sees the tool cache read-only and none of the step environment, and opens a pull request', {
    timeout: ACTION_TIMEOUT,
  }, async () => {
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
    // A toolchain as actions/setup-* leaves it: in the tool cache, its bin folder on the job's PATH.
    const toolCache = join(root, 'tool-cache');
    const toolBin = join(toolCache, 'faketool', '1.2.3', 'x64', 'bin');
    await writeFiles(toolBin, { faketool: '#!/bin/sh\necho "faketool 1.2.3 from the tool cache"\n' });
    await chmod(join(toolBin, 'faketool'), 0o755);
    const simulated = await simulateRunner(root, standin, {
      repository: repository.fullName,
      workspace,
      eventName: 'push',
      event: { ref: 'refs/heads/main', sender: { login: 'alice', type: 'User' } },
      runId: run.id,
      sha,
      ref: 'refs/heads/main',
      inputs: {
        // `env` first: the transcript then shows what the container's environment holds; then the tool
        // from the tool cache, found on PATH, and a write into the tool cache, which must be refused.
        command: `env; faketool; touch ${toolCache}/written || echo "tool cache: no write"; python3 stats.py`,
        'api-key': 'test-key',
        'base-url': model.url,
        sandbox: 'docker',
        image: TEST_IMAGE,
        'github-token': token,
      },
      extra: {
        PATH: `${toolBin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        RUNNER_TOOL_CACHE: toolCache,
        GITHUB_TOKEN: token,
        OPENAI_API_KEY: 'test-key',
      },
    });

    const { code, log } = await runSimulated(simulated.env);

    expect(log).not.toContain('::error::');
    expect(log).not.toContain('UNSAFE');
    expect(code).toBe(0);
    const [pull] = standin.pulls(repository.fullName);
    expect(await standin.readFile(repository.fullName, pull!.head, 'stats.py')).toBe(FIXED_STATS);
    const summary = await readText(simulated.summaryPath);
    expect(summary).toContain(`PATH=${toolBin}:`);
    expect(summary).toContain('faketool 1.2.3 from the tool cache');
    expect(summary).toContain('tool cache: no write');
    await expect(access(join(toolCache, 'written'))).rejects.toThrow();
    for (const name of ['INPUT_', 'GITHUB_', 'RUNNER_', 'OPENAI_API_KEY', 'test-key', token])
      expect(summary).not.toContain(name);
    expect(standin.problems).toEqual([]);
  });
});
