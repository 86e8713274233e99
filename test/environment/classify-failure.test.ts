import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  classifyFailure,
  classifySetupFailure,
  describeProblem,
} from '../../src/environment/classify-failure.js';

const run = promisify(execFile);

/** Runs a command here and returns its real exit code and output, as the sandbox would record them. */
async function real(command: string): Promise<{ exitCode: number; output: string }> {
  try {
    const { stdout, stderr } = await run('bash', ['-c', command]);
    return { exitCode: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { exitCode: failed.code, output: failed.stdout + failed.stderr };
  }
}

const base = { command: 'x', setupCommands: [], image: 'selfdebug-executor:latest' };

describe('classifyFailure', () => {
  it('a missing toolchain names the image to choose', async () => {
    // What bash prints in an image without Node (the sandbox runs commands with bash -c).
    const output = 'bash: line 1: npm: command not found\n';
    const problem = classifyFailure({ ...base, command: 'npm test', exitCode: 127, output });
    expect(problem).toMatchObject({ kind: 'toolchain-missing', subject: 'npm' });
    expect(problem?.fix).toMatch(/sandbox\.image.*node:22-bookworm/);
    expect(describeProblem(problem!)).toMatch(/No model attempt was spent/);
  });

  it('another missing command says to install it in setup', async () => {
    const result = await real('shellcheck-not-installed-xyz scripts/build.sh');
    expect(result.exitCode).toBe(127);
    const problem = classifyFailure({ ...base, ...result });
    expect(problem).toMatchObject({ kind: 'command-not-found', subject: 'shellcheck-not-installed-xyz' });
    expect(problem?.fix).toMatch(/setup/);
  });

  it('a missing script of the project itself is the code’s business', async () => {
    const result = await real('./run-tests-xyz.sh');
    expect(classifyFailure({ ...base, ...result })).toBeNull();
  });

  it('a Python module the manifest lists but nothing installed', async () => {
    const result = await real('python3 -c "import yaml_not_installed_xyz"');
    const problem = classifyFailure({
      ...base,
      ...result,
      manifests: { 'requirements.txt': 'requests==2.32\nyaml-not-installed-xyz>=6\n' },
    });
    expect(problem).toMatchObject({ kind: 'module-missing', subject: 'yaml_not_installed_xyz' });
    expect(problem?.fix).toMatch(/setup/);
  });

  it('maps import names to their distributions (yaml → PyYAML)', () => {
    const problem = classifyFailure({
      ...base,
      exitCode: 1,
      output: "ModuleNotFoundError: No module named 'yaml'",
      manifests: { 'requirements.txt': 'PyYAML==6.0.1\n' },
    });
    expect(problem?.kind).toBe('module-missing');
  });

  it('a module nobody declared is a code problem', async () => {
    const result = await real('python3 -c "import helpers_typo_xyz"');
    expect(
      classifyFailure({ ...base, ...result, manifests: { 'requirements.txt': 'requests\n' } }),
    ).toBeNull();
  });

  it('a Node package listed in package.json but not installed', async () => {
    const result = await real(`node -e "require('left-pad-xyz')"`);
    const problem = classifyFailure({
      ...base,
      ...result,
      manifests: { 'package.json': '{"dependencies": {"left-pad-xyz": "^1.3.0"}}' },
    });
    expect(problem).toMatchObject({ kind: 'module-missing', subject: 'left-pad-xyz' });
  });

  it('a relative require is the code’s business', async () => {
    const result = await real(`node -e "require('./lib/missing')"`);
    expect(classifyFailure({ ...base, ...result, manifests: { 'package.json': '{}' } })).toBeNull();
  });

  it('a host refused during setup explains a network failure', () => {
    const problem = classifyFailure({
      ...base,
      exitCode: 1,
      output: 'urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>',
      refusedHosts: ['api.example.org:443'],
    });
    expect(problem).toMatchObject({ kind: 'host-refused', subject: 'api.example.org:443' });
    expect(problem?.fix).toMatch(/sandbox\.allowed_hosts/);
  });

  it('a failing assertion is a code failure', async () => {
    const result = await real(`python3 -c "assert 1 + 1 == 3, 'math'"`);
    expect(classifyFailure({ ...base, ...result })).toBeNull();
  });

  it('a failed setup step names the step, or the refused host', () => {
    expect(classifySetupFailure('npm ci', 1, 'npm ERR! code E404', [])).toMatchObject({
      kind: 'setup-failed',
    });
    expect(
      classifySetupFailure('npm ci', 1, 'npm ERR! 403 Forbidden - GET', ['npm.example.org:443']),
    ).toMatchObject({
      kind: 'host-refused',
    });
  });
});
