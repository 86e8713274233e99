import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { ProbotOctokit } from 'probot';
import { afterEach } from 'vitest';
import { type ActionIO, runAction } from '../../src/action/run-action.js';
import { installationToken, standinOctokit } from '../fakes/github-standin/clients.js';
import { GitHubStandin } from '../fakes/github-standin/standin.js';
import {
  type FakeCompletion,
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from '../helpers/fake-openai-server.js';
import { useTempDirs } from '../helpers/temp-dir.js';

/**
 * For tests that run the whole action (clone, sandbox, model, delivery): on a
 * machine this loaded they take a minute, past the suite's default limit.
 */
const execFileAsync = promisify(execFile);

export const ACTION_TIMEOUT = 240_000;

export const BROKEN_STATS =
  'from numbers_data import load_numbers\n\nvalues = load_numbers()\nprint(f"mean: {statistics.mean(values)}")\n';
export const NUMBERS_DATA = 'def load_numbers():\n    return [1, 2, 3, 4]\n';
export const FIXED_STATS = `import statistics\n${BROKEN_STATS}`;

export const WORKFLOW = `name: CI
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: python3 stats.py
      - if: failure()
        uses: selfdebug/selfdebug@v1
        with:
          api-key: \${{ secrets.OPENAI_API_KEY }}
`;

export const fixProposal = {
  analysis: 'stats.py calls statistics.mean but never imports the statistics module.',
  edits: [
    {
      path: 'stats.py',
      search: 'from numbers_data import load_numbers\n',
      replace: 'import statistics\nfrom numbers_data import load_numbers\n',
    },
  ],
};
export const reflection = {
  summary: 'Imported the statistics module in stats.py',
  rootCause: 'statistics.mean was used without importing statistics',
  changes: 'Added `import statistics` at the top of stats.py',
  confidence: 'high',
  risks: [],
};

export const PROJECT = {
  'stats.py': BROKEN_STATS,
  'numbers_data.py': NUMBERS_DATA,
  '.github/workflows/ci.yml': WORKFLOW,
};

/** The steps the jobs API lists for the job above when `python3 stats.py` fails: "Set up job" is number 1. */
export const FAILED_STEPS = [
  { name: 'Set up job', number: 1, conclusion: 'success' as const },
  { name: 'Run actions/checkout@v4', number: 2, conclusion: 'success' as const },
  { name: 'Run python3 stats.py', number: 3, conclusion: 'failure' as const },
  { name: 'Run selfdebug/selfdebug@v1', number: 4, conclusion: null },
];

/**
 * What a test of the whole action stands on: the stand-in holding
 * octo-org/app with a token for it, a model server and temporary folders,
 * all closed or removed after each test. Call it in the `describe`.
 */
export function useActionWorld() {
  const tempDir = useTempDirs();
  let standin: GitHubStandin | undefined;
  let model: FakeOpenAIServer | undefined;
  afterEach(async () => {
    await model?.close();
    await standin?.close();
    model = undefined;
    standin = undefined;
  });
  return {
    tempDir,
    /** The stand-in with octo-org/app at `commits` (oldest first), its client and an installation token. */
    async repository(commits: Record<string, string>[] = [PROJECT]) {
      standin = await GitHubStandin.start();
      const repository = await standin.createRepository('octo-org', 'app', commits);
      const octokit = standinOctokit(standin);
      return { standin, repository, octokit, token: await installationToken(octokit) };
    },
    /** A model server giving `completions` in turn: by default the fix of stats.py, then the reflection. */
    async model(completions: FakeCompletion[] = [{ json: fixProposal }, { json: reflection }]) {
      model = await startFakeOpenAIServer(completions);
      return model;
    },
    /** The runner's folder with `files` checked out in its workspace, as actions/checkout leaves it. */
    async checkedOut(prefix = 'selfdebug-action-', files: Record<string, string> = PROJECT) {
      const root = await tempDir(prefix);
      const workspace = join(root, 'workspace');
      await writeFiles(workspace, files);
      return { root, workspace };
    },
  };
}

/** A failed run of CI whose job `test` failed at `python3 stats.py` (FAILED_STEPS); a push unless `event`. */
export function failedRun(
  standin: GitHubStandin,
  fullName: string,
  headSha: string,
  options: { headBranch?: string; event?: string; log?: string } = {},
) {
  return standin.createWorkflowRun(fullName, {
    workflowName: 'CI',
    path: '.github/workflows/ci.yml',
    headBranch: options.headBranch ?? 'main',
    headSha,
    event: options.event ?? 'push',
    jobs: [
      {
        name: 'test',
        conclusion: 'failure',
        steps: FAILED_STEPS,
        log: options.log ?? 'NameError: name statistics is not defined\n',
      },
    ],
  });
}

/** The inputs most runs give: the model's key and server, the runner sandbox and the token; then `more`. */
export function inputsFor(model: FakeOpenAIServer, token: string, more: Record<string, string> = {}) {
  return { 'api-key': 'test-key', 'base-url': model.url, sandbox: 'runner', 'github-token': token, ...more };
}

/** What the runner tells a step of a push to `branch` by `login` (a `[bot]` login is a Bot). */
export function pushBy(login: string, branch = 'main') {
  const ref = `refs/heads/${branch}`;
  const sender = { login, type: login.endsWith('[bot]') ? 'Bot' : 'User' };
  return { eventName: 'push', event: { ref, sender }, ref };
}

/** What the runner tells a step of a pull_request run: pull `number` from `feature` (at `headSha`) into main. */
export function pullRequestRun(number: number, headSha: string) {
  return {
    eventName: 'pull_request',
    event: {
      number,
      pull_request: { number, head: { ref: 'feature', sha: headSha }, base: { ref: 'main' } },
      sender: { login: 'alice', type: 'User' },
    },
    ref: `refs/pull/${number}/merge`,
    extra: { GITHUB_HEAD_REF: 'feature' },
  };
}

/** Opens a pull request from `feature` into main of octo-org/app. */
export async function openPull(octokit: ProbotOctokit, title: string) {
  const owner = 'octo-org';
  const repo = 'app';
  return (await octokit.rest.pulls.create({ owner, repo, title, head: 'feature', base: 'main' })).data;
}

/** The reviews on pull `number` of octo-org/app, and the comments of the first. */
export async function reviewsOn(octokit: ProbotOctokit, number: number) {
  const where = { owner: 'octo-org', repo: 'app', pull_number: number };
  const { data: reviews } = await octokit.rest.pulls.listReviews(where);
  if (reviews.length === 0) return { reviews, comments: [] };
  const { data: comments } = await octokit.rest.pulls.listCommentsForReview({
    ...where,
    review_id: reviews[0]!.id,
  });
  return { reviews, comments };
}

/** A folder as actions/checkout leaves GITHUB_WORKSPACE. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

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

export function readText(path: string): Promise<string> {
  return readFile(path, 'utf8');
}

/** git in `cwd` as a client of the stand-in, with `token`, and no configuration of the machine's. */
export async function gitAs(cwd: string, token: string, ...args: string[]): Promise<string> {
  const header = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  const { stdout } = await execFileAsync('git', ['-c', `http.extraHeader=${header}`, ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'selfdebug',
      GIT_AUTHOR_EMAIL: 'bot@example.com',
      GIT_COMMITTER_NAME: 'selfdebug',
      GIT_COMMITTER_EMAIL: 'bot@example.com',
    },
  });
  return stdout;
}
