import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionSettings } from '../../src/action/action-settings.js';
import type { ActionInputs } from '../../src/action/inputs.js';
import { planFixEnvironment } from '../../src/cli/fix-environment.js';
import { loadSandboxConfig } from '../../src/config/load-config.js';
import { defaultRepoConfig } from '../../src/config/repo-config.js';
import { deriveEnvironment } from '../../src/environment/derive-environment.js';
import { planEnvironment } from '../../src/environment/plan-environment.js';
import { ConfigError } from '../../src/errors/config-errors.js';
import { buildTask } from '../../src/jobs/build-task.js';
import { FakeCodeHost } from '../fakes/fake-code-host.js';
import { jobRequest } from '../fakes/job-requests.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const WORKFLOW = `name: CI
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    services:
      redis:
        image: redis:7
        ports: ["6379:6379"]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - name: Install
        run: npm ci
      - run: npm run build
      - name: Test
        run: npm test
`;

const OPERATOR = {
  SELFDEBUG_TOOLCHAIN_IMAGES: 'node:20=ops.local/node:20-offline,python=ops.local/py:{version}',
};
const tableOf = (env: Record<string, string>) => loadSandboxConfig(env).toolchainImages;

describe('SELFDEBUG_TOOLCHAIN_IMAGES', () => {
  it('is parsed from TOOLCHAIN[:VERSION]=IMAGE entries and maps actions/setup-node with node-version 20', () => {
    const images = tableOf(OPERATOR);
    expect(images).toEqual({ 'node:20': 'ops.local/node:20-offline', python: 'ops.local/py:{version}' });
    const derived = deriveEnvironment({ workflow: WORKFLOW }, { job: 'test', step: 'Test' }, { images });
    expect(derived?.image).toBe('ops.local/node:20-offline');
    expect(derived?.imageReason).toContain('SELFDEBUG_TOOLCHAIN_IMAGES node:20');
    // A patch version falls back to its major's entry; an unmapped toolchain keeps the official image.
    const patch = WORKFLOW.replace('node-version: 20', 'node-version: 20.11.1');
    expect(deriveEnvironment({ workflow: patch }, { job: 'test', step: 'Test' }, { images })?.image).toBe(
      'ops.local/node:20-offline',
    );
    const other = WORKFLOW.replace('node-version: 20', 'node-version: 22');
    expect(deriveEnvironment({ workflow: other }, { job: 'test', step: 'Test' }, { images })?.image).toBe(
      'node:22-bookworm',
    );
  });

  it('is read by the App: a failed run derives the operator image', async () => {
    const host = failedRunHost();
    const prepared = await buildTask(failedRun(), host, { setup: [], toolchainImages: tableOf(OPERATOR) });
    expect(prepared.derived?.image).toBe('ops.local/node:20-offline');
  });

  it('is read by the Action, whose derivation of the failed job uses it', () => {
    const inputs = { 'api-key': 'k', 'github-token': 't', sandbox: 'docker' } as unknown as ActionInputs;
    const settings = actionSettings(inputs, defaultRepoConfig, () => {}, OPERATOR);
    expect(settings.sandbox.toolchainImages).toEqual(tableOf(OPERATOR));
    expect(() =>
      actionSettings(inputs, defaultRepoConfig, () => {}, { SELFDEBUG_TOOLCHAIN_IMAGES: 'x' }),
    ).toThrow(/SELFDEBUG_TOOLCHAIN_IMAGES/);
  });

  it.each([
    ['node20', /"node20" is not TOOLCHAIN\[:VERSION\]=IMAGE/],
    ['nodejs:20=x', /"nodejs:20" names no toolchain; use one of node, python/],
    ['node:20=', /is not TOOLCHAIN/],
  ])('refuses %s, naming the variable and the format', (value, message) => {
    const attempt = () => tableOf({ SELFDEBUG_TOOLCHAIN_IMAGES: value });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(message);
    expect(attempt).toThrow(/SELFDEBUG_TOOLCHAIN_IMAGES/);
  });
});

describe('sandbox.image with a derived environment', () => {
  const tempDir = useTempDirs();

  it('replaces only the image: the derived setup and services are kept', async () => {
    const dir = await tempDir();
    const derived = deriveEnvironment({ workflow: WORKFLOW }, { job: 'test', step: 'Test' });
    const config = { ...defaultRepoConfig, sandbox: { ...defaultRepoConfig.sandbox, image: 'mine:1' } };
    const plan = await planEnvironment(config, derived, dir, { derive: true, allowedImages: [] });
    expect(plan.request.image).toBe('mine:1');
    expect(plan.request.setup.map((step) => step.name)).toEqual(['Install', 'step 4']);
    expect(plan.request.services.map((service) => service.image)).toEqual(['redis:7']);
    expect(plan.request.notes?.[0]).toMatch(/node:20-bookworm; the image is mine:1 from sandbox.image/);
  });

  it('`setup` replaces only the steps: the derived image stays', async () => {
    const dir = await tempDir();
    const derived = deriveEnvironment({ workflow: WORKFLOW }, { job: 'test', step: 'Test' });
    const config = { ...defaultRepoConfig, setup: ['npm install'] };
    const plan = await planEnvironment(config, derived, dir, { derive: true, allowedImages: [] });
    expect(plan.request.image).toBe('node:20-bookworm');
    expect(plan.request.setup).toEqual([{ command: 'npm install' }]);
  });
});

describe('selfdebug fix --workflow', () => {
  const tempDir = useTempDirs();

  it('plans the same environment as the App for the same workflow file', async () => {
    const dir = await tempDir();
    const images = tableOf(OPERATOR);
    await mkdir(join(dir, '.github', 'workflows'), { recursive: true });
    await writeFile(join(dir, '.github', 'workflows', 'ci.yml'), WORKFLOW);
    await writeFile(join(dir, 'package-lock.json'), '{}\n');
    const prepared = await buildTask(failedRun(), failedRunHost(), { setup: [], toolchainImages: images });
    const app = await planEnvironment(defaultRepoConfig, prepared.derived, dir, {
      derive: true,
      allowedImages: [],
    });
    const cli = await planFixEnvironment({
      options: { setup: [], image: undefined, workflow: '.github/workflows/ci.yml:test' },
      folder: { config: defaultRepoConfig, path: null, notes: [] },
      dir: dir,
      command: 'npm test',
      toolchainImages: images,
      allowedImages: [],
    });
    // The same plan; only the advice's names differ (the CLI can also allow hosts with --allow-host).
    expect({ ...cli, request: { ...cli.request, names: undefined } }).toEqual({
      ...app,
      request: { ...app.request, names: undefined },
    });
    expect(cli.request.image).toBe('ops.local/node:20-offline');
    expect(cli.request.setup.map((step) => step.command)).toEqual([
      'set -eo pipefail\nnpm ci',
      'set -eo pipefail\nnpm run build',
    ]);
  });

  it('with --image keeps the derived setup and names the flag', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'ci'), { recursive: true });
    await writeFile(join(dir, 'ci', 'ci.yml'), WORKFLOW);
    const plan = await planFixEnvironment({
      options: { setup: [], image: 'selfdebug-executor:test', workflow: join(dir, 'ci', 'ci.yml') },
      folder: { config: defaultRepoConfig, path: null, notes: [] },
      dir: dir,
      command: 'npm test',
      toolchainImages: {},
      allowedImages: [],
    });
    expect(plan.request.image).toBe('selfdebug-executor:test');
    expect(plan.request.setup).toHaveLength(2);
    expect(plan.request.notes?.[0]).toContain('from --image, the derived setup is kept');
  });

  it('says which step it needs when no step runs the command', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'ci.yml'), WORKFLOW);
    const attempt = planFixEnvironment({
      options: { setup: [], image: undefined, workflow: 'ci.yml' },
      folder: { config: defaultRepoConfig, path: null, notes: [] },
      dir: dir,
      command: 'npm run lint',
      toolchainImages: {},
      allowedImages: [],
    });
    await expect(attempt).rejects.toThrow(/no step of job "test" runs `npm run lint`/);
  });
});

function failedRunHost(): FakeCodeHost {
  const host = new FakeCodeHost();
  host.files.set('.github/workflows/ci.yml', WORKFLOW);
  host.runs.set(1, [
    {
      id: 7,
      name: 'test',
      conclusion: 'failure',
      steps: [
        { number: 1, name: 'Set up job', conclusion: 'success' },
        { number: 2, name: 'Initialize containers', conclusion: 'success' },
        { number: 3, name: 'Run actions/checkout@v4', conclusion: 'success' },
        { number: 4, name: 'Run actions/setup-node@v4', conclusion: 'success' },
        { number: 5, name: 'Install', conclusion: 'success' },
        { number: 6, name: 'Run npm run build', conclusion: 'success' },
        { number: 7, name: 'Test', conclusion: 'failure' },
      ],
    },
  ]);
  host.logs.set(7, 'npm test\nFAIL test/index.test.js\n');
  return host;
}

function failedRun() {
  return jobRequest({
    headSha: 'd'.repeat(40),
    trigger: {
      kind: 'workflow-run',
      runId: 1,
      runAttempt: 1,
      workflowName: 'CI',
      workflowPath: '.github/workflows/ci.yml',
      branch: 'main',
      ownPullRequest: null,
    },
  });
}
