import { cp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { cleanEnvironment, startFix } from './support/cli-process.js';

/**
 * Setup you can see: `selfdebug fix` streams a setup step's output while it
 * runs, and a failed step's last lines and hosts reach the error; a step
 * the real egress proxy keeps refusing a registry for stops at once, naming
 * the host, instead of waiting out npm's retries.
 */

const replayAnswers = JSON.stringify({ responses: [{ json: { analysis: 'never asked', edits: [] } }] });

/** The npm this machine runs (a folder of JavaScript), copied into the project: the test image has none. */
async function npmFolder(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve('npm/package.json', {
    paths: [join(dirname(process.execPath), '..', 'lib', 'node_modules')],
  });
  return dirname(entry);
}

describeWithDocker('selfdebug fix: setup output and refused hosts', () => {
  const tempDir = useTempDirs();

  async function project(): Promise<{ dir: string; replay: string }> {
    const dir = await tempDir('selfdebug-e2e-setup-');
    await writeFile(join(dir, 'app.py'), 'print("hello")\n');
    const replay = join(await tempDir('selfdebug-e2e-files-'), 'session.json');
    await writeFile(replay, replayAnswers);
    return { dir, replay };
  }

  it('shows a failing step’s output on stdout as it runs, and its last lines in the error', async () => {
    const { dir, replay } = await project();
    const step = 'echo "resolving dependencies"; echo "E404 no such package: lef-pad" >&2; exit 3';
    const cli = startFix(
      [
        '--dir',
        dir,
        '--image',
        TEST_IMAGE,
        '--command',
        'python3 app.py',
        '--setup',
        step,
        '--replay',
        replay,
      ],
      cleanEnvironment({
        // The sidecars (namespace holder, forwarder) run from the operator's image, not the job's.
        SELFDEBUG_SANDBOX_IMAGE: TEST_IMAGE,
        SELFDEBUG_ENVIRONMENT_CACHE_DIR: await tempDir('selfdebug-e2e-cache-'),
      }),
    );
    const result = await cli.result;

    expect(result.exitCode, cli.output()).toBe(2);
    // Streamed while it ran, under the step's line.
    expect(result.stdout).toContain('  │ resolving dependencies');
    expect(result.stdout).toContain('  │ E404 no such package: lef-pad');
    expect(result.stdout).toContain('setup: exit code 3');
    // The error names the step and carries its last lines.
    expect(result.stderr).toContain('selfdebug fix: The setup step');
    expect(result.stderr).toContain('failed (exit code 3)');
    // The two streams of one step arrive in either order.
    const lines = result.stderr.slice(result.stderr.indexOf('Its last lines:'));
    expect(lines).toContain('  │ resolving dependencies');
    expect(lines).toContain('  │ E404 no such package: lef-pad');
  }, 300_000);

  it('stops `npm install` against a refused registry at once, naming the host and what to change', async () => {
    const { dir, replay } = await project();
    await writeFile(join(dir, 'package.json'), '{ "name": "demo", "version": "1.0.0" }\n');
    await cp(await npmFolder(), join(dir, '.npm-cli'), { recursive: true });
    // A name no allowlist holds: the real proxy refuses it before any lookup, as it would a registry it was not told of.
    const registry = 'https://packages.refused.test/';
    const step = `npm_config_registry=${registry} node .npm-cli/bin/npm-cli.js install --no-audit --no-fund left-pad is-odd is-even chalk debug`;
    const cli = startFix(
      [
        '--dir',
        dir,
        '--image',
        TEST_IMAGE,
        '--command',
        'python3 app.py',
        '--setup',
        step,
        '--replay',
        replay,
      ],
      cleanEnvironment({
        // The sidecars (namespace holder, forwarder) run from the operator's image, not the job's.
        SELFDEBUG_SANDBOX_IMAGE: TEST_IMAGE,
        SELFDEBUG_ENVIRONMENT_CACHE_DIR: await tempDir('selfdebug-e2e-cache-'),
      }),
    );
    const result = await cli.result;

    expect(result.exitCode, cli.output()).toBe(2);
    // The reason is the fast stop (the default limit of 5 refusals), not npm giving up or a timeout.
    expect(result.stdout).toContain('setup: stopped: packages.refused.test:443 refused 5 times');
    expect(result.stderr).toContain('the setup proxy refused packages.refused.test:443 5 times');
    expect(result.stderr).toContain('sandbox.allowed_hosts');
    expect(result.stderr).toContain('--allow-host packages.refused.test');
    expect(result.stderr).toContain('SELFDEBUG_EGRESS_HOSTS');
    expect(result.stderr).toContain('refused: packages.refused.test:443');
    expect(result.stderr).not.toMatch(/timed out/);
  }, 300_000);
});
