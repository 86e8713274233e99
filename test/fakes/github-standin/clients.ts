import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ProbotOctokit } from 'probot';
import type { GitHubStandin } from './standin.js';

/**
 * Clients that talk to a stand-in the way the App does: Probot's Octokit
 * doing the JWT flow itself, and git with the installation token as a header.
 */

const execFileAsync = promisify(execFile);

// Retries and throttling would hide a refused request; the function form survives Probot's own defaults.
const TestOctokit = ProbotOctokit.defaults((options: object) => ({
  ...options,
  retry: { enabled: false },
  throttle: { enabled: false },
}));

/** A ProbotOctokit for the stand-in's installation: it signs a JWT and fetches its token on first use. */
export function standinOctokit(standin: GitHubStandin): ProbotOctokit {
  return new TestOctokit({
    auth: { appId: standin.appId, privateKey: standin.privateKey, installationId: standin.installationId },
    baseUrl: standin.apiUrl,
  });
}

/** The installation token `octokit` uses (fetched now if it has none yet). */
export async function installationToken(octokit: ProbotOctokit): Promise<string> {
  const authentication: unknown = await octokit.auth({ type: 'installation' });
  if (typeof authentication === 'object' && authentication !== null && 'token' in authentication) {
    const { token } = authentication;
    if (typeof token === 'string') return token;
  }
  throw new Error('The Octokit gave no installation token');
}

// Neither the machine's nor the user's git configuration may change what a test sees.
const GIT_ENVIRONMENT = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'author@example.com',
};

/** Runs git in `cwd` with `Authorization: Basic x-access-token:<token>`, as the App's workspace sends it. */
export async function gitWithToken(cwd: string, token: string, ...args: string[]): Promise<string> {
  const header = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  const { stdout } = await execFileAsync('git', ['-c', `http.extraHeader=${header}`, ...args], {
    cwd,
    env: GIT_ENVIRONMENT,
  });
  return stdout.trim();
}
