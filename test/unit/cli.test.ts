import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { parseArguments } from '../../src/cli/parse-arguments.js';
import { EngineUnreachableError, ImageNotFoundError } from '../../src/errors/sandbox-errors.js';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
const packageVersion: unknown = JSON.parse(readFileSync(`${projectRoot}package.json`, 'utf8')).version;

const PRIVATE_KEY = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;

/** Runs the CLI in-process and keeps what it printed; `doctor` sees a complete setup but for the sandbox check. */
async function runCaptured(argv: string[], checkSandbox?: () => Promise<void>) {
  let stdout = '';
  let stderr = '';
  const exitCode = await run(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { APP_ID: '1', PRIVATE_KEY, WEBHOOK_SECRET: 'secret', SELFDEBUG_QUEUE: 'memory' },
    doctorPorts: {
      pingSandbox: checkSandbox ?? (async () => {}),
      tryContainerSpec: async () => {},
      probeModel: async () => ({ name: 'model server', status: 'ok', detail: 'fake' }),
      pingRedis: async () => {},
      readFile: async () => '',
      checkWritable: async () => {},
      canLoad: () => true,
    },
  });
  return { exitCode, stdout, stderr };
}

describe('parseArguments', () => {
  it.each([[[]], [['help']], [['--help']], [['-h']], [['doctor', '--help']]])('reads %j as help', (argv) => {
    expect(parseArguments(argv)).toEqual({ kind: 'help' });
  });

  it.each([[['--version']], [['-v']], [['doctor', '--version']]])('reads %j as version', (argv) => {
    expect(parseArguments(argv)).toEqual({ kind: 'version' });
  });

  it('reads doctor', () => {
    expect(parseArguments(['doctor'])).toEqual({ kind: 'doctor' });
  });

  it('names the unknown command and the valid ones', () => {
    const request = parseArguments(['frobnicate']);
    expect(request.kind).toBe('usage-error');
    expect(request.kind === 'usage-error' && request.message).toBe(
      'Unknown command "frobnicate". Valid commands: help, doctor, fix, eval, worker, excerpt, config (options: --help, --version).',
    );
  });

  it.each([
    [['--frobnicate'], 'Unknown option "--frobnicate"'],
    [['-x', 'doctor'], 'Unknown option "-x"'],
    [['--help=yes'], 'Option "--help" takes no value'],
    [['doctor', 'now'], '"doctor" takes no arguments, got: now'],
    [['--', '--help'], 'Unknown command "--help"'],
  ])('rejects %j', (argv, message) => {
    const request = parseArguments(argv);
    expect(request).toMatchObject({ kind: 'usage-error' });
    expect(request.kind === 'usage-error' && request.message).toContain(message);
  });
});

describe('run', () => {
  it('prints the usage for help and exits 0', async () => {
    const result = await runCaptured(['--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^Usage: selfdebug <command>/);
    expect(result.stdout).toContain('doctor');
    expect(result.stderr).toBe('');
  });

  it('prints the version from package.json', async () => {
    expect(typeof packageVersion).toBe('string');
    const result = await runCaptured(['--version']);
    expect(result).toEqual({ exitCode: 0, stdout: `${packageVersion}\n`, stderr: '' });
  });

  it('exits 2 on an unknown command, naming the valid commands on stderr', async () => {
    const result = await runCaptured(['frobnicate']);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Unknown command "frobnicate"');
    expect(result.stderr).toContain('Valid commands: help, doctor, fix');
  });

  it('prints the table and exits 0 when every check passes', async () => {
    let checks = 0;
    const result = await runCaptured(['doctor'], async () => {
      checks += 1;
    });
    expect(checks).toBe(1);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^selfdebug doctor\n\n {2}✔ docker engine +answers\n/);
    expect(result.stdout).toMatch(/\nready\.\n$/);
    expect(result.stderr).toBe('');
  });

  it.each([
    new EngineUnreachableError('unix:///var/run/docker.sock'),
    new ImageNotFoundError('selfdebug-executor:latest'),
  ])('prints the message of $name as the fix and exits 1', async (error) => {
    const result = await runCaptured(['doctor'], () => Promise.reject(error));
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(`fix: ${error.message}`);
  });

  it('prints the message of an unexpected error too', async () => {
    const result = await runCaptured(['doctor'], () => Promise.reject(new Error('socket hang up')));
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('fix: socket hang up');
  });
});

describe('the selfdebug executable', () => {
  const execFileAsync = promisify(execFile);
  const runSource = (argv: string[]) =>
    execFileAsync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...argv], { cwd: projectRoot });

  it('runs when started directly on the source under tsx', async () => {
    const { stdout, stderr } = await runSource(['--version']);
    expect(stdout).toBe(`${packageVersion}\n`);
    expect(stderr).toBe('');
  });

  it('sets exit code 2 for an unknown command', async () => {
    await expect(runSource(['frobnicate'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Valid commands: help, doctor, fix'),
    });
  });
});

describe('selfdebug excerpt', () => {
  const directory = mkdtempSync(join(tmpdir(), 'selfdebug-excerpt-'));
  const logFile = join(directory, 'job.log');
  const stamp = (line: string) => `2024-05-01T10:00:00.0000000Z ${line}`;
  writeFileSync(
    logFile,
    [
      '##[group]Run pytest -q',
      'shell: /usr/bin/bash -e {0}',
      '##[endgroup]',
      ...Array.from({ length: 200 }, (_, index) => `collected item ${index}`),
      'FAILED tests/test_api.py::test_status - assert 500 == 200',
      '##[error]Process completed with exit code 1.',
    ]
      .map(stamp)
      .join('\n'),
  );

  async function excerpt(argv: string[], stdin?: string) {
    let stdout = '';
    let stderr = '';
    const exitCode = await run(['excerpt', ...argv], {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      ...(stdin === undefined
        ? {}
        : {
            stdin: (async function* () {
              yield Buffer.from(stdin);
            })(),
          }),
    });
    return { exitCode, stdout, stderr };
  }

  it('is parsed with its own arguments', () => {
    expect(parseArguments(['excerpt', 'job.log', '--json'])).toEqual({
      kind: 'excerpt',
      argv: ['job.log', '--json'],
    });
  });

  it('prints one JSON object with the failing step, exit code, numbered lines and truncation', async () => {
    const result = await excerpt([logFile, '--json']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const printed = JSON.parse(result.stdout);
    expect(Object.keys(printed)).toEqual(['failingStep', 'exitCode', 'lines', 'truncated']);
    expect(printed).toMatchObject({ failingStep: 'Run pytest -q', exitCode: 1, truncated: false });
    expect(printed.lines).toContainEqual({
      n: 204,
      text: 'FAILED tests/test_api.py::test_status - assert 500 == 200',
    });
  });

  it('reads standard input for "-" and prints numbered lines with the gaps marked', async () => {
    const log = `${Array.from({ length: 50 }, (_, index) => `line ${index + 1}`).join('\n')}\nerror: disk full\nbye\n`;
    const result = await excerpt(['-', '--max-lines', '3'], log);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('51 | error: disk full');
    expect(result.stdout).toMatch(/… \d+ lines omitted/);
  });

  it.each([
    [[], 'name a log file'],
    [['a.log', 'b.log'], 'expected one log file'],
    [['a.log', '--max-lines', '0'], '--max-lines takes a whole number'],
    [['a.log', '--max-lines', '2.5'], '--max-lines takes a whole number'],
    [['a.log', '--lines'], 'Unknown option'],
  ])('exits 2 on %j', async (argv, message) => {
    const result = await excerpt(argv);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('exits 1 when the log cannot be read, and prints its help', async () => {
    const missing = await excerpt([join(directory, 'missing.log')]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('no such file');
    const help = await excerpt(['--help']);
    expect(help).toMatchObject({ exitCode: 0, stderr: '' });
    expect(help.stdout).toContain('Usage: selfdebug excerpt <log-file | -> [--max-lines N] [--json]');
  });

  it('runs from the executable on a real job log', async () => {
    const log = fileURLToPath(new URL('../fixtures/gha-logs/gradle-2063953546/job.log', import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'excerpt', log, '--json', '--max-lines', '40'],
      { cwd: projectRoot },
    );
    const printed = JSON.parse(stdout);
    expect(printed.exitCode).toBe(1);
    expect(printed.lines.length).toBeLessThanOrEqual(40);
    expect(
      printed.lines.some((line: { text: string }) =>
        line.text.includes('DownloadExtensionTest > downloadSingleFileError() FAILED'),
      ),
    ).toBe(true);
  });
});
