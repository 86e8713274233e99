import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { appConfigSchema } from '../../src/config/app-config.js';
import { modelConfigSchema } from '../../src/config/model-config.js';
import {
  applyOperatorCeilings,
  defaultRepoConfig,
  handlerConfig,
  loopLimitsFrom,
  modelOverrides,
  parseRepoConfig,
  parseRepoConfigText,
  type RepoConfig,
  repoConfigJsonSchema,
  repoConfigJsonSchemaText,
  sandboxOverrides,
} from '../../src/config/repo-config.js';
import { REPO_CONFIG_SCHEMA_FILE } from '../../src/config/repo-config-json-schema.js';
import { closestKey } from '../../src/config/repo-config-keys.js';
import { sandboxConfigSchema } from '../../src/config/sandbox-config.js';
import { loopLimitsSchema } from '../../src/loop/task.js';

const FULL_YAML = `
command: python3 -m pytest -x tests/
setup:
  - pip install -r requirements.txt
sandbox:
  image: python:3.12-slim
  memory_mb: 4096
  cpus: 2
  pids_limit: 1024
  timeout_seconds: 900
  network: host
  allowed_hosts: [npm.pkg.github.com, "*.example.org:8443"]
max_attempts: 8
budget:
  max_tokens: 400000
  max_cost_usd: 2.5
  max_minutes: 30
model:
  name: gpt-4.1
  base_url: https://api.openai.com/v1
  temperature: 0.1
triggers:
  mentions: false
  reviews: true
  workflow_runs:
    enabled: true
    workflows: [CI, .github/workflows/nightly-*.yml]
    branches: [main, release/**]
    max_rounds: 2
pull_request:
  draft: false
  labels: [selfdebug]
  push_branch_on_failure: true
  title_prefix: "fix(selfdebug): "
tests: flag
protected_paths: [tests/golden/**]
allowed_users: [octocat, "@hubot"]
ci_verdict:
  wait_minutes: 30
secret_env: [NPM_TOKEN]
`;

function valid(raw: unknown): RepoConfig {
  const result = parseRepoConfig(raw);
  if (!result.ok) throw new Error(`expected a valid config, got:\n${result.message}`);
  return result.config;
}

function invalid(raw: unknown): string {
  const result = parseRepoConfig(raw);
  if (result.ok) throw new Error('expected the config to be rejected');
  return result.message;
}

const appConfig = appConfigSchema.parse({});

describe('parseRepoConfig', () => {
  it('gives every default when there is no file', () => {
    const expected = {
      setup: [],
      sandbox: { allowed_hosts: [], cache_key_files: [] },
      max_attempts: 5,
      budget: { max_tokens: 0, max_cost_usd: 0, max_minutes: 0 },
      model: {},
      triggers: {
        mentions: true,
        reviews: true,
        workflow_runs: { enabled: false, workflows: [], branches: [], max_rounds: 3 },
      },
      pull_request: { draft: true, labels: [], push_branch_on_failure: false, title_prefix: 'selfdebug: ' },
      report: { comments: 'per-attempt' },
      allowed_users: [],
      ci_verdict: { wait_minutes: 60 },
      secret_env: [],
    };
    expect(valid(null)).toEqual(expected);
    expect(valid(undefined)).toEqual(expected);
    expect(valid({})).toEqual(expected);
    expect(defaultRepoConfig).toEqual(expected);
    expect(Object.isFrozen(defaultRepoConfig.triggers.workflow_runs.workflows)).toBe(true);
  });

  it('takes report.comments: single, and names the allowed values of anything else', () => {
    expect(valid({ report: { comments: 'single' } }).report).toEqual({ comments: 'single' });
    const result = parseRepoConfig({ report: { comments: 'one' } });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toContain('"per-attempt"');
      expect(result.message).toContain('"single"');
      expect(result.message).toContain('→ at report.comments');
    }
  });

  it('fills the rest of a section when only one key is given', () => {
    const config = valid({ triggers: { workflow_runs: { enabled: true } }, sandbox: { memory_mb: 512 } });
    expect(config.triggers).toEqual({
      mentions: true,
      reviews: true,
      workflow_runs: { enabled: true, workflows: [], branches: [], max_rounds: 3 },
    });
    expect(config.sandbox).toEqual({ memory_mb: 512, allowed_hosts: [], cache_key_files: [] });
  });

  it('accepts a full file parsed with yaml', () => {
    const config = valid(parseYaml(FULL_YAML));
    expect(config.command).toBe('python3 -m pytest -x tests/');
    expect(config.sandbox).toEqual({
      image: 'python:3.12-slim',
      memory_mb: 4096,
      cpus: 2,
      pids_limit: 1024,
      timeout_seconds: 900,
      network: 'host',
      allowed_hosts: ['npm.pkg.github.com', '*.example.org:8443'],
      cache_key_files: [],
    });
    expect(config.triggers.workflow_runs.workflows).toEqual(['CI', '.github/workflows/nightly-*.yml']);
    expect(config.pull_request.title_prefix).toBe('fix(selfdebug): ');
    expect(config.allowed_users).toEqual(['octocat', 'hubot']);
  });

  it('names the path and the limit of a value out of range, in a Markdown message naming the file', () => {
    const message = invalid({ max_attempts: 50 });
    expect(message).toContain('`.github/selfdebug.yml`');
    expect(message).toContain('→ at max_attempts');
    expect(message).toContain('<=20');
    expect(message).toMatch(/```text\n[\s\S]*\n```/);
    expect(message).toMatch(/Fix the value at each path above/);
  });

  it('names nested paths and list indexes', () => {
    const message = invalid({
      sandbox: { memory_mb: 'lots', network: 'bridge' },
      setup: ['npm ci', ''],
      triggers: { workflow_runs: { max_rounds: 0 } },
    });
    expect(message).toContain('→ at sandbox.memory_mb');
    expect(message).toContain('→ at sandbox.network');
    expect(message).toContain('→ at setup[1]');
    expect(message).toContain('→ at triggers.workflow_runs.max_rounds');
  });

  it('uses the path it is given in the message', () => {
    const result = parseRepoConfig({ max_attempts: 0 }, 'my-org/.github:.github/selfdebug.yml');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain('`my-org/.github:.github/selfdebug.yml`');
  });

  it('rejects unknown keys by name and suggests the key that was meant', () => {
    const message = invalid({ max_atempts: 3, sandbox: { memoryMb: 512 }, colour: 'blue' });
    expect(message).toContain('Unknown keys "max_atempts" (did you mean "max_attempts"?), "colour"');
    expect(message).toContain('"memoryMb" (did you mean "memory_mb"?)');
    expect(message).toContain('→ at sandbox');
  });

  it('says a section must be a mapping when it is not one', () => {
    expect(invalid({ sandbox: 'large' })).toMatch(
      /must be a mapping of keys \(image, memory_mb.*\), not a string/,
    );
    expect(invalid(['command: x'])).toContain('not a list');
  });

  it('allows plain http only for a model server on this machine', () => {
    expect(valid({ model: { base_url: 'http://127.0.0.1:11434/v1' } }).model.base_url).toBe(
      'http://127.0.0.1:11434/v1',
    );
    expect(valid({ model: { base_url: 'http://localhost:8000/v1' } }).model.base_url).toBeDefined();
    expect(valid({ model: { base_url: 'http://[::1]:8000/v1' } }).model.base_url).toBeDefined();
    expect(invalid({ model: { base_url: 'http://models.example.com/v1' } })).toContain('→ at model.base_url');
    expect(invalid({ model: { base_url: 'ftp://models.example.com' } })).toContain('→ at model.base_url');
    expect(invalid({ model: { temperature: 3 } })).toContain('→ at model.temperature');
  });

  it('checks logins and environment variable names', () => {
    expect(invalid({ allowed_users: ['octocat', 'dependabot[bot]'] })).toContain('→ at allowed_users[1]');
    expect(invalid({ secret_env: ['NPM-TOKEN'] })).toContain('→ at secret_env[0]');
    expect(valid({ secret_env: ['NPM_TOKEN', '_X1'] }).secret_env).toEqual(['NPM_TOKEN', '_X1']);
  });

  it('never produces NaN from a budget', () => {
    expect(invalid({ budget: { max_minutes: Number.NaN } })).toContain('→ at budget.max_minutes');
    expect(invalid({ budget: { max_tokens: 1.5 } })).toContain('→ at budget.max_tokens');
    expect(invalid({ budget: { max_cost_usd: -1 } })).toContain('→ at budget.max_cost_usd');
  });

  it('accepts _extends for files read directly rather than through Probot', () => {
    expect(valid({ _extends: '.github', max_attempts: 2 }).max_attempts).toBe(2);
  });
});

describe('parseRepoConfigText', () => {
  it('treats an empty or comment-only file as defaults', () => {
    expect(parseRepoConfigText('')).toEqual({ ok: true, config: defaultRepoConfig });
    expect(parseRepoConfigText('# nothing yet\n')).toEqual({ ok: true, config: defaultRepoConfig });
  });

  it('parses and validates the text', () => {
    const result = parseRepoConfigText(FULL_YAML);
    expect(result.ok && result.config.max_attempts).toBe(8);
    const bad = parseRepoConfigText('max_attempts: 50\n');
    expect(!bad.ok && bad.message).toContain('→ at max_attempts');
  });

  it('reads the test policy and refuses one it does not know, naming the choices', () => {
    const flagged = parseRepoConfigText('tests: flag\nprotected_paths: ["tests/golden/**"]\n');
    expect(flagged.ok && [flagged.config.tests, flagged.config.protected_paths]).toEqual([
      'flag',
      ['tests/golden/**'],
    ]);
    const bad = parseRepoConfigText('tests: strict\n');
    expect(!bad.ok && bad.message).toContain('→ at tests');
    expect(!bad.ok && bad.message).toMatch(/protect.*flag.*allow/);
  });

  it('reports a YAML syntax error with its line and column', () => {
    const result = parseRepoConfigText('command: make test\nsetup: [npm ci\nmax_attempts: 3\n');
    expect(result.ok).toBe(false);
    const message = result.ok ? '' : result.message;
    expect(message).toContain('`.github/selfdebug.yml` is not valid YAML');
    expect(message).toMatch(/line 3, column 1/);
    expect(message).toContain('Fix the line shown above');
  });

  it('reports duplicate keys and unresolved aliases', () => {
    const duplicate = parseRepoConfigText('max_attempts: 3\nmax_attempts: 4\n');
    expect(!duplicate.ok && duplicate.message).toMatch(/unique at line 2/);
    const alias = parseRepoConfigText('command: *missing\n');
    expect(!alias.ok && alias.message).toMatch(/is not valid YAML[\s\S]*missing/);
  });

  it('keeps a quoted file from closing the code block early', () => {
    const result = parseRepoConfigText('"```": 1\n');
    const message = result.ok ? '' : result.message;
    expect(message).toMatch(/````text\n/);
    expect(message.trimEnd()).toMatch(/````\n\nFix .*$/);
  });
});

describe('operator ceilings', () => {
  it('leaves a config within the ceilings alone', () => {
    const config = valid({ sandbox: { memory_mb: 4096, network: 'none' } });
    expect(applyOperatorCeilings(config, appConfig)).toEqual({ config, notes: [] });
  });

  it('caps memory, refuses host network and an own model server, and says so', () => {
    const config = valid(parseYaml(FULL_YAML));
    const capped = applyOperatorCeilings(config, { ...appConfig, maxMemoryMb: 1024 });
    expect(capped.config.sandbox.memory_mb).toBe(1024);
    expect(capped.config.sandbox.network).toBe('none');
    expect(capped.config.model).toEqual({ name: 'gpt-4.1', temperature: 0.1 });
    expect(capped.notes).toHaveLength(3);
    expect(capped.notes[0]).toContain('`sandbox.memory_mb` asks for 4096 MB');
    expect(capped.notes[1]).toContain('SELFDEBUG_ALLOW_HOST_NETWORK');
    expect(capped.notes[2]).toContain('SELFDEBUG_ALLOW_REPO_MODEL_URL');
    // The input is not changed: it may be a cached parse shared by several jobs.
    expect(config.sandbox.memory_mb).toBe(4096);
    expect(config.model.base_url).toBe('https://api.openai.com/v1');
  });

  it('caps the workspace at the operator’s ceiling and says which variable sets it', () => {
    const config = valid({ sandbox: { workspace_mb: 20_000 } });
    const capped = applyOperatorCeilings(config, { ...appConfig, maxWorkspaceMb: 8192 });
    expect(capped.config.sandbox.workspace_mb).toBe(8192);
    expect(capped.notes).toEqual([
      '`sandbox.workspace_mb` asks for 20000 MB, but this App allows at most 8192 MB (its operator sets ' +
        'SELFDEBUG_MAX_WORKSPACE_MB), so 8192 MB is used.',
    ]);
    expect(sandboxOverrides(capped.config).workspaceMb).toBe(8192);
  });

  it('lets the operator allow host network and a repository model server', () => {
    const config = valid(parseYaml(FULL_YAML));
    const allowed = applyOperatorCeilings(config, {
      ...appConfig,
      allowHostNetwork: true,
      allowRepoModelUrl: true,
    });
    expect(allowed).toEqual({ config, notes: [] });
  });
});

describe('mappers', () => {
  const full = valid(parseYaml(FULL_YAML));

  it('gives the handlers what they need', () => {
    expect(handlerConfig(full)).toEqual({
      allowedUsers: ['octocat', 'hubot'],
      mentions: false,
      reviews: true,
      workflowRuns: {
        enabled: true,
        workflows: ['CI', '.github/workflows/nightly-*.yml'],
        branches: ['main', 'release/**'],
        maxRounds: 2,
      },
    });
    expect(handlerConfig(defaultRepoConfig).workflowRuns.enabled).toBe(false);
  });

  it('maps the sandbox keys, leaving unset ones to the operator', () => {
    const overrides = sandboxOverrides(full);
    expect(overrides).toEqual({
      image: 'python:3.12-slim',
      memoryMb: 4096,
      cpus: 2,
      pidsLimit: 1024,
      commandTimeoutSeconds: 900,
      network: 'host',
    });
    expect(sandboxConfigSchema.parse({ ...sandboxConfigSchema.parse({}), ...overrides }).memoryMb).toBe(4096);
    expect(sandboxOverrides(valid({ sandbox: { cpus: 0.5 } }))).toEqual({ cpus: 0.5 });
    expect(sandboxOverrides(defaultRepoConfig)).toEqual({});
  });

  it('maps the model keys', () => {
    expect(modelOverrides(full)).toEqual({
      model: 'gpt-4.1',
      baseUrl: 'https://api.openai.com/v1',
      temperature: 0.1,
    });
    expect(modelConfigSchema.parse(modelOverrides(full)).model).toBe('gpt-4.1');
    expect(modelOverrides(defaultRepoConfig)).toEqual({});
  });

  it('maps attempts, timeout and budget to loop limits the loop accepts', () => {
    const limits = loopLimitsFrom(full);
    expect(limits).toEqual({
      maxAttempts: 8,
      commandTimeoutSeconds: 900,
      maxTotalTokens: 400_000,
      maxCostUsd: 2.5,
      maxDurationSeconds: 1800,
      tests: 'flag',
      protectedPaths: ['tests/golden/**'],
    });
    expect(loopLimitsSchema.parse(limits).maxAttempts).toBe(8);
    const defaults = loopLimitsFrom(defaultRepoConfig);
    expect(defaults).toEqual({ maxAttempts: 5, maxTotalTokens: 0, maxCostUsd: 0, maxDurationSeconds: 0 });
    expect(loopLimitsSchema.parse(defaults).commandTimeoutSeconds).toBe(300);
    // The test policy a repository leaves out is the loop's default: every weakening is refused.
    expect(loopLimitsSchema.parse(defaults)).toMatchObject({ tests: 'protect', protectedPaths: [] });
  });

  it("lets a request's own options win over the file", () => {
    const limits = loopLimitsFrom(full, { maxAttempts: 2, timeoutSeconds: 60 });
    expect(limits).toMatchObject({ maxAttempts: 2, commandTimeoutSeconds: 60, maxTotalTokens: 400_000 });
  });
});

describe('JSON Schema', () => {
  it('is committed exactly as the generator writes it now', async () => {
    const committed = await readFile(new URL(`../../${REPO_CONFIG_SCHEMA_FILE}`, import.meta.url), 'utf8');
    expect(committed).toBe(repoConfigJsonSchemaText());
    expect(JSON.parse(committed)).toEqual(repoConfigJsonSchema());
  });

  it('has an id, a title and a description, and rejects unknown keys', () => {
    const schema = repoConfigJsonSchema();
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: expect.any(String),
      title: 'selfdebug repository configuration',
      description: expect.stringContaining('.github/selfdebug.yml'),
      additionalProperties: false,
    });
  });

  it('agrees with the zod schema on a full file and on errors', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(repoConfigJsonSchema());
    expect(validate(parseYaml(FULL_YAML))).toBe(true);
    expect(validate({})).toBe(true);
    expect(validate({ max_attempts: 50 })).toBe(false);
    expect(validate({ max_atempts: 3 })).toBe(false);
    expect(validate({ sandbox: { network: 'bridge' } })).toBe(false);
  });

  it('describes the full example in docs/configuration.md, which the App accepts', async () => {
    const docs = await readFile(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const example = docs.match(/### A full example\n\n```yaml\n([\s\S]*?)```/)?.[1];
    expect(example).toBeDefined();
    const result = parseRepoConfigText(example ?? '');
    expect(result.ok).toBe(true);
    const config = result.ok ? result.config : defaultRepoConfig;
    // FULL_YAML sets every key, so the docs' example leaves none out either.
    const everyKey = valid(parseYaml(FULL_YAML));
    for (const section of ['sandbox', 'budget', 'model', 'pull_request'] as const)
      expect(Object.keys(config[section]).sort()).toEqual(Object.keys(everyKey[section]).sort());
    expect(Object.keys(config).sort()).toEqual(Object.keys(everyKey).sort());
  });
});

describe('closestKey', () => {
  it('suggests near misses and other spellings, not unrelated words', () => {
    const known = ['max_attempts', 'allowed_users', 'setup', 'model'];
    expect(closestKey('max-attempts', known)).toBe('max_attempts');
    expect(closestKey('allowedUsers', known)).toBe('allowed_users');
    expect(closestKey('setpu', known)).toBe('setup');
    expect(closestKey('modle', known)).toBe('model');
    expect(closestKey('models', known)).toBe('model');
    expect(closestKey('colour', known)).toBeUndefined();
  });
});
