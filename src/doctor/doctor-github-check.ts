import { createPrivateKey } from 'node:crypto';
import type { Environment } from '../config/read-environment.js';
import type { DoctorPorts } from './doctor-ports.js';
import { type CheckResult, fail, messageOf, ok } from './doctor-result.js';

/** APP_ID, the private key (parsed, never shown) and, when asked, an installation token. */
export async function checkGitHubApp(env: Environment, ports: DoctorPorts): Promise<CheckResult> {
  const name = 'github app';
  const appId = env.APP_ID?.trim() ?? '';
  if (appId === '') {
    return fail(name, 'APP_ID is not set', "set APP_ID to the App's ID (its settings page on GitHub)");
  }
  if (!/^\d+$/.test(appId)) {
    return fail(name, `APP_ID "${appId}" is not a number`, "set APP_ID to the App's numeric ID");
  }
  const key = await privateKeyText(env, ports);
  if (key.text === undefined) return fail(name, key.problem, key.fix);
  try {
    createPrivateKey(key.text);
  } catch (error) {
    return fail(
      name,
      `${key.source} is not a PEM private key (${messageOf(error).split('\n')[0]})`,
      'download a new private key from the App settings and give the whole .pem file ' +
        '(PRIVATE_KEY_PATH=file.pem, or its text in PRIVATE_KEY with "\\n" for line breaks)',
    );
  }
  if (!ports.makeInstallationToken) {
    return ok(
      name,
      `APP_ID ${appId}; ${key.source} parses (run \`selfdebug doctor --github\` to make a token)`,
    );
  }
  try {
    const what = await ports.makeInstallationToken(appId, key.text);
    return ok(name, `APP_ID ${appId}; ${what}`);
  } catch (error) {
    return fail(
      name,
      'could not make an installation token',
      `${messageOf(error)} — check that APP_ID and the private key belong to the same App, that the App is ` +
        'installed on a repository, and that GHE_HOST names your GitHub Enterprise host if you use one',
    );
  }
}

type KeyText = { text: string; source: string } | { text: undefined; problem: string; fix: string };

async function privateKeyText(env: Environment, ports: DoctorPorts): Promise<KeyText> {
  if (env.PRIVATE_KEY?.trim()) {
    // Probot accepts the key with literal "\n" escapes, as one line in an .env file.
    return { text: env.PRIVATE_KEY.replace(/\\n/g, '\n'), source: 'PRIVATE_KEY' };
  }
  const path = env.PRIVATE_KEY_PATH?.trim();
  if (!path) {
    return {
      text: undefined,
      problem: 'no private key',
      fix: "set PRIVATE_KEY_PATH to the App's .pem file (or PRIVATE_KEY to its text)",
    };
  }
  try {
    return { text: await ports.readFile(path), source: `PRIVATE_KEY_PATH (${path})` };
  } catch (error) {
    const code = (error as { code?: string }).code ?? messageOf(error);
    return {
      text: undefined,
      problem: `cannot read PRIVATE_KEY_PATH ${path} (${code})`,
      fix: 'point PRIVATE_KEY_PATH at the .pem file downloaded from the App settings',
    };
  }
}
