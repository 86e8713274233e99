import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { ACTION_TIMEOUT, readText, runSimulated, useActionWorld, writeFiles } from '../action/harness.js';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { attackSuite } from './attack-table.js';
import { leakForms, leakProbe } from './leak-probe.js';

const execFileAsync = promisify(execFile);

/** A token of the shape `prefix` + 36 letters and digits, new for each test. */
function token(prefix: string): string {
  return (
    prefix +
    randomBytes(27)
      .toString('base64')
      .replace(/[^A-Za-z0-9]/g, 'x')
      .slice(0, 36)
  );
}

/** actions/checkout's workspace: a real repository whose config persists `secret` as its auth header. */
async function checkoutWithPersistedToken(workspace: string, secret: string, npmToken: string) {
  const git = (...args: string[]) =>
    execFileAsync('git', args, {
      cwd: workspace,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
      },
    });
  const header = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${secret}`).toString('base64')}`;
  await git('init', '-q', '-b', 'main');
  await git('remote', 'add', 'origin', 'https://github.com/octo-org/app');
  await git('config', '--local', 'http.https://github.com/.extraheader', header);
  await git('config', '--local', 'credential.helper', 'store');
  await git(
    'config',
    '--local',
    `url.https://x-access-token:${secret}@github.com/.insteadOf`,
    'https://github.com/',
  );
  await git(
    'config',
    '--local',
    'remote.mirror.url',
    `https://x-access-token:${secret}@github.com/octo-org/app`,
  );
  await writeFiles(workspace, {
    '.npmrc': `registry=https://npm.pkg.example/\n//npm.pkg.example/:_authToken=${npmToken}\n`,
    '.git-credentials': `https://x-access-token:${secret}@github.com\n`,
    '.netrc': `machine github.com login x-access-token password ${secret}\n`,
    '.docker/config.json': JSON.stringify({
      auths: { 'ghcr.io': { auth: Buffer.from(`me:${secret}`).toString('base64') } },
    }),
    '.aws/credentials': `[default]\naws_secret_access_key = ${secret}\n`,
    [`gha-creds-${randomBytes(4).toString('hex')}.json`]: JSON.stringify({ token: secret }),
  });
  return { header };
}

/** Every file under `dir`, read as text, for the CLI's and the Action's output folders. */
async function allText(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map((entry) => readFile(join(entry.parentPath, entry.name), 'utf8')),
  );
  return texts.join('\n');
}

describeWithDocker('the job token actions/checkout persists in the workspace', () => {
  const world = useActionWorld();
  const attack = attackSuite('checkout-token');

  attack(
    'the token actions/checkout persists (extraheader, .npmrc, .git-credentials…) read by setup or the loop',
    'the workspace copy leaves credentials out (CredentialPlan); the host checkout is unchanged',
    async () => {
      const npmToken = token('npm_');
      // The probe looks for every form of both tokens; the job's is the stand-in's, known once it holds the repository.
      const leaks = (jobToken: string) => {
        const forms = [...leakForms(jobToken), ...leakForms(npmToken)];
        return { forms, probe: leakProbe(forms, 'statistics.mean') };
      };
      const {
        standin,
        token: jobToken,
        workspace,
        simulated,
      } = await world.failedPushRun({
        log: 'failed\n',
        prefix: 'selfdebug-checkout-token-',
        inputs: ({ token: jobToken }) => ({
          command: `${leaks(jobToken).probe} && python3 stats.py`,
          sandbox: 'docker',
          image: TEST_IMAGE,
        }),
      });
      const { forms, probe } = leaks(jobToken);
      await writeFiles(workspace, { '.github/selfdebug.yml': `setup:\n  - ${JSON.stringify(probe)}\n` });
      const { header } = await checkoutWithPersistedToken(workspace, jobToken, npmToken);

      const { code, log } = await runSimulated(simulated.env);

      expect(log).not.toContain('::error::');
      expect(code).toBe(0);
      // Fixed means both probes passed: setup's (in the container with a network) and the loop's.
      expect(await readText(simulated.outputPath)).toContain('fixed');
      const summary = await readText(simulated.summaryPath);
      expect(summary).toContain('probe-clean');
      expect(summary).toContain(
        'credentials stripped from the workspace copy (the checkout is unchanged): .git/config ' +
          '(http.https://github.com/.extraheader, credential.helper, the user name and password in url, ' +
          'url.https://github.com/.insteadOf, the user name and password in remote.mirror); .npmrc (_authToken)',
      );
      expect(summary).toMatch(
        /credential files left out of the workspace copy: \.aws\/credentials, \.docker\/config\.json, \.git-credentials, \.netrc, gha-creds-/,
      );
      const outputs = `${summary}\n${log}\n${await allText(simulated.runnerTemp)}`;
      for (const form of forms) expect(outputs).not.toContain(form);
      // The host's checkout is the runner's: never modified.
      expect(await readFile(join(workspace, '.git', 'config'), 'utf8')).toContain(header);
      expect(await readFile(join(workspace, '.npmrc'), 'utf8')).toContain(npmToken);
      expect(standin.problems).toEqual([]);
    },
    ACTION_TIMEOUT,
  );
});
