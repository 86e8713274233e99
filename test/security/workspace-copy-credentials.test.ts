import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { afterEach, describe, expect } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { LocalSandboxProvider } from '../../src/adapters/local/local-sandbox-provider.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import type { Sandbox, SandboxProvider } from '../../src/sandbox/sandbox.js';
import { writeFiles } from '../action/harness.js';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { attackSuite } from './attack-table.js';
import { leakForms, leakProbe } from './leak-probe.js';

const execFileAsync = promisify(execFile);

/** A checkout as a runner leaves it: the token in git's config, an npm token, git's credential store. */
async function persistedCheckout(dir: string, secret: string): Promise<void> {
  await writeFiles(dir, {
    'main.py': 'print("main")\n',
    '.npmrc': `registry=https://npm.pkg.example/\n//npm.pkg.example/:_authToken=${secret}\n`,
    'web/.npmrc': `_auth=${Buffer.from(`me:${secret}`).toString('base64')}\nsave-exact=true\n`,
    '.git-credentials': `https://x-access-token:${secret}@github.com\n`,
    '.pypirc': `[pypi]\npassword = ${secret}\n`,
    '.config/gcloud/application_default_credentials.json': JSON.stringify({ refresh_token: secret }),
  });
  const git = (...args: string[]) =>
    execFileAsync('git', args, {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_GLOBAL: '/dev/null' },
    });
  await git('init', '-q');
  await git('remote', 'add', 'origin', `https://x-access-token:${secret}@github.com/octo-org/app`);
  const header = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${secret}`).toString('base64')}`;
  await git('config', '--local', 'http.https://github.com/.extraheader', header);
}

function copyAttacks(name: string, provider: () => SandboxProvider, places?: string) {
  describe(`the workspace copy into ${name} sandbox`, () => {
    const tempDir = useTempDirs();
    const attack = attackSuite(`workspace-copy (${name})`);
    const open: Sandbox[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((sandbox) => sandbox.dispose()));
    });

    attack(
      `credentials a runner left in the checkout, read in ${name} sandbox`,
      'CredentialPlan: dropped or stripped on the way in, listed in the transcript',
      async () => {
        const secret = `ghs_${randomBytes(18).toString('hex')}`;
        const host = await tempDir();
        await persistedCheckout(host, secret);
        const environment = { setup: [], services: [], allowedHosts: [], lockfiles: {} };
        const sandbox = await provider().open({ jobId: `copy-${Date.now()}`, workspace: host, environment });
        open.push(sandbox);

        const probe = await sandbox.exec(leakProbe(leakForms(secret), 'print("main")', places));
        expect(probe.stdout).toContain('probe-clean');
        const kept = await sandbox.exec('cat .npmrc web/.npmrc; git config --get remote.origin.url');
        expect(kept.stdout).toBe(
          'registry=https://npm.pkg.example/\nsave-exact=true\nhttps://github.com/octo-org/app\n',
        );
        const notes = sandbox.preparation?.notes.join('\n') ?? '';
        expect(notes).toContain(
          '.git/config (the user name and password in remote.origin, http.https://github.com/.extraheader)',
        );
        expect(notes).toContain('.npmrc (_authToken); web/.npmrc (_auth)');
        expect(notes).toMatch(
          /left out of the workspace copy: \.config\/gcloud\/.*, \.git-credentials, \.pypirc$/m,
        );
        expect(await readFile(join(host, '.npmrc'), 'utf8')).toContain(secret);
        expect(await readFile(join(host, '.git', 'config'), 'utf8')).toContain('extraheader');
      },
      120_000,
    );

    attack(
      'a credential file name linked to a file outside the workspace, to be read and copied in',
      'a link is copied as a link, never read on the host',
      async () => {
        const secret = `ghs_${randomBytes(18).toString('hex')}`;
        const outside = await tempDir();
        await writeFiles(outside, { 'host.npmrc': `//npm.example/:_authToken=${secret}\nleaked=yes\n` });
        const host = await tempDir();
        await writeFiles(host, { 'main.py': 'print("main")\n' });
        await symlink(join(outside, 'host.npmrc'), join(host, '.npmrc'));
        const sandbox = await provider().open({ jobId: `link-${Date.now()}`, workspace: host });
        open.push(sandbox);
        const link = await sandbox.exec('readlink .npmrc');
        expect(link.stdout).toBe(`${join(outside, 'host.npmrc')}\n`);
        expect((await sandbox.exec('grep -rl leaked=yes . || echo none')).stdout).toBe('none\n');
      },
      120_000,
    );
  });
}

copyAttacks(
  'the local',
  () =>
    new LocalSandboxProvider(parseSandboxConfig({ kind: 'local' }), { host: process.env, warn: () => {} }),
  // Its /tmp is the host's, where the checkout itself lives.
  '"$HOME"',
);

describeWithDocker('workspace copies into containers', () => {
  const docker = new Docker();
  copyAttacks('a Docker', () => new DockerSandboxProvider(parseSandboxConfig({ image: TEST_IMAGE }), docker));
});
