import { describe, expect, it } from 'vitest';
import { CredentialPlan, credentialNotes, credentialRule } from '../../src/sandbox/credential-plan.js';
import { stripGitConfig, withoutUserinfo } from '../../src/sandbox/git-config-credentials.js';

const HEADER = `AUTHORIZATION: basic ${Buffer.from('x-access-token:ghs_secret').toString('base64')}`;

describe('the credential plan of a workspace copy', () => {
  it('drops the extraheader, credential helpers, insteadOf rewrites, host includes and userinfo from git config', () => {
    const config = [
      '[core]',
      '\trepositoryformatversion = 0',
      '[remote "origin"]',
      '\turl = https://x-access-token:ghs_secret@github.com/octo-org/app',
      '\tfetch = +refs/heads/*:refs/remotes/origin/*',
      '[http "https://github.com/"]',
      `\textraheader = ${HEADER}`,
      '[credential]',
      '\thelper = store --file=/home/runner/creds',
      '[url "https://ghs_secret@github.com/"]',
      '\tinsteadOf = https://github.com/',
      '[includeIf "gitdir:/home/runner/work/app/app/.git"]',
      '\tpath = /home/runner/work/_temp/git-credentials-1.config',
      '[submodule "lib"]',
      '\turl = ssh://git@github.com/octo-org/lib',
      '[http] extraHeader = Authorization: bearer ghs_secret',
    ].join('\n');
    const { text, removed } = stripGitConfig(config);
    expect(text).not.toContain('ghs_secret');
    expect(text).not.toContain(HEADER);
    expect(text).not.toMatch(/helper|insteadOf|git-credentials/);
    expect(text).toContain('\turl = https://github.com/octo-org/app');
    expect(text).toContain('\tfetch = +refs/heads/*:refs/remotes/origin/*');
    // An ssh user name is no credential; a submodule's URL keeps it.
    expect(text).toContain('ssh://git@github.com/octo-org/lib');
    expect(removed).toEqual(
      expect.arrayContaining([
        'http.https://github.com/.extraheader',
        'credential.helper',
        'url.https://github.com/.insteadOf',
        'includeIf.gitdir:/home/runner/work/app/app/.git.path',
        'http.extraHeader',
      ]),
    );
    expect(removed.join(' ')).not.toContain('ghs_secret');
  });

  it('drops a value continued over lines with it', () => {
    const { text } = stripGitConfig(
      '[http]\n\textraheader = AUTHORIZATION: \\\n basic c2VjcmV0\n[core]\n\tbare = false',
    );
    expect(text).toBe('[http]\n[core]\n\tbare = false');
  });

  it('strips npm and yarn logins line by line, keeping the registry settings', async () => {
    const plan = new CredentialPlan();
    const files: Record<string, string> = {
      '.npmrc':
        '@octo:registry=https://npm.pkg.example/\n//npm.pkg.example/:_authToken=npm_secret\nsave-exact=true\n',
      'packages/web/.npmrc':
        '_auth=c2VjcmV0\nusername=me\n_password=c2VjcmV0\nregistry=https://me:pw@npm.example/\n',
      '.yarnrc.yml':
        'npmRegistries:\n  "//npm.example":\n    npmAuthToken: "npm_secret"\nnodeLinker: node-modules\n',
    };
    for (const path of Object.keys(files)) expect(plan.admit(path, 'file')).toBe(false);
    const rewrites = await plan.rewrites(async (path) => Buffer.from(files[path]!));
    const text = Object.fromEntries(rewrites.map((file) => [file.path, file.content.toString()]));
    expect(text['.npmrc']).toBe('@octo:registry=https://npm.pkg.example/\nsave-exact=true\n');
    expect(text['packages/web/.npmrc']).toBe('registry=https://npm.example/\n');
    expect(text['.yarnrc.yml']).toBe('npmRegistries:\n  "//npm.example":\nnodeLinker: node-modules\n');
    expect(plan.removed.map((entry) => `${entry.path}: ${entry.what}`)).toEqual(
      expect.arrayContaining([
        '.npmrc: _authToken',
        'packages/web/.npmrc: _auth',
        '.yarnrc.yml: npmAuthToken',
      ]),
    );
  });

  it('drops files that hold nothing but credentials, at any depth, and never reads through a link', () => {
    const plan = new CredentialPlan();
    for (const path of [
      '.git-credentials',
      '.netrc',
      '.pypirc',
      '.docker/config.json',
      'home/.aws/credentials',
      '.config/gcloud/application_default_credentials.json',
      'gha-creds-1a2b3c.json',
    ])
      expect(plan.admit(path, 'file')).toBe(false);
    expect(plan.removed).toHaveLength(7);
    // A link named .npmrc is copied as the link it is: reading it could reach a file outside the workspace.
    expect(plan.admit('.npmrc', 'other')).toBe(true);
    expect(credentialRule('src/netrc_parser.py')).toBeNull();
    expect(credentialRule('docs/.gitconfig-example')).toBeNull();
    expect(credentialNotes(plan.removed)).toEqual([
      'credential files left out of the workspace copy: .config/gcloud/application_default_credentials.json, ' +
        '.docker/config.json, .git-credentials, .netrc, .pypirc, gha-creds-1a2b3c.json, home/.aws/credentials',
    ]);
    expect(credentialNotes([])).toEqual([]);
  });

  it('takes userinfo out of http URLs and passwords out of any URL', () => {
    expect(withoutUserinfo('https://ghs_x@github.com/a')).toBe('https://github.com/a');
    expect(withoutUserinfo('ftp://me:pw@host/a')).toBe('ftp://host/a');
    expect(withoutUserinfo('ssh://git@github.com/a')).toBe('ssh://git@github.com/a');
  });
});
