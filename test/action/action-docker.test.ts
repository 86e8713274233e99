import { randomUUID } from 'node:crypto';
import { access, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { expect, it } from 'vitest';
import { describeWithDocker, imageWithoutSocat, removeStoreImages, TEST_IMAGE } from '../helpers/docker.js';
import {
  ACTION_TIMEOUT,
  FIXED_STATS,
  PROJECT,
  readText,
  runSimulated,
  useActionWorld,
  writeFiles,
} from './harness.js';

/** The runner's tool cache, and the bin folder of a tool actions/setup-* put there. */
const toolCacheOf = (root: string) => join(root, 'tool-cache');
const toolBinOf = (root: string) => join(toolCacheOf(root), 'faketool', '1.2.3', 'x64', 'bin');

describeWithDocker('the GitHub Action with sandbox: docker', () => {
  const world = useActionWorld();

  it('runs the commands in a container that sees the tool cache read-only and none of the step environment, and opens a pull request', {
    timeout: ACTION_TIMEOUT,
  }, async () => {
    const { standin, repository, token, root, simulated } = await world.failedPushRun({
      log: 'failed\n',
      prefix: 'selfdebug-action-docker-',
      inputs: ({ root }) => ({
        // `env` first: the transcript then shows what the container's environment holds; then the tool
        // from the tool cache, found on PATH, and a write into the tool cache, which must be refused.
        command: `env; faketool; touch ${toolCacheOf(root)}/written || echo "tool cache: no write"; python3 stats.py`,
        sandbox: 'docker',
        image: TEST_IMAGE,
      }),
      extra: ({ root, token }) => ({
        PATH: `${toolBinOf(root)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        RUNNER_TOOL_CACHE: toolCacheOf(root),
        GITHUB_TOKEN: token,
        OPENAI_API_KEY: 'test-key',
      }),
    });
    // A toolchain as actions/setup-* leaves it: in the tool cache, its bin folder on the job's PATH.
    const toolCache = toolCacheOf(root);
    const toolBin = toolBinOf(root);
    await writeFiles(toolBin, { faketool: '#!/bin/sh\necho "faketool 1.2.3 from the tool cache"\n' });
    await chmod(join(toolBin, 'faketool'), 0o755);

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

  it("runs setup with an `image` that has no socat: the forwarder runs from the runner's SELFDEBUG_SANDBOX_IMAGE", {
    timeout: ACTION_TIMEOUT,
  }, async () => {
    const jobImage = `selfdebug-test-nosocat:${randomUUID().slice(0, 8)}`;
    await imageWithoutSocat(jobImage);
    const files = { ...PROJECT, '.github/selfdebug.yml': 'setup:\n  - "! command -v socat"\n' };
    const { standin, repository, root, simulated } = await world.failedPushRun({
      commits: [files],
      prefix: 'selfdebug-action-nosocat-',
      files,
      inputs: { command: 'python3 stats.py', sandbox: 'docker', image: jobImage },
      extra: ({ root }) => ({
        SELFDEBUG_SANDBOX_IMAGE: TEST_IMAGE,
        SELFDEBUG_ENVIRONMENT_CACHE_DIR: join(root, 'environment-cache'),
      }),
    });
    const cacheDir = join(root, 'environment-cache');

    try {
      const { code, log } = await runSimulated(simulated.env);

      expect(log).not.toContain('::error::');
      expect(code).toBe(0);
      const [pull] = standin.pulls(repository.fullName);
      expect(await standin.readFile(repository.fullName, pull!.head, 'stats.py')).toBe(FIXED_STATS);
      expect(standin.problems).toEqual([]);
    } finally {
      await removeStoreImages(cacheDir);
      await new Docker()
        .getImage(jobImage)
        .remove({ force: true })
        .catch(() => {});
    }
  });
});
