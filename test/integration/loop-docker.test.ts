import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { expect, it } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { runLoop } from '../../src/loop/run-loop.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { withSandbox } from '../../src/sandbox/with-sandbox.js';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { eventsOf, fix, limits, reflect } from '../helpers/loop-fixtures.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const SCRIPT = `def mean(values):
    return statistics.mean(values)


if __name__ == "__main__":
    print(mean([1, 2, 3, 4]))
`;

describeWithDocker('the loop in the Docker sandbox', () => {
  const tempDir = useTempDirs();

  it('fixes a real broken Python script (missing import) and the fix comes back out', async () => {
    const workspace = await tempDir();
    await mkdir(join(workspace, 'src'));
    await writeFile(join(workspace, 'src/stats.py'), SCRIPT);
    const model = new ScriptedModel([
      ScriptedModel.toolCall('read_file', { path: 'src/stats.py' }),
      fix('statistics is used but never imported', [
        {
          path: 'src/stats.py',
          search: 'def mean(values):',
          replace: 'import statistics\n\n\ndef mean(values):',
        },
      ]),
      reflect(),
    ]);
    const provider = new DockerSandboxProvider(parseSandboxConfig({ image: TEST_IMAGE }), new Docker());
    const result = await withSandbox(provider, { jobId: 'loop-docker', workspace }, async (sandbox) => {
      const outcome = await runLoop({
        task: { description: 'src/stats.py crashes', command: 'python3 src/stats.py' },
        limits: limits(),
        model,
        sandbox,
      });
      await sandbox.copyOut(workspace);
      return outcome;
    });

    expect(result.outcome).toBe('fixed');
    const [reproduced] = eventsOf(result.events, 'reproduced');
    expect(reproduced?.runs[0]?.stderr).toContain("NameError: name 'statistics' is not defined");
    const [tool] = eventsOf(result.events, 'tool-called');
    expect(tool?.result).toContain('1\tdef mean(values):');
    const [executed] = eventsOf(result.events, 'executed');
    expect(executed?.result).toMatchObject({ exitCode: 0, stdout: '2.5\n' });
    expect(result.diff).toContain('+import statistics');
    expect(await readFile(join(workspace, 'src/stats.py'), 'utf8')).toMatch(/^import statistics\n/);
  });
});
