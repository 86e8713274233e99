import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { expect, it } from 'vitest';
import { JOB_LABEL, MANAGED_LABEL } from '../../src/adapters/docker/labels.js';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';
import { cleanEnvironment, startFix } from './support/cli-process.js';

/**
 * A supervisor's SIGTERM and a closed terminal's SIGHUP stop `selfdebug fix`
 * as Ctrl-C does: the setup container, the namespace holder and the egress
 * forwarder all go, and the exit code is 128 + the signal's number.
 */

const docker = new Docker();

/** The job label of the setup container whose command carries `marker`, once one runs it. */
async function setupJobRunning(marker: string): Promise<string | null> {
  const containers = await docker.listContainers({ filters: { label: [MANAGED_LABEL] } });
  for (const summary of containers.filter((entry) => entry.Names.some((name) => name.endsWith('-setup')))) {
    const info = await docker
      .getContainer(summary.Id)
      .inspect()
      .catch(() => null);
    for (const execId of info?.ExecIDs ?? []) {
      const exec = await docker
        .getExec(execId)
        .inspect()
        .catch(() => null);
      const command = [exec?.ProcessConfig.entrypoint ?? '', ...(exec?.ProcessConfig.arguments ?? [])].join(
        ' ',
      );
      if (command.includes(marker)) return summary.Labels[JOB_LABEL] ?? null;
    }
  }
  return null;
}

async function containersOf(job: string): Promise<string[]> {
  const containers = await docker.listContainers({ all: true, filters: { label: [`${JOB_LABEL}=${job}`] } });
  return containers.flatMap((entry) => entry.Names);
}

describeWithDocker('selfdebug fix stopped by a signal', () => {
  const tempDir = useTempDirs();

  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)(
    '%s during setup removes every container of the run and exits %i',
    async (signal, code) => {
      const dir = await tempDir('selfdebug-e2e-signal-');
      await writeFile(join(dir, 'app.py'), 'print("hello")\n');
      const replay = join(await tempDir('selfdebug-e2e-files-'), 'session.json');
      // Never read: the run stops during setup, before the model is asked.
      await writeFile(replay, JSON.stringify({ responses: [{ json: { analysis: 'unused', edits: [] } }] }));
      const marker = `selfdebug-signal-${randomUUID()}`;
      const cli = startFix(
        [
          ...['--dir', dir, '--image', TEST_IMAGE, '--command', 'python3 app.py'],
          ...['--setup', `sleep 3600 # ${marker}`, '--replay', replay],
        ],
        cleanEnvironment({
          SELFDEBUG_SANDBOX_IMAGE: TEST_IMAGE,
          SELFDEBUG_ENVIRONMENT_CACHE_DIR: await tempDir('selfdebug-e2e-cache-'),
        }),
      );
      let job: string | null = null;
      await until(
        'the setup container to run the sleeping step',
        async () => {
          job = await setupJobRunning(marker);
          return job !== null;
        },
        { intervalMs: 250, context: cli.output },
      );
      // The setup container, the namespace holder and the forwarder all run now.
      expect((await containersOf(job!)).length).toBeGreaterThanOrEqual(3);

      cli.child.kill(signal);
      const result = await cli.result;

      expect(result.exitCode).toBe(code);
      expect(result.stderr).toContain('Cancelling: stopping the command and removing the sandbox');
      expect(await containersOf(job!)).toEqual([]);
    },
    300_000,
  );
});
