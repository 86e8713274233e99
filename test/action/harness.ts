import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { ProbotOctokit } from 'probot';
import { afterEach } from 'vitest';
import { installationToken, standinOctokit } from '../fakes/github-standin/clients.js';
import { GitHubStandin } from '../fakes/github-standin/standin.js';
import {
  type FakeCompletion,
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from '../helpers/fake-openai-server.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { BROKEN_STATS, FAILED_STEPS, fixProposal, PROJECT, reflection } from './project.js';
import { simulateRunner } from './simulated-runner.js';

/**
 * For tests that run the whole action (clone, sandbox, model, delivery): on a
 * machine this loaded they take a minute, past the suite's default limit.
 */
const execFileAsync = promisify(execFile);

export const ACTION_TIMEOUT = 240_000;

export {
  BROKEN_STATS,
  FIXED_STATS,
  fixProposal,
  NUMBERS_DATA,
  PROJECT,
  reflection,
  WORKFLOW,
} from './project.js';
export { runSimulated, simulateRunner } from './simulated-runner.js';

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
  const world = {
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
  return { ...world, failedPushRun: (options: FailedPushOptions = {}) => failedPushRun(world, options) };
}

/** Where a run's inputs and variables may point: its token and the runner's folder. */
interface RunnerPlaces {
  token: string;
  root: string;
}
type Given = Record<string, string> | ((places: RunnerPlaces) => Record<string, string>);

/** What differs between the push runs the tests simulate; every field has the common run's value. */
export interface FailedPushOptions {
  /** octo-org/app's commits, oldest first; the run failed at the last. */
  commits?: Record<string, string>[];
  /** The model's answers (the fix of stats.py, then the reflection). */
  completions?: FakeCompletion[];
  /** The failed job's log. */
  log?: string;
  /** Who pushed (alice). */
  by?: string;
  /** The runner's folder's name and the files checked out in its workspace (PROJECT). */
  prefix?: string;
  files?: Record<string, string>;
  /** Inputs over inputsFor's (the model, the runner sandbox, the token). */
  inputs?: Given;
  /** Variables of the step's environment over the runner's. */
  extra?: Given;
}

/** The parts of the world a failed push run is made of. */
interface ActionWorldParts {
  repository(commits?: Record<string, string>[]): Promise<{
    standin: GitHubStandin;
    repository: Awaited<ReturnType<GitHubStandin['createRepository']>>;
    octokit: ProbotOctokit;
    token: string;
  }>;
  model(completions?: FakeCompletion[]): Promise<FakeOpenAIServer>;
  checkedOut(prefix?: string, files?: Record<string, string>): Promise<{ root: string; workspace: string }>;
}

/**
 * A push to main by alice whose CI run failed at `python3 stats.py`, on a
 * runner about to start the action: the stand-in, the model, the failed
 * run, the checked-out workspace and the step's environment.
 */
async function failedPushRun(world: ActionWorldParts, options: FailedPushOptions) {
  const { standin, repository, octokit, token } = await world.repository(options.commits);
  const model = await world.model(options.completions);
  const sha = repository.commits.at(-1)!;
  const run = failedRun(
    standin,
    repository.fullName,
    sha,
    options.log === undefined ? {} : { log: options.log },
  );
  const { root, workspace } = await world.checkedOut(options.prefix, options.files);
  const given = (value: Given | undefined) =>
    typeof value === 'function' ? value({ token, root }) : (value ?? {});
  const simulated = await simulateRunner(root, standin, {
    repository: repository.fullName,
    workspace,
    ...pushBy(options.by ?? 'alice'),
    runId: run.id,
    sha,
    inputs: inputsFor(model, token, given(options.inputs)),
    extra: given(options.extra),
  });
  return { standin, repository, octokit, token, model, sha, run, root, workspace, simulated };
}

/** A failed run of CI whose job `test` failed at `python3 stats.py` (FAILED_STEPS); a push unless `event`. */
export function failedRun(
  standin: GitHubStandin,
  fullName: string,
  headSha: string,
  options: { headBranch?: string; event?: string; log?: string; running?: boolean } = {},
) {
  return standin.createWorkflowRun(fullName, {
    workflowName: 'CI',
    path: '.github/workflows/ci.yml',
    headBranch: options.headBranch ?? 'main',
    headSha,
    event: options.event ?? 'push',
    running: options.running ?? false,
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

/**
 * An earlier fix of the Action's: a commit carrying the round trailer, pushed to its own `branch` of
 * octo-org/app from a clone in `clone` (which stays checked out at it, as a runner's workspace). Its sha.
 */
export async function pushOwnFix(
  clone: string,
  repository: { cloneUrl: string },
  token: string,
  branch = 'selfdebug/run-1-1',
): Promise<string> {
  const git = (...args: string[]) => gitAs(clone, token, ...args);
  await git('clone', '--quiet', repository.cloneUrl, '.');
  await writeFiles(clone, { 'stats.py': `# round 1\n${BROKEN_STATS}` });
  await git('commit', '--quiet', '-am', 'selfdebug: a first try\n\nSelfdebug-Round: workflow-run');
  await git('push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`);
  return (await git('rev-parse', 'HEAD')).trim();
}

/** A folder as actions/checkout leaves GITHUB_WORKSPACE. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
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
