import { cpSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';

const EXPR = (inside: string) => ['$', `{{ ${inside} }}`].join('');

/** A repository folder with `.github/selfdebug.yml` and the given workflow files. */
function repository(workflows: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'selfdebug-ci-secrets-'));
  mkdirSync(join(root, '.github', 'workflows'), { recursive: true });
  writeFileSync(join(root, '.github', 'selfdebug.yml'), 'command: npm test\n');
  for (const [name, text] of Object.entries(workflows))
    writeFileSync(join(root, '.github', 'workflows', name), text);
  return root;
}

async function configCheck(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(['config', ...argv], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
  });
  return { code, stdout, stderr };
}

const DEPLOY = `
name: Deploy preview
on:
  push:
  pull_request:
jobs:
  deploy:
    runs-on: ubuntu-latest
    environment: preview
    steps:
      - run: ./deploy.sh
        env:
          NETLIFY_AUTH_TOKEN: ${EXPR('secrets.NETLIFY_AUTH_TOKEN')}
          GH: ${EXPR('secrets.GITHUB_TOKEN')}
`;
const KEPT_AWAY = `
on:
  push:
    branches-ignore: ['selfdebug/**']
jobs:
  publish:
    runs-on: ubuntu-latest
    steps:
      - run: npm publish
        env:
          NODE_AUTH_TOKEN: ${EXPR('secrets.NPM_TOKEN')}
`;

describe('selfdebug config check: workflows that would run the App fixes with secrets', () => {
  it('names each workflow, its trigger, the secrets it reads and what to do; the file stays valid', async () => {
    const root = repository({ 'deploy.yml': DEPLOY, 'publish.yml': KEPT_AWAY });
    const result = await configCheck(['check', join(root, '.github', 'selfdebug.yml')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('is valid.');
    expect(result.stderr).toContain("Your CI would run selfdebug's fixes with secrets.");
    expect(result.stderr).toContain(
      'Deploy preview (.github/workflows/deploy.yml), on push, pull_request: secrets NETLIFY_AUTH_TOKEN; ' +
        'the secrets of environment preview (unless it requires a reviewer)',
    );
    expect(result.stderr).toContain("add branches-ignore: ['selfdebug/**'] to its push: trigger");
    expect(result.stderr).toContain("startsWith(github.head_ref, 'selfdebug/')");
    expect(result.stderr).toContain('ci_verdict: off');
    expect(result.stderr).not.toContain('GITHUB_TOKEN');
    expect(result.stderr).not.toContain('publish.yml');
  });

  it('prints the warning as Markdown with --format markdown', async () => {
    const root = repository({ 'deploy.yml': DEPLOY });
    const result = await configCheck([
      'check',
      join(root, '.github', 'selfdebug.yml'),
      '--format',
      'markdown',
    ]);
    expect(result.stderr).toContain("**Your CI would run selfdebug's fixes with secrets.**");
    expect(result.stderr).toContain('`NETLIFY_AUTH_TOKEN`');
  });

  it("reads real workflows (fastapi's) given --repo, and --base sets the pull request's base", async () => {
    const root = repository({});
    cpSync(
      new URL('../fixtures/workflows-secrets/fastapi+fastapi/', import.meta.url),
      join(root, '.github', 'workflows'),
      {
        recursive: true,
      },
    );
    const config = join(root, '.github', 'selfdebug.yml');
    const result = await configCheck(['check', config, '--repo', root, '--base=master']);
    expect(result.stderr).toContain(
      'Add to Project (.github/workflows/add-to-project.yml), on pull_request_target: secrets PROJECTS_TOKEN',
    );
    expect(result.stderr).toContain(
      'Smokeshow (.github/workflows/smokeshow.yml), on workflow_run: secrets SMOKESHOW_AUTH_KEY',
    );
  });

  it('says nothing when no workflow that runs on the App branches reads a secret', async () => {
    const root = repository({ 'publish.yml': KEPT_AWAY });
    const result = await configCheck(['check', join(root, '.github', 'selfdebug.yml')]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
  });

  it('does not follow a workflow file or folder that is a link out of the repository', async () => {
    const outside = repository({ 'deploy.yml': DEPLOY });
    const linkedFile = repository({});
    symlinkSync(
      join(outside, '.github', 'workflows', 'deploy.yml'),
      join(linkedFile, '.github', 'workflows', 'deploy.yml'),
    );
    const linkedFolder = mkdtempSync(join(tmpdir(), 'selfdebug-ci-secrets-'));
    mkdirSync(join(linkedFolder, '.github'));
    writeFileSync(join(linkedFolder, '.github', 'selfdebug.yml'), 'command: npm test\n');
    symlinkSync(join(outside, '.github', 'workflows'), join(linkedFolder, '.github', 'workflows'));
    for (const root of [linkedFile, linkedFolder]) {
      const result = await configCheck(['check', join(root, '.github', 'selfdebug.yml')]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
    }
    // The same file, not linked, is read.
    expect((await configCheck(['check', join(outside, '.github', 'selfdebug.yml')])).stderr).toContain(
      'deploy.yml',
    );
  });
});
