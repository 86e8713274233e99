import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { access, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { generatedPackages, PackageIndex } from '../fakes/package-index.js';
import { describeWithDocker, removeStoreImages, TEST_IMAGE } from '../helpers/docker.js';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { useTempDirs } from '../helpers/temp-dir.js';

/**
 * `selfdebug fix` end to end: the real CLI as a child process (node + tsx on
 * the source), a real sandbox, a real broken Python script, and a fake
 * OpenAI-compatible server on 127.0.0.1, the only network target.
 */

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

const BROKEN_STATS =
  'from numbers_data import load_numbers\n\nvalues = load_numbers()\nprint(f"mean: {statistics.mean(values)}")\n';
// A second module, so Python writes __pycache__ in the sandbox: it must not come back into the folder.
const NUMBERS_DATA = 'def load_numbers():\n    return [1, 2, 3, 4]\n';
const FIXED_STATS = `import statistics\n${BROKEN_STATS}`;

const fixProposal = {
  analysis: 'stats.py calls statistics.mean but never imports the statistics module.',
  edits: [
    {
      path: 'stats.py',
      search: 'from numbers_data import load_numbers\n',
      replace: 'import statistics\nfrom numbers_data import load_numbers\n',
    },
  ],
};
const reflection = {
  summary: 'Imported the statistics module in stats.py',
  rootCause: 'statistics.mean was used without importing statistics',
  changes: 'Added `import statistics` at the top of stats.py',
  confidence: 'high',
  risks: [],
};

/** Only what a shell and the Docker client need: no API keys or model URLs of this machine leak in. */
/** The chat completions among a fake server's requests (the context-window questions left out). */
function chatRequests<Request extends { path: string }>(requests: Request[]): Request[] {
  return requests.filter((request) => request.path === '/v1/chat/completions');
}

function cleanEnvironment(extra: Record<string, string> = {}): Record<string, string> {
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
  // Fail fast instead of backing off if the fake server is ever asked something it has no answer for.
  return { ...env, SELFDEBUG_MODEL_MAX_RETRIES: '0', SELFDEBUG_MODEL_TIMEOUT_SECONDS: '20', ...extra };
}

/** The parts of a chat completion request the tests look at. */
interface ChatBody {
  response_format?: { type: string; json_schema?: { name: string } };
  tools?: { function: { name: string } }[];
  messages?: unknown[];
}

interface CliResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

interface StartedCli {
  child: ChildProcess;
  result: Promise<CliResult>;
  /** Resolves once stdout contains `text`. */
  waitForOutput(text: string): Promise<void>;
}

function startCli(args: string[], env: Record<string, string>): StartedCli {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'fix', ...args], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (const waiter of waiters.filter((entry) => stdout.includes(entry.text))) waiter.resolve();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const result = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode) => resolve({ exitCode, stdout, stderr }));
  });
  return {
    child,
    result,
    waitForOutput: (text) =>
      new Promise((resolve) => {
        if (stdout.includes(text)) resolve();
        else waiters.push({ text, resolve });
      }),
  };
}

function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return startCli(args, env).result;
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map(String).sort();
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('selfdebug fix (local sandbox)', () => {
  const tempDir = useTempDirs();
  let server: FakeOpenAIServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function brokenProject(): Promise<string> {
    const dir = await tempDir('selfdebug-e2e-project-');
    await writeFile(join(dir, 'stats.py'), BROKEN_STATS);
    await writeFile(join(dir, 'numbers_data.py'), NUMBERS_DATA);
    return dir;
  }

  it('fixes a broken script through an OpenAI-compatible server and writes back only the changed file', async () => {
    server = await startFakeOpenAIServer([{ json: fixProposal }, { json: reflection }]);
    const dir = await brokenProject();
    const result = await runCli(
      ['--command', 'python3 stats.py', '--dir', dir, '--sandbox', 'local', '--base-url', server.url],
      cleanEnvironment({ SELFDEBUG_MODEL_API_KEY: 'test-key' }),
    );

    expect(result.stderr).not.toContain('selfdebug fix:');
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(dir, 'stats.py'), 'utf8')).toBe(FIXED_STATS);
    expect(await readFile(join(dir, 'numbers_data.py'), 'utf8')).toBe(NUMBERS_DATA);
    expect(await listFiles(dir)).toEqual(['numbers_data.py', 'stats.py']);

    expect(result.stdout).toContain('reproduce: failing: exit 1');
    expect(result.stdout).toContain("NameError: name 'statistics' is not defined");
    expect(result.stdout).toContain('attempt 1 of 5');
    expect(result.stdout).toContain(`analysis: ${fixProposal.analysis}`);
    expect(result.stdout).toContain('    +import statistics');
    expect(result.stdout).toContain('    │ mean: 2.5');
    expect(result.stdout).toContain(`reflection: ${reflection.summary}`);
    expect(result.stdout).toMatch(/✔ fixed: the command passed on attempt 1 \(1 attempt, 240 tokens, /);
    expect(result.stdout).toContain(`Wrote the fix to ${dir}: stats.py.`);
    expect(result.stdout).not.toContain('\x1b[');

    expect(server.remaining).toBe(0);
    // Besides the two completions, the adapter asked for the context window (GET /v1/models,
    // /props, /api/show), which this plain fake does not know: the 16k default applies.
    const completions = chatRequests(server.requests);
    expect(completions).toHaveLength(2);
    const [generate, reflect] = completions.map((request) => request.body as ChatBody);
    for (const request of server.requests) expect(request.headers.authorization).toBe('Bearer test-key');
    // Tools and the structured answer never share a request; the valid JSON answer was taken as is.
    expect(generate?.response_format).toBeUndefined();
    expect(generate?.tools?.map((tool) => tool.function.name)).toContain('read_file');
    expect(JSON.stringify(generate?.messages)).toContain('python3 stats.py');
    expect(reflect?.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'reflection' },
    });
  });

  it('fixes it from a hand-written replay file, with no server and no API key', async () => {
    const dir = await brokenProject();
    const files = await tempDir('selfdebug-e2e-files-');
    const replay = join(files, 'session.json');
    await writeFile(
      replay,
      JSON.stringify({
        model: 'hand-written',
        responses: [
          { purpose: 'generate', toolCalls: [{ name: 'read_file', arguments: { path: 'stats.py' } }] },
          { purpose: 'generate', json: fixProposal },
          { purpose: 'reflect', json: reflection },
        ],
      }),
    );
    const result = await runCli(
      ['--command', 'python3 stats.py', '--dir', dir, '--sandbox', 'local', '--replay', replay],
      cleanEnvironment(),
    );

    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('with hand-written');
    expect(result.stdout).toContain('tool read_file path=stats.py');
    expect(await readFile(join(dir, 'stats.py'), 'utf8')).toBe(FIXED_STATS);
    expect(await listFiles(dir)).toEqual(['numbers_data.py', 'stats.py']);
  });

  it('takes the command and setup from the folder’s .github/selfdebug.yml, within the same ceilings as the App', async () => {
    const dir = await tempDir('selfdebug-e2e-project-');
    await writeFile(join(dir, 'stats.py'), BROKEN_STATS);
    await mkdir(join(dir, '.github'));
    await writeFile(
      join(dir, '.github', 'selfdebug.yml'),
      [
        'command: python3 stats.py',
        'setup:',
        // The setup writes a module the command imports: without it, the reproduction would fail differently.
        `  - python3 -c "open('numbers_data.py', 'w').write('''${NUMBERS_DATA.replaceAll('\n', '\\n')}''')"`,
        'sandbox:',
        '  network: host',
        '',
      ].join('\n'),
    );
    const replay = join(await tempDir('selfdebug-e2e-files-'), 'session.json');
    await writeFile(replay, JSON.stringify({ responses: [{ json: fixProposal }, { json: reflection }] }));
    const result = await runCli(['--dir', dir, '--sandbox', 'local', '--replay', replay], cleanEnvironment());

    expect(result.stderr).not.toContain('selfdebug fix:');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Read .github/selfdebug.yml.');
    expect(result.stdout).toContain('`sandbox.network: host` is not allowed');
    expect(result.stdout).toMatch(/setup: .*numbers_data\.py/);
    expect(result.stdout).toContain("NameError: name 'statistics' is not defined");
    expect(await readFile(join(dir, 'stats.py'), 'utf8')).toBe(FIXED_STATS);
    // What setup made stays in the sandbox: only the edited file comes back.
    expect(await listFiles(dir)).toEqual(['.github', '.github/selfdebug.yml', 'stats.py']);
  });

  it('exits 2 and names the line when the folder’s .github/selfdebug.yml is invalid', async () => {
    const dir = await tempDir('selfdebug-e2e-project-');
    await mkdir(join(dir, '.github'));
    await writeFile(join(dir, '.github', 'selfdebug.yml'), 'command: make\nmax_atempts: 3\n');
    const result = await runCli(
      ['--dir', dir, '--sandbox', 'local', '--replay', '/dev/null'],
      cleanEnvironment(),
    );

    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('.github/selfdebug.yml` is not valid');
    expect(result.stderr).toContain('max_atempts');
    expect(result.stderr).toContain('max_attempts');
    expect(result.stdout).toBe('');
  });

  it('records a session with --record that --replay plays back on a fresh copy', async () => {
    server = await startFakeOpenAIServer([{ json: fixProposal }, { json: reflection }]);
    const files = await tempDir('selfdebug-e2e-files-');
    const recording = join(files, 'recorded.json');
    const first = await runCli(
      [
        ...['--command', 'python3 stats.py', '--dir', await brokenProject(), '--sandbox', 'local'],
        ...['--base-url', server.url, '--record', recording],
      ],
      cleanEnvironment({ SELFDEBUG_MODEL_API_KEY: 'test-key' }),
    );
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain(`Recorded the model's answers in ${recording}`);
    const recorded = JSON.parse(await readFile(recording, 'utf8'));
    expect(recorded.responses.map((entry: { purpose: string }) => entry.purpose)).toEqual([
      'generate',
      'reflect',
    ]);

    const dir = await brokenProject();
    const second = await runCli(
      ['--command', 'python3 stats.py', '--dir', dir, '--sandbox', 'local', '--replay', recording],
      cleanEnvironment(),
    );
    expect(second.exitCode).toBe(0);
    expect(await readFile(join(dir, 'stats.py'), 'utf8')).toBe(FIXED_STATS);
    // Only the recording run reached the server (its two completions; the replay none).
    expect(chatRequests(server.requests)).toHaveLength(2);
  });

  it('writes a patch with --patch and leaves the folder untouched', async () => {
    server = await startFakeOpenAIServer([{ json: fixProposal }, { json: reflection }]);
    const dir = await brokenProject();
    const patch = join(await tempDir('selfdebug-e2e-files-'), 'out.diff');
    const result = await runCli(
      [
        ...['--command', 'python3 stats.py', '--dir', dir, '--sandbox', 'local'],
        ...['--base-url', server.url, '--patch', patch],
      ],
      cleanEnvironment({ SELFDEBUG_MODEL_API_KEY: 'test-key' }),
    );

    expect(result.exitCode).toBe(0);
    expect(await readFile(join(dir, 'stats.py'), 'utf8')).toBe(BROKEN_STATS);
    expect(await listFiles(dir)).toEqual(['numbers_data.py', 'stats.py']);
    const diff = await readFile(patch, 'utf8');
    expect(diff).toContain('--- a/stats.py\n+++ b/stats.py\n');
    expect(diff).toContain('+import statistics\n');
    expect(result.stdout).toContain(`Wrote the fix to ${patch}; apply it with \`git apply ${patch}\``);

    // The patch is usable as it stands: git applies it and the script then passes.
    await promisify(execFile)('git', ['apply', patch], { cwd: dir });
    expect(await readFile(join(dir, 'stats.py'), 'utf8')).toBe(FIXED_STATS);
  });

  it('exits 2 and names the key variables when a remote server has no API key', async () => {
    const dir = await brokenProject();
    const result = await runCli(
      [
        '--command',
        'python3 stats.py',
        '--dir',
        dir,
        '--sandbox',
        'local',
        '--base-url',
        'https://api.test.invalid/v1',
      ],
      cleanEnvironment(),
    );

    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('No API key for the model server at https://api.test.invalid/v1');
    expect(result.stderr).toContain('Set SELFDEBUG_MODEL_API_KEY or OPENAI_API_KEY');
    expect(result.stdout).toBe('');
    expect(await readFile(join(dir, 'stats.py'), 'utf8')).toBe(BROKEN_STATS);
  });

  it('exits 2 when the command is not found, as it does when a setup command is not found', async () => {
    const dir = await brokenProject();
    const result = await runCli(
      [
        ...['--command', 'selfdebug-no-such-tool --version', '--dir', dir, '--sandbox', 'local'],
        ...['--base-url', 'http://127.0.0.1:9/v1'],
      ],
      cleanEnvironment({ SELFDEBUG_MODEL_API_KEY: 'test-key' }),
    );
    expect(result.exitCode, result.stdout + result.stderr).toBe(2);
    expect(result.stdout).toMatch(/not found/);
  });

  it('exits 1 and leaves the folder untouched when the model declines to go on', async () => {
    const noFix = {
      analysis: 'Maybe the numbers are the problem.',
      edits: [{ path: 'numbers_data.py', search: '[1, 2, 3, 4]', replace: '[1, 2, 3, 4, 5]' }],
    };
    server = await startFakeOpenAIServer([
      { json: noFix },
      { json: { retry: false, reason: 'I cannot tell what is wrong; a person should look at it.' } },
      { json: { ...reflection, summary: 'Not fixed', confidence: 'low' } },
    ]);
    const dir = await brokenProject();
    const patch = join(await tempDir('selfdebug-e2e-files-'), 'out.diff');
    const result = await runCli(
      [
        ...['--command', 'python3 stats.py', '--dir', dir, '--sandbox', 'local'],
        ...['--base-url', server.url, '--patch', patch],
      ],
      cleanEnvironment({ SELFDEBUG_MODEL_API_KEY: 'test-key' }),
    );

    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('    +    return [1, 2, 3, 4, 5]');
    expect(result.stdout).toContain('  retry: no, I cannot tell what is wrong; a person should look at it.');
    expect(result.stdout).toContain('✖ declined: I cannot tell what is wrong');
    expect(result.stdout).toContain(`Left ${dir} untouched`);
    expect(result.stdout).toContain(`No patch written to ${patch}.`);
    expect(await readFile(join(dir, 'stats.py'), 'utf8')).toBe(BROKEN_STATS);
    expect(await readFile(join(dir, 'numbers_data.py'), 'utf8')).toBe(NUMBERS_DATA);
    expect(await listFiles(dir)).toEqual(['numbers_data.py', 'stats.py']);
    expect(await exists(patch)).toBe(false);
    expect(server.remaining).toBe(0);
  });

  it('exits 130 on Ctrl-C, stopping the command and leaving the folder untouched', async () => {
    const dir = await brokenProject();
    const replay = join(await tempDir('selfdebug-e2e-files-'), 'session.json');
    await writeFile(replay, JSON.stringify({ responses: [{ json: fixProposal }] }));
    // No limit ends the command within the test: only the stop can, so the run ending proves it did.
    const cli = startCli(
      ['--command', 'sleep 3600', '--dir', dir, '--sandbox', 'local', '--replay', replay],
      cleanEnvironment(),
    );
    await cli.waitForOutput('Fixing `sleep 3600`');
    cli.child.kill('SIGINT');
    const result = await cli.result;

    expect(result.exitCode).toBe(130);
    // Stopped during the reproduction, which only the stop could end: no attempt was reached.
    expect(result.stdout).toContain('✖ cancelled: the job was cancelled (0 attempts');
    expect(result.stderr).toContain('Cancelling: stopping the command and removing the sandbox');
    expect(result.stdout).toContain('✖ cancelled');
    expect(await listFiles(dir)).toEqual(['numbers_data.py', 'stats.py']);
    expect(await readFile(join(dir, 'stats.py'), 'utf8')).toBe(BROKEN_STATS);
  });

  it.each(['--patch', '--record'])(
    'exits 2 before the run when %s points into a folder that does not exist',
    async (flag) => {
      const dir = await brokenProject();
      const target = join(await tempDir('selfdebug-e2e-files-'), 'missing', 'out.file');
      const replay = join(await tempDir('selfdebug-e2e-files-'), 'session.json');
      await writeFile(replay, JSON.stringify({ responses: [{ json: fixProposal }, { json: reflection }] }));
      const result = await runCli(
        [
          '--command',
          'python3 stats.py',
          '--dir',
          dir,
          '--sandbox',
          'local',
          '--replay',
          replay,
          flag,
          target,
        ],
        cleanEnvironment(),
      );

      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(
        `selfdebug fix: ${flag} "${target}": the folder ${join(target, '..')} does not exist.`,
      );
      expect(result.stderr).toContain('mkdir -p');
      // Refused before anything ran.
      expect(result.stdout).toBe('');
      expect(await readFile(join(dir, 'stats.py'), 'utf8')).toBe(BROKEN_STATS);
    },
  );

  it('names the --sandbox flag in the UNSAFE banner when the flag chose the local sandbox', async () => {
    const replay = join(await tempDir('selfdebug-e2e-files-'), 'session.json');
    await writeFile(replay, JSON.stringify({ responses: [{ json: fixProposal }, { json: reflection }] }));
    const byFlag = await runCli(
      [
        '--command',
        'python3 stats.py',
        '--dir',
        await brokenProject(),
        '--sandbox',
        'local',
        '--replay',
        replay,
      ],
      cleanEnvironment(),
    );
    expect(byFlag.exitCode).toBe(0);
    expect(byFlag.stderr).toContain('UNSAFE');
    expect(byFlag.stderr).toContain('use --sandbox docker (the default) for anything else');
    expect(byFlag.stderr).not.toContain('SELFDEBUG_SANDBOX');

    const byVariable = await runCli(
      ['--command', 'python3 stats.py', '--dir', await brokenProject(), '--replay', replay],
      cleanEnvironment({ SELFDEBUG_SANDBOX: 'local' }),
    );
    expect(byVariable.exitCode).toBe(0);
    expect(byVariable.stderr).toContain('set SELFDEBUG_SANDBOX=docker for anything else');
  });

  it('exits 2 and names --base-url when nothing listens there', async () => {
    // A port that was just free: a server took it and let it go again.
    const closed = await startFakeOpenAIServer([]);
    const url = closed.url;
    await closed.close();
    const dir = await brokenProject();
    const result = await runCli(
      ['--command', 'python3 stats.py', '--dir', dir, '--sandbox', 'local', '--base-url', url],
      cleanEnvironment({ SELFDEBUG_MODEL_API_KEY: 'test-key' }),
    );

    expect(result.exitCode).toBe(2);
    expect(result.stdout).toMatch(
      /✖ error: Could not reach the model server at .* Check --base-url and that the server is running/,
    );
    expect(result.stdout).not.toContain('SELFDEBUG_MODEL_BASE_URL');
    expect(await readFile(join(dir, 'stats.py'), 'utf8')).toBe(BROKEN_STATS);
  });

  it('exits 2 and says what to do when the replay file is too short for the run', async () => {
    const dir = await brokenProject();
    const replay = join(await tempDir('selfdebug-e2e-files-'), 'session.json');
    // One look at the file, then the run needs the proposal the file does not hold.
    const look = { purpose: 'generate', toolCalls: [{ name: 'read_file', arguments: { path: 'stats.py' } }] };
    await writeFile(replay, JSON.stringify({ responses: [look] }));
    const result = await runCli(
      ['--command', 'python3 stats.py', '--dir', dir, '--sandbox', 'local', '--replay', replay],
      cleanEnvironment(),
    );

    expect(result.exitCode).toBe(2);
    expect(result.stdout).toContain(
      `The replay file ${replay} has 1 answer, but this run asked for answer 2 (generate): it went further than the recorded run.`,
    );
    expect(result.stdout).toContain('Record a new session with --record FILE');
    expect(result.stdout).not.toContain('ScriptedModel');
    expect(result.stdout).not.toContain('unexpected error');
  });

  it('exits 2 with what to do when the Docker engine cannot be reached', async () => {
    const dir = await brokenProject();
    const result = await runCli(
      ['--command', 'python3 stats.py', '--dir', dir, '--sandbox', 'docker'],
      cleanEnvironment({
        DOCKER_HOST: 'unix:///nonexistent/selfdebug-test.sock',
        SELFDEBUG_MODEL_API_KEY: 'test-key',
        // Never reached; set so that even a broken test could only ever talk to this machine.
        SELFDEBUG_MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
      }),
    );

    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      'Cannot reach the Docker engine at unix:///nonexistent/selfdebug-test.sock',
    );
    expect(result.stderr).toContain('for development without Docker set SELFDEBUG_SANDBOX=local');
  });
});

describeWithDocker('selfdebug fix (Docker sandbox)', () => {
  const tempDir = useTempDirs();
  let server: FakeOpenAIServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('fixes the broken script in a container and brings back only the changed file', async () => {
    server = await startFakeOpenAIServer([{ json: fixProposal }, { json: reflection }]);
    const dir = await tempDir('selfdebug-e2e-project-');
    await writeFile(join(dir, 'stats.py'), BROKEN_STATS);
    await writeFile(join(dir, 'numbers_data.py'), NUMBERS_DATA);
    const result = await runCli(
      [
        ...['--command', 'python3 stats.py', '--dir', dir, '--sandbox', 'docker', '--image', TEST_IMAGE],
        ...['--base-url', server.url, '--timeout', '60'],
      ],
      cleanEnvironment({ SELFDEBUG_MODEL_API_KEY: 'test-key' }),
    );

    expect(result.stderr).not.toContain('selfdebug fix:');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("NameError: name 'statistics' is not defined");
    expect(result.stdout).toContain('    +import statistics');
    expect(result.stdout).toContain('✔ fixed');
    expect(await readFile(join(dir, 'stats.py'), 'utf8')).toBe(FIXED_STATS);
    expect(await listFiles(dir)).toEqual(['numbers_data.py', 'stats.py']);
    expect(chatRequests(server.requests).map((request) => request.headers.authorization)).toEqual([
      'Bearer test-key',
      'Bearer test-key',
    ]);
  });

  it('installs the setup of .github/selfdebug.yml through the proxy, and reuses the prepared environment next time', async () => {
    // Listening on 127.0.0.2, which NO_PROXY does not cover: pip must go through the proxy to reach it.
    const index = await PackageIndex.start({ packages: generatedPackages(2), host: '127.0.0.2' });
    const cacheDir = await tempDir('selfdebug-e2e-cache-');
    try {
      const env = cleanEnvironment({
        SELFDEBUG_SANDBOX_IMAGE: TEST_IMAGE,
        SELFDEBUG_EGRESS_HOSTS: `127.0.0.2:${index.port}`,
        SELFDEBUG_EGRESS_TRUSTED_HOSTS: '127.0.0.2',
        SELFDEBUG_ENVIRONMENT_CACHE_DIR: cacheDir,
      });
      // The second run is in the same folder: a folder is the CLI's repository, whose entries it reuses.
      const project = async (existing?: string) => {
        const dir = existing ?? (await tempDir('selfdebug-e2e-project-'));
        await writeFile(join(dir, 'requirements.txt'), 'sdpkg-001\n');
        await writeFile(join(dir, 'app.py'), 'import sdpkg_001\n\nprint(sdpkg_001.helo())\n');
        await mkdir(join(dir, '.github'), { recursive: true });
        await writeFile(
          join(dir, '.github', 'selfdebug.yml'),
          [
            'command: .venv/bin/python app.py',
            'setup:',
            `  - python3 -m venv .venv && .venv/bin/pip install -q --no-cache-dir --disable-pip-version-check --trusted-host 127.0.0.2 --index-url ${index.url('127.0.0.2')} -r requirements.txt`,
            '',
          ].join('\n'),
        );
        const replay = join(dir, '..', `${Date.now()}-session.json`);
        await writeFile(
          replay,
          JSON.stringify({
            responses: [
              {
                json: {
                  analysis: 'app.py calls helo, but the package names the function hello.',
                  edits: [{ path: 'app.py', search: 'helo()', replace: 'hello()' }],
                },
              },
              { json: reflection },
            ],
          }),
        );
        return { dir, replay };
      };

      const first = await project();
      const cold = await runCli(['--dir', first.dir, '--replay', first.replay], env);
      expect(cold.stderr).not.toContain('selfdebug fix:');
      expect(cold.exitCode).toBe(0);
      expect(cold.stdout).toContain(`setup reached 1 host`);
      expect(cold.stdout).toMatch(/environment prepared and saved: key [0-9a-f]{12}/);
      expect(cold.stdout).toContain("AttributeError: module 'sdpkg_001' has no attribute 'helo'");
      expect(await readFile(join(first.dir, 'app.py'), 'utf8')).toContain('sdpkg_001.hello()');
      const key = /environment prepared and saved: key ([0-9a-f]{12})/.exec(cold.stdout)![1]!;
      const downloads = index.requests.filter((request) => request.path.startsWith('/files/')).length;
      expect(downloads).toBe(1);

      const second = await project(first.dir);
      const cached = await runCli(['--dir', second.dir, '--replay', second.replay], env);
      expect(cached.exitCode).toBe(0);
      expect(cached.stdout).toContain(`environment reused: key ${key}`);
      expect(cached.stdout).toContain('setup skipped');
      expect(index.requests.filter((request) => request.path.startsWith('/files/'))).toHaveLength(downloads);
      expect(await readFile(join(second.dir, 'app.py'), 'utf8')).toContain('sdpkg_001.hello()');
      expect(await listFiles(second.dir)).toEqual([
        '.github',
        '.github/selfdebug.yml',
        'app.py',
        'requirements.txt',
      ]);
    } finally {
      await index.close();
      await removeStoreImages(cacheDir);
    }
  }, 240_000);

  it('exits 2 with what to do when the image is missing', async () => {
    const dir = await tempDir('selfdebug-e2e-project-');
    await writeFile(join(dir, 'stats.py'), BROKEN_STATS);
    const result = await runCli(
      [
        '--command',
        'python3 stats.py',
        '--dir',
        dir,
        '--sandbox',
        'docker',
        '--image',
        // A registry on the loopback that nothing serves: the pull fails at once, and nothing leaves the machine.
        '127.0.0.1:9/selfdebug-absent:none',
      ],
      cleanEnvironment({
        SELFDEBUG_MODEL_API_KEY: 'test-key',
        SELFDEBUG_MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
      }),
    );

    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Pulling the sandbox image "127.0.0.1:9/selfdebug-absent:none" failed');
    expect(result.stderr).toContain('could not be reached');
  });
});
