import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTION_TIMEOUT, readText, runSimulated, useActionWorld } from './harness.js';

const SETUP_TOKEN = 'npm-setup-token-7f3a9c2e';

describe("the Action and the runner's SELFDEBUG_SETUP_ENV_FILE", () => {
  const world = useActionWorld();

  it('never writes a setup value to the log, the job summary or the artifact', {
    timeout: ACTION_TIMEOUT,
  }, async () => {
    const { standin, repository, root, simulated } = await world.failedPushRun({
      prefix: 'selfdebug-action-setup-env-',
      // The command prints the value, as a tool that echoes its configuration would.
      inputs: { command: `echo "registry token ${SETUP_TOKEN}"; python3 stats.py` },
      extra: ({ root }) => ({ SELFDEBUG_SETUP_ENV_FILE: join(root, 'setup.env') }),
    });
    await writeFile(join(root, 'setup.env'), `NPM_TOKEN=${SETUP_TOKEN}\n`);

    const { code, log } = await runSimulated(simulated.env);

    expect(log).not.toContain('::error::');
    expect(code).toBe(0);
    const summary = await readText(simulated.summaryPath);
    expect(summary).toContain('registry token [REDACTED]');
    const artifact = join(simulated.runnerTemp, 'selfdebug');
    const written = [
      log,
      summary,
      await readFile(join(artifact, 'transcript.md'), 'utf8'),
      await readFile(join(artifact, 'selfdebug.patch'), 'utf8'),
      standin.pulls(repository.fullName)[0]?.body ?? '',
    ];
    for (const text of written) expect(text).not.toContain(SETUP_TOKEN);
    expect(standin.problems).toEqual([]);
  });
});
