import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FixOptions, parseFixOptions, UsageError } from '../../src/cli/fix-options.js';
import { resolveSettings } from '../../src/cli/fix-settings.js';
import { run } from '../../src/cli/main.js';
import { parseArguments } from '../../src/cli/parse-arguments.js';
import type { FolderConfig } from '../../src/config/folder-config.js';
import { defaultRepoConfig, parseRepoConfigText } from '../../src/config/repo-config.js';
import { ConfigError } from '../../src/errors/index.js';
import { useTempDirs } from '../helpers/temp-dir.js';

function optionsOf(argv: string[]): FixOptions {
  const request = parseFixOptions(argv);
  if (request.kind !== 'run') throw new Error(`expected options, got ${request.kind}`);
  return request.options;
}

function usageErrorOf(argv: string[]): UsageError {
  try {
    parseFixOptions(argv);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(argv)} to be refused`);
}

/** Runs `selfdebug fix …` in-process with an empty environment, so nothing of this machine leaks in. */
async function runFixCaptured(argv: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const exitCode = await run(['fix', ...argv], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env,
  });
  return { exitCode, stdout, stderr };
}

describe('parseArguments hands fix its own arguments', () => {
  it('passes everything after "fix" through untouched', () => {
    expect(parseArguments(['fix', '--command', 'npm test', '--max-attempts', '3'])).toEqual({
      kind: 'fix',
      argv: ['--command', 'npm test', '--max-attempts', '3'],
    });
  });
});

describe('parseFixOptions', () => {
  it('fills in the defaults', () => {
    expect(optionsOf(['--command', 'python3 stats.py'])).toEqual({
      command: 'python3 stats.py',
      dir: '.',
      setup: [],
      description: undefined,
      sandbox: undefined,
      image: undefined,
      maxAttempts: undefined,
      timeoutSeconds: undefined,
      model: undefined,
      baseUrl: undefined,
      patch: undefined,
      replay: undefined,
      record: undefined,
      allowHosts: [],
      caCerts: undefined,
      setupEnvFile: undefined,
    });
  });

  it('reads every option, in both spellings, with --setup repeated in order', () => {
    const options = optionsOf([
      '--command=npm test',
      '--dir',
      'app',
      '--setup',
      'npm ci',
      '--setup=npm run build',
      '--description',
      'The totals are off by one',
      '--sandbox',
      'local',
      '--image',
      'node:22',
      '--max-attempts',
      '20',
      '--timeout',
      '2.5',
      '--model',
      'gpt-4.1',
      '--base-url',
      'http://127.0.0.1:11434/v1',
      '--patch',
      'fix.diff',
      '--replay',
      'session.json',
      '--record',
      'again.json',
      '--allow-host',
      'npm.mirror.test',
      '--allow-host',
      'git.mirror.test:8443',
      '--ca-certs',
      'ca.pem',
      '--setup-env-file',
      'setup.env',
    ]);
    expect(options).toEqual({
      command: 'npm test',
      dir: 'app',
      setup: ['npm ci', 'npm run build'],
      description: 'The totals are off by one',
      sandbox: 'local',
      image: 'node:22',
      maxAttempts: 20,
      timeoutSeconds: 2.5,
      model: 'gpt-4.1',
      baseUrl: 'http://127.0.0.1:11434/v1',
      patch: 'fix.diff',
      replay: 'session.json',
      record: 'again.json',
      allowHosts: ['npm.mirror.test', 'git.mirror.test:8443'],
      caCerts: 'ca.pem',
      setupEnvFile: 'setup.env',
    });
  });

  it('keeps a value that starts with a dash when it is not one of our options', () => {
    expect(optionsOf(['--command', '-x', '--description=--model is wrong'])).toMatchObject({
      command: '-x',
      description: '--model is wrong',
    });
  });

  it.each([[['--help']], [['-h']], [['--command', 'make', '--help']]])('reads %j as help', (argv) => {
    expect(parseFixOptions(argv)).toEqual({ kind: 'help' });
  });

  it.each([
    [['--command'], 'Option "--command" needs a value'],
    [
      ['--command', '--dir', 'x'],
      'Option "--command" needs a value, but the next word is the option "--dir"',
    ],
    [['--command', '  '], 'Option "--command" needs a non-empty value'],
    [['--command', 'make', '--frobnicate'], 'Unknown option "--frobnicate" for "fix"'],
    [['--command', 'make', '-x'], 'Unknown option "-x" for "fix"'],
    [['--command', 'make', '--help=yes'], 'Option "--help" takes no value'],
    [['--command', 'make', 'extra words'], '"fix" takes no arguments, got: extra words'],
    [['--command', 'a', '--command', 'b'], 'Option "--command" was given more than once'],
    [['--command', 'make', '--sandbox', 'vm'], '--sandbox must be "docker" or "local", got "vm"'],
    [['--command', 'make', '--max-attempts', '0'], '--max-attempts must be a whole number from 1 to 20'],
    [['--command', 'make', '--max-attempts', '21'], '--max-attempts must be a whole number from 1 to 20'],
    [['--command', 'make', '--max-attempts', '2.5'], '--max-attempts must be a whole number'],
    [['--command', 'make', '--max-attempts', 'many'], 'got "many"'],
    [['--command', 'make', '--timeout', '0'], '--timeout must be a number of seconds above 0'],
    [['--command', 'make', '--timeout', '1e3'], '--timeout must be a number of seconds'],
    [['--command', 'make', '--timeout', '90000'], 'at most 86400'],
    [['--command', 'make', '--base-url', 'localhost:11434'], '--base-url must be an http(s) URL'],
    [['--command', 'make', '--base-url', 'ftp://example.com/v1'], '--base-url must be an http(s) URL'],
  ])('refuses %j', (argv, message) => {
    const error = usageErrorOf(argv);
    expect(error.code).toBe('usage');
    expect(error.message).toContain(message);
    expect(error.message).toContain('Run "selfdebug fix --help" for the options.');
  });

  it('suggests quoting when the command was not given as one value', () => {
    expect(usageErrorOf(['--command', 'python3', 'main.py']).message).toContain(
      'Quote the command as one value: --command "python3 main.py"',
    );
  });
});

const NO_FILE: FolderConfig = { config: defaultRepoConfig, path: null, notes: [] };

function folderWith(yaml: string): FolderConfig {
  const parsed = parseRepoConfigText(yaml);
  if (!parsed.ok) throw new Error(parsed.message);
  return { config: parsed.config, path: '.github/selfdebug.yml', notes: [] };
}

describe('resolveSettings', () => {
  const base = optionsOf(['--command', 'make']);

  it('starts from the environment', () => {
    const settings = resolveSettings(
      base,
      {
        SELFDEBUG_SANDBOX: 'local',
        SELFDEBUG_SANDBOX_IMAGE: 'mine:1',
        SELFDEBUG_SANDBOX_TIMEOUT_SECONDS: '42',
        SELFDEBUG_MODEL: 'gpt-4.1',
        SELFDEBUG_MODEL_BASE_URL: 'http://127.0.0.1:8000/v1',
        SELFDEBUG_MODEL_PRICE_INPUT: '2',
        SELFDEBUG_MODEL_PRICE_OUTPUT: '8',
      },
      NO_FILE,
    );
    expect(settings.command).toBe('make');
    expect(settings.description).toBe('The command `make` fails.');
    expect(settings.sandbox).toMatchObject({ kind: 'local', image: 'mine:1', commandTimeoutSeconds: 42 });
    expect(settings.model).toMatchObject({ model: 'gpt-4.1', baseUrl: 'http://127.0.0.1:8000/v1' });
    expect(settings.limits).toMatchObject({ maxAttempts: 5, commandTimeoutSeconds: 42 });
    expect(settings.prices).toEqual({ inputPerMillion: 2, outputPerMillion: 8 });
  });

  it('lets the flags override the environment', () => {
    const options = optionsOf([
      '--command',
      'make',
      '--sandbox',
      'docker',
      '--image',
      'selfdebug-executor:test',
      '--timeout',
      '7',
      '--max-attempts',
      '2',
      '--model',
      'local-model',
      '--base-url',
      'http://127.0.0.1:11434/v1',
    ]);
    const settings = resolveSettings(
      options,
      {
        SELFDEBUG_SANDBOX: 'local',
        SELFDEBUG_SANDBOX_IMAGE: 'mine:1',
        SELFDEBUG_SANDBOX_TIMEOUT_SECONDS: '42',
        SELFDEBUG_MODEL: 'gpt-4.1',
        OPENAI_BASE_URL: 'https://api.openai.com/v1',
      },
      NO_FILE,
    );
    expect(settings.sandbox).toMatchObject({
      kind: 'docker',
      image: 'selfdebug-executor:test',
      commandTimeoutSeconds: 7,
    });
    expect(settings.limits).toMatchObject({ maxAttempts: 2, commandTimeoutSeconds: 7 });
    expect(settings.model).toMatchObject({ model: 'local-model', baseUrl: 'http://127.0.0.1:11434/v1' });
    expect(settings.prices).toEqual({ inputPerMillion: 0, outputPerMillion: 0 });
  });

  it('names the variable behind a bad environment value', () => {
    expect(() => resolveSettings(base, { SELFDEBUG_SANDBOX_MEMORY_MB: 'lots' }, NO_FILE)).toThrow(
      ConfigError,
    );
    expect(() => resolveSettings(base, { SELFDEBUG_SANDBOX_MEMORY_MB: 'lots' }, NO_FILE)).toThrow(
      'SELFDEBUG_SANDBOX_MEMORY_MB',
    );
  });

  const file = folderWith(
    [
      'command: python3 -m pytest -q',
      'max_attempts: 3',
      'sandbox:',
      '  image: python:3.12-bookworm',
      '  timeout_seconds: 30',
      '  memory_mb: 1024',
      'model:',
      '  name: file-model',
      '',
    ].join('\n'),
  );

  it('takes the command, image, limits and model from the folder’s .github/selfdebug.yml over the environment', () => {
    const settings = resolveSettings(
      optionsOf([]),
      {
        SELFDEBUG_SANDBOX_IMAGE: 'mine:1',
        SELFDEBUG_MODEL: 'gpt-4.1',
        SELFDEBUG_SANDBOX_TIMEOUT_SECONDS: '42',
      },
      file,
    );
    expect(settings.command).toBe('python3 -m pytest -q');
    expect(settings.description).toBe('The command `python3 -m pytest -q` fails.');
    expect(settings.sandbox).toMatchObject({
      image: 'python:3.12-bookworm',
      memoryMb: 1024,
      commandTimeoutSeconds: 30,
    });
    expect(settings.limits).toMatchObject({ maxAttempts: 3, commandTimeoutSeconds: 30 });
    expect(settings.model.model).toBe('file-model');
  });

  it('lets the flags override the folder’s file', () => {
    const options = optionsOf([
      '--command',
      'make',
      '--image',
      'flag:1',
      '--max-attempts',
      '4',
      '--timeout',
      '9',
    ]);
    const settings = resolveSettings(options, {}, file);
    expect(settings.command).toBe('make');
    expect(settings.sandbox).toMatchObject({ image: 'flag:1', commandTimeoutSeconds: 9 });
    expect(settings.limits).toMatchObject({ maxAttempts: 4, commandTimeoutSeconds: 9 });
  });

  it('asks for a command when neither the flags nor the file give one', () => {
    expect(() => resolveSettings(optionsOf([]), {}, NO_FILE)).toThrow(UsageError);
    expect(() => resolveSettings(optionsOf([]), {}, NO_FILE)).toThrow(
      /Missing --command: .*or set `command` in \.github\/selfdebug\.yml/,
    );
  });
});

describe('selfdebug fix: problems found before anything runs exit 2', () => {
  const tempDir = useTempDirs();

  it('prints its own help and exits 0', async () => {
    const result = await runFixCaptured(['--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^Usage: selfdebug fix \[--command "<cmd>"\]/);
    expect(result.stdout).toContain('--max-attempts N');
    expect(result.stderr).toBe('');
  });

  it('names the usage problem and where to read about the options', async () => {
    const result = await runFixCaptured(['--command', 'make', '--max-attempts', 'lots']);
    expect(result).toEqual({
      exitCode: 2,
      stdout: '',
      stderr:
        'selfdebug fix: --max-attempts must be a whole number from 1 to 20, got "lots".\n' +
        'Run "selfdebug fix --help" for the options.\n',
    });
  });

  it('refuses a --dir that is not a folder', async () => {
    const result = await runFixCaptured(['--command', 'make', '--dir', '/nonexistent/selfdebug-test']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--dir "/nonexistent/selfdebug-test" is not a folder');
  });

  it('names the variables to set when no API key is configured for a remote server', async () => {
    const dir = await tempDir();
    const result = await runFixCaptured([
      '--command',
      'make',
      '--dir',
      dir,
      '--sandbox',
      'local',
      '--base-url',
      'https://api.test.invalid/v1',
    ]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Set SELFDEBUG_MODEL_API_KEY or OPENAI_API_KEY');
    expect(result.stdout).toBe('');
  });

  it('names the environment variable with a bad value', async () => {
    const dir = await tempDir();
    const result = await runFixCaptured(['--command', 'make', '--dir', dir], {
      SELFDEBUG_MODEL_TEMPERATURE: 'warm',
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('SELFDEBUG_MODEL_TEMPERATURE: "warm" is not a number');
    expect(result.stderr).toContain('Fix the values above and try again.');
  });

  it('says which replay file cannot be read', async () => {
    const dir = await tempDir();
    const missing = join(dir, 'missing.json');
    const result = await runFixCaptured(['--command', 'make', '--dir', dir, '--replay', missing]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`Cannot read the replay file ${missing} (ENOENT)`);
    expect(result.stderr).toContain('Check the path given to --replay.');
  });

  it('explains what is wrong with an invalid replay file', async () => {
    const dir = await tempDir();
    const replay = join(dir, 'replay.json');
    await writeFile(replay, JSON.stringify({ responses: [] }));
    const result = await runFixCaptured(['--command', 'make', '--dir', dir, '--replay', replay]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`Invalid configuration in the replay file ${replay}`);
    expect(result.stderr).toContain('responses');
  });
});
