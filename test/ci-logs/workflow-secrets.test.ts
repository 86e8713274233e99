import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type BranchPush,
  includedBy,
  matchesFilterPattern,
  type WorkflowFile,
  workflowsReadingSecrets,
} from '../../src/ci-logs/index.js';

const PUSH: BranchPush = {
  branches: ['selfdebug/issue-12-0a1b2c3d', 'selfdebug/run-345-0a1b2c3d'],
  baseBranch: 'main',
};
const EXPR = (inside: string) => ['$', `{{ ${inside} }}`].join('');

/** A real repository's workflows, as test/fixtures/workflows-secrets holds them. */
function realWorkflows(repo: string): WorkflowFile[] {
  const folder = new URL(`../fixtures/workflows-secrets/${repo}/`, import.meta.url);
  return readdirSync(folder).map((name) => ({
    path: `.github/workflows/${name}`,
    text: readFileSync(new URL(name, folder), 'utf8'),
  }));
}

const summary = (files: WorkflowFile[], push = PUSH) =>
  workflowsReadingSecrets(files, push).map((found) => ({
    path: found.path,
    events: found.triggers.map((trigger) => trigger.event),
    secrets: found.secrets,
    allSecrets: found.allSecrets,
    environments: found.environments,
  }));

describe('GitHub filter patterns', () => {
  it('reads *, **, ?, +, [] and \\ as the workflow syntax documents them', () => {
    expect(matchesFilterPattern('selfdebug/**', 'selfdebug/issue-1')).toBe(true);
    expect(matchesFilterPattern('selfdebug/*', 'selfdebug/issue-1')).toBe(true);
    expect(matchesFilterPattern('*', 'selfdebug/issue-1')).toBe(false);
    expect(matchesFilterPattern('**', 'selfdebug/issue-1')).toBe(true);
    expect(matchesFilterPattern('self*', 'selfdebug/x')).toBe(false);
    expect(matchesFilterPattern('releases/**-alpha', 'releases/beta/3-alpha')).toBe(true);
    expect(matchesFilterPattern('v2*', 'v2.1')).toBe(true);
    expect(matchesFilterPattern('Octoc?t', 'Octoct')).toBe(true);
    expect(matchesFilterPattern('Octoc?t', 'Octocat')).toBe(false);
    expect(matchesFilterPattern('ma+in', 'maaain')).toBe(true);
    expect(matchesFilterPattern('[CB]at', 'Bat')).toBe(true);
    expect(matchesFilterPattern('[1-2]00', '300')).toBe(false);
    expect(matchesFilterPattern('feature\\+x', 'feature+x')).toBe(true);
    expect(matchesFilterPattern('feature+x', 'feature+x')).toBe(false);
    expect(matchesFilterPattern('**/README.md', 'README.md')).toBe(true);
    expect(matchesFilterPattern('main.x', 'mainax')).toBe(false);
  });

  it('lets the last matching pattern decide, a leading ! excluding', () => {
    const patterns = ['**', '!selfdebug/**', 'selfdebug/keep-*'];
    expect(includedBy(patterns, 'feature/a')).toBe(true);
    expect(includedBy(patterns, 'selfdebug/issue-1')).toBe(false);
    expect(includedBy(patterns, 'selfdebug/keep-1')).toBe(true);
  });
});

describe('workflows that would run on the App branches and read secrets, on real files', () => {
  it('fastapi: a pull_request_target workflow, and a workflow_run one that follows "Test"', () => {
    expect(summary(realWorkflows('fastapi+fastapi'))).toEqual([
      {
        path: '.github/workflows/add-to-project.yml',
        events: ['pull_request_target'],
        secrets: ['PROJECTS_TOKEN'],
        allSecrets: [],
        environments: [],
      },
      {
        path: '.github/workflows/smokeshow.yml',
        events: ['workflow_run'],
        secrets: ['SMOKESHOW_AUTH_KEY'],
        allSecrets: [],
        environments: [],
      },
    ]);
  });

  it('fastapi: without "Test" the workflow_run workflow has nothing to follow', () => {
    const files = realWorkflows('fastapi+fastapi').filter((file) => !file.path.endsWith('test.yml'));
    expect(summary(files).map((found) => found.path)).toEqual(['.github/workflows/add-to-project.yml']);
  });

  it('sentry-python: the pull request runs the licence check with its key; the scheduled one never runs', () => {
    expect(summary(realWorkflows('getsentry+sentry-python'))).toEqual([
      {
        path: '.github/workflows/enforce-license-compliance.yml',
        events: ['pull_request'],
        secrets: ['FOSSA_API_KEY'],
        allSecrets: [],
        environments: [],
      },
    ]);
  });

  it('sentry-python: pull_request filters the base branch, so a base outside its list runs nothing', () => {
    const files = realWorkflows('getsentry+sentry-python');
    expect(summary(files, { ...PUSH, baseBranch: 'develop' })).toHaveLength(1);
    const onlyMaster = files.map((file) => ({
      ...file,
      text: file.text.replace('  pull_request:\n', '  pull_request:\n    branches: [master]\n'),
    }));
    expect(summary(onlyMaster, { ...PUSH, baseBranch: 'develop' })).toEqual([]);
  });

  it('fastify: GITHUB_TOKEN only, push to main only, and closed/labeled pull_request_target: none', () => {
    expect(summary(realWorkflows('fastify+fastify'))).toEqual([]);
  });

  it('black: environment jobs guarded by github.event_name == release do not count', () => {
    expect(summary(realWorkflows('psf+black'))).toEqual([]);
  });

  it('flask: a tag-only push never runs for a branch', () => {
    expect(summary(realWorkflows('pallets+flask'))).toEqual([]);
  });
});

describe('crafted edge cases', () => {
  const file = (text: string): WorkflowFile[] => [{ path: '.github/workflows/x.yml', text }];
  const deploy = (on: string, extra = '') => `
on:
${on}
jobs:
  deploy:
    runs-on: ubuntu-latest
${extra}    steps:
      - run: ./deploy.sh
        env:
          TOKEN: ${EXPR('secrets.DEPLOY_TOKEN')}
          GH: ${EXPR('secrets.GITHUB_TOKEN')}
`;

  it('branches-ignore selfdebug/** keeps a push workflow off the App branches', () => {
    expect(summary(file(deploy("  push:\n    branches-ignore: ['selfdebug/**']")))).toEqual([]);
    expect(summary(file(deploy("  push:\n    branches-ignore: ['dependabot/**']")))).toHaveLength(1);
  });

  it('branches-ignore on pull_request filters the base, so it does not keep the App PR out', () => {
    const found = summary(file(deploy("  pull_request:\n    branches-ignore: ['selfdebug/**']")));
    expect(found.map((entry) => entry.events)).toEqual([['pull_request']]);
  });

  it('on: as a string or a list', () => {
    expect(summary(file(deploy('  push')))[0]?.secrets).toEqual(['DEPLOY_TOKEN']);
    expect(summary(file(deploy('  [issues, pull_request]')))[0]?.events).toEqual(['pull_request']);
    expect(summary(file(deploy('  [issues, schedule]')))).toEqual([]);
  });

  it('pull_request types the App never causes', () => {
    expect(summary(file(deploy('  pull_request:\n    types: [labeled]')))).toEqual([]);
    expect(summary(file(deploy('  pull_request:\n    types: [labeled, synchronize]')))).toHaveLength(1);
  });

  it('secrets: inherit, toJSON(secrets), secrets[...] and an environment', () => {
    const text = `
on: push
jobs:
  call:
    uses: ./.github/workflows/reusable.yml
    secrets: inherit
  dump:
    runs-on: ubuntu-latest
    environment: { name: production, url: "https://example.test" }
    steps:
      - run: echo "${EXPR('toJSON(secrets)')}" && echo "${EXPR("secrets['NPM_TOKEN']")}"
      - run: echo "${EXPR('secrets[matrix.name]')}"
`;
    expect(summary(file(text))).toEqual([
      {
        path: '.github/workflows/x.yml',
        events: ['push'],
        secrets: ['NPM_TOKEN'],
        allSecrets: [
          'secrets: inherit (job call)',
          'secrets[…] (a secret chosen at run time)',
          'toJSON(secrets)',
        ],
        environments: ['production'],
      },
    ]);
  });

  it('a script calling Python secrets module, a comment, or on.workflow_call.secrets is no secret read', () => {
    const text = `
on:
  push:
  workflow_call:
    secrets:
      TOKEN: { required: true }
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      # echo ${EXPR('secrets.IN_A_COMMENT')}
      - run: python -c "import secrets; print(secrets.token_hex())" ${EXPR('inputs.secrets_name')}
`;
    expect(summary(file(text))).toEqual([]);
  });

  it('job conditions that cannot hold for the App branch', () => {
    const guarded = (condition: string) => deploy('  push:', `    if: ${condition}\n`);
    expect(summary(file(guarded("github.ref == 'refs/heads/main'")))).toEqual([]);
    expect(summary(file(guarded("startsWith(github.ref, 'refs/tags/')")))).toEqual([]);
    expect(summary(file(guarded(`${EXPR("github.event_name == 'release'")}`)))).toEqual([]);
    expect(summary(file(guarded("github.event_name == 'push'")))).toHaveLength(1);
    expect(summary(file(guarded("github.ref == 'refs/heads/main' || always()")))).toHaveLength(1);
    expect(summary(file(guarded("github.ref != 'refs/heads/main'")))).toHaveLength(1);
  });

  it('a workflow file that is not YAML is skipped', () => {
    expect(summary(file('on: [push\n  jobs: {'))).toEqual([]);
  });
});
