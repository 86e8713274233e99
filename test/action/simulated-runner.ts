import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ActionIO, runAction } from '../../src/action/run-action.js';
import type { GitHubStandin } from '../fakes/github-standin/standin.js';

export interface Simulated {
  env: Record<string, string>;
  summaryPath: string;
  outputPath: string;
  runnerTemp: string;
}

/**
 * The environment the runner gives a step: INPUT_* as it names them (hyphens
 * kept), the GITHUB_* context, the event payload in a file, and the stand-in
 * as both the API and the git server.
 */
export async function simulateRunner(
  root: string,
  standin: GitHubStandin,
  options: {
    repository: string;
    workspace: string;
    eventName: string;
    event: unknown;
    runId: number;
    sha: string;
    ref: string;
    inputs: Record<string, string>;
    extra?: Record<string, string>;
  },
): Promise<Simulated> {
  const runnerTemp = join(root, 'runner-temp');
  await mkdir(runnerTemp, { recursive: true });
  const eventPath = join(root, 'event.json');
  await writeFile(eventPath, JSON.stringify(options.event));
  const summaryPath = join(root, 'summary.md');
  const outputPath = join(root, 'output.txt');
  await writeFile(summaryPath, '');
  await writeFile(outputPath, '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? root,
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: options.workspace,
    GITHUB_REPOSITORY: options.repository,
    GITHUB_EVENT_NAME: options.eventName,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_RUN_ID: String(options.runId),
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_SHA: options.sha,
    GITHUB_REF: options.ref,
    GITHUB_JOB: 'test',
    GITHUB_WORKFLOW: 'CI',
    GITHUB_ACTOR: 'alice',
    GITHUB_SERVER_URL: `http://${standin.host}`,
    GITHUB_API_URL: standin.apiUrl,
    GITHUB_STEP_SUMMARY: summaryPath,
    GITHUB_OUTPUT: outputPath,
    RUNNER_TEMP: runnerTemp,
    RUNNER_TOOL_CACHE: join(root, 'tool-cache'),
    // The stand-in's jobs run on this runner unless a test names another.
    RUNNER_NAME: 'GitHub Actions 1',
    // action.yml's defaults, which the runner fills in for inputs not given.
    INPUT_SANDBOX: 'docker',
    INPUT_DELIVER: 'pull-request',
    ...Object.fromEntries(
      Object.entries(options.inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]),
    ),
    ...options.extra,
  };
  return { env, summaryPath, outputPath, runnerTemp };
}

export async function runSimulated(env: Record<string, string>): Promise<{ code: number; log: string }> {
  const lines: string[] = [];
  const io: ActionIO = { log: (line) => lines.push(line) };
  const code = await runAction(env, io);
  return { code, log: lines.join('\n') };
}
