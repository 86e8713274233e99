import { describe, expect, it } from 'vitest';
import { planFixEnvironment } from '../../src/cli/fix-environment.js';
import { defaultRepoConfig } from '../../src/config/repo-config.js';
import { planEnvironment } from '../../src/environment/plan-environment.js';
import { NO_PREPARATION, type PreparationReport } from '../../src/sandbox/environment.js';
import type { ExecResult } from '../../src/sandbox/sandbox.js';
import { EnvironmentSetupError } from '../../src/sandbox/setup-error.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const failed: ExecResult = {
  exitCode: 127,
  end: 'exited',
  reason: null,
  stdout: '',
  stderr: 'bash: pnpm: command not found',
  output: 'bash: pnpm: command not found',
  truncated: false,
  durationMs: 10,
};

function failure(report: PreparationReport): string {
  return new EnvironmentSetupError({ command: 'pnpm install' }, failed, report).summary;
}

describe('a failed setup step names what the user can change', () => {
  const tempDir = useTempDirs();

  it('names the flags when `selfdebug fix` was given --setup and --image', async () => {
    const plan = await planFixEnvironment({
      options: { setup: ['pnpm install'], image: 'node:20', workflow: undefined },
      folder: { config: defaultRepoConfig, path: null, notes: [] },
      dir: await tempDir(),
      command: 'pnpm test',
      toolchainImages: {},
      allowedImages: ['*'],
    });
    const message = failure({ ...NO_PREPARATION, names: plan.request.names });
    expect(message).toContain('--setup');
    expect(message).toContain('--image');
    expect(message).not.toContain('selfdebug.yml');
    const refused = failure({
      ...NO_PREPARATION,
      names: plan.request.names,
      egress: [{ target: 'registry.example.test:443', allowed: false, reason: 'not allowed', bytes: 0 }],
    });
    expect(refused).toContain('--allow-host');
  });

  it("names the repository file's keys for the App", async () => {
    const plan = await planEnvironment(
      { setup: ['pnpm install'], sandbox: { allowed_hosts: [] } },
      null,
      await tempDir(),
      { derive: true, allowedImages: [] },
    );
    const message = failure({ ...NO_PREPARATION, names: plan.request.names });
    expect(message).toContain('`setup` in .github/selfdebug.yml');
    expect(message).toContain('sandbox.image in .github/selfdebug.yml');
    const refused = failure({
      ...NO_PREPARATION,
      egress: [{ target: 'registry.example.test:443', allowed: false, reason: 'not allowed', bytes: 0 }],
    });
    expect(refused).toContain('sandbox.allowed_hosts in .github/selfdebug.yml');
  });
});
