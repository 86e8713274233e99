import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * `selfdebug fix` as a child process (node + tsx on the source), for the
 * tests that need a real process: signals, exit codes, what reaches the
 * terminal. Only what a shell and the Docker client need is passed on, so
 * no key or model URL of this machine leaks in.
 */

const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface CliResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

export interface StartedCli {
  child: ChildProcess;
  result: Promise<CliResult>;
  /** Everything written so far, for a failure's context. */
  output(): string;
}

export function cleanEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [
    'PATH',
    'HOME',
    'LANG',
    'TZ',
    'TMPDIR',
    'DOCKER_HOST',
    'DOCKER_TLS_VERIFY',
    'DOCKER_CERT_PATH',
  ]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, SELFDEBUG_MODEL_MAX_RETRIES: '0', ...extra };
}

export function startFix(args: string[], env: Record<string, string>): StartedCli {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'fix', ...args], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const result = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode) => resolve({ exitCode, stdout, stderr }));
  });
  return { child, result, output: () => `stdout:\n${stdout}\nstderr:\n${stderr}` };
}
