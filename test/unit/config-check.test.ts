import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run } from '../../src/cli/main.js';

const folder = mkdtempSync(join(tmpdir(), 'selfdebug-config-check-'));

function file(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

async function configCheck(argv: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await run(['config', ...argv], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env,
  });
  return { code, stdout, stderr };
}

/** The YAML after the comment lines: the effective configuration. */
function effective(stdout: string): Record<string, unknown> {
  return parse(stdout.slice(stdout.indexOf('# The effective configuration'))) as Record<string, unknown>;
}

describe('selfdebug config check', () => {
  it('prints the effective configuration of a valid file and exits 0', async () => {
    const path = file('valid.yml', 'command: npm test\nmax_attempts: 3\nsandbox:\n  memory_mb: 1024\n');
    const result = await configCheck(['check', path], { SELFDEBUG_SANDBOX_IMAGE: 'node:22' });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(new RegExp(`^✔ ${path} is valid\\.\\n`));
    const config = effective(result.stdout);
    expect(config).toMatchObject({
      command: 'npm test',
      max_attempts: 3,
      // The file's value, then the operator's for what it leaves out.
      sandbox: { memory_mb: 1024, image: 'node:22', network: 'none' },
      model: { name: 'gpt-4.1-mini' },
      triggers: { mentions: true, workflow_runs: { enabled: false, max_rounds: 3 } },
      pull_request: { draft: true },
    });
  });

  it("applies the operator's ceilings and says what each changed", async () => {
    const path = file('ceilings.yml', 'sandbox:\n  memory_mb: 65536\n  network: host\n');
    const result = await configCheck(['check', path], { SELFDEBUG_MAX_MEMORY_MB: '2048' });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Changed by this App's ceilings:");
    expect(result.stdout).toContain(
      'sandbox.memory_mb asks for 65536 MB, but this App allows at most 2048 MB',
    );
    expect(result.stdout).toContain('SELFDEBUG_ALLOW_HOST_NETWORK');
    expect(effective(result.stdout)).toMatchObject({ sandbox: { memory_mb: 2048, network: 'none' } });
  });

  it("reports an invalid value with the App's message and exits 2", async () => {
    const path = file('invalid.yml', 'max_atempts: 3\nsandbox:\n  memory_mb: lots\n');
    const result = await configCheck(['check', path]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`\`${path}\` is not valid, so selfdebug cannot use it`);
    expect(result.stderr).toContain('max_atempts');
    expect(result.stderr).toMatch(/Fix the value at each path above in `.*invalid\.yml` \(every key/);
    expect(result.stderr).not.toContain('on the default branch');
    expect(result.stderr).not.toContain('**');
  });

  it('prints problems as plain text, or as the App posts them with --format markdown', async () => {
    const path = file('fenced.yml', 'max_attempts: 99\n');
    const text = await configCheck(['check', path]);
    expect(text.code).toBe(2);
    expect(text.stderr).not.toMatch(/```|\*\*/);
    expect(text.stderr).toMatch(/\n {2}✖ /);
    const markdown = await configCheck(['check', path, '--format', 'markdown']);
    expect(markdown.stderr).toMatch(/```text\n✖ /);
    expect(markdown.stderr).toContain('**');
    const wrong = await configCheck(['check', '--format=html', path]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--format takes "text" or "markdown"');
  });

  it('reports a YAML syntax error with its line and exits 2', async () => {
    const path = file('syntax.yml', 'command: [npm test\n');
    const result = await configCheck(['check', path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not valid YAML');
    expect(result.stderr).toContain('Fix the line shown above');
  });

  it('reads ./.github/selfdebug.yml by default and says where to run it when it is missing', async () => {
    const repository = mkdtempSync(join(folder, 'repo-'));
    const previous = process.cwd();
    process.chdir(repository);
    try {
      const missing = await configCheck(['check']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(
        ".github/selfdebug.yml (ENOENT). Run this in the repository's top folder",
      );
    } finally {
      process.chdir(previous);
    }
  });

  it('reads the default file from the working directory', async () => {
    const repository = mkdtempSync(join(folder, 'repo-'));
    mkdirSync(join(repository, '.github'));
    writeFileSync(join(repository, '.github', 'selfdebug.yml'), 'command: make test\n');
    const previous = process.cwd();
    process.chdir(repository);
    try {
      const result = await configCheck(['check']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^✔ \.github\/selfdebug\.yml is valid\./);
    } finally {
      process.chdir(previous);
    }
  });

  it('names a bad operator setting and exits 2', async () => {
    const path = file('ok.yml', 'command: npm test\n');
    const result = await configCheck(['check', path], { SELFDEBUG_MAX_MEMORY_MB: 'lots' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('SELFDEBUG_MAX_MEMORY_MB');
  });

  it.each([
    [[], 'Missing "check".'],
    [['lint'], 'Unknown action "lint"'],
    [['check', '--strict'], 'Unknown option "--strict"'],
    [['check', 'a.yml', 'b.yml'], 'takes one FILE'],
  ])('refuses %j with usage and exit 2', async (argv, message) => {
    const result = await configCheck(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Usage: selfdebug config check [FILE]');
  });

  it('is listed in the help', async () => {
    let stdout = '';
    await run(['help'], {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: () => {} },
    });
    expect(stdout).toContain('config check [FILE]');
  });
});
