import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ACTION_TIMEOUT,
  failedRun,
  inputsFor,
  pushBy,
  readText,
  runSimulated,
  simulateRunner,
  useActionWorld,
} from './harness.js';

const SETUP_TOKEN = 'npm-setup-token-7f3a9c2e';

describe("the Action and the runner's SELFDEBUG_SETUP_ENV_FILE", () => {
  const world = useActionWorld();

  it('never writes a setup value to the log, the job summary or the artifact', {
    timeout: ACTION_TIMEOUT,
  }, async () => {
    const { standin, repository, token } = await world.repository();
    const model = await world.model();
    const sha = repository.commits[0]!;
    const run = failedRun(standin, repository.fullName, sha);
    const { root, workspace } = await world.checkedOut('selfdebug-action-setup-env-');
    const envFile = join(root, 'setup.env');
    await writeFile(envFile, `NPM_TOKEN=${SETUP_TOKEN}\n`);
    const simulated = await simulateRunner(root, standin, {
      repository: repository.fullName,
      workspace,
      ...pushBy('alice'),
      runId: run.id,
      sha,
      // The command prints the value, as a tool that echoes its configuration would.
      inputs: inputsFor(model, token, { command: `echo "registry token ${SETUP_TOKEN}"; python3 stats.py` }),
      extra: { SELFDEBUG_SETUP_ENV_FILE: envFile },
    });

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
