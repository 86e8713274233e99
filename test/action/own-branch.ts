import { CI_VERDICT_CHECK } from '../../src/jobs/ci-verdict-writer.js';
import type { GitHubStandin } from '../fakes/github-standin/standin.js';
import type { FakeCompletion } from '../helpers/fake-openai-server.js';
import { inputsFor, PROJECT, pushBy, pushOwnFix, simulateRunner, type useActionWorld } from './harness.js';

/** The branch of the Action's earlier fix, whose pull request's CI the tests run the Action again on. */
export const BRANCH = 'selfdebug/run-1-1';

type World = ReturnType<typeof useActionWorld>;

/**
 * octo-org/app (with `config` as .github/selfdebug.yml) holding the Action's earlier fix on its branch
 * and its open pull request, a clone checked out at the fix, and a model giving `completions` (none: nobody
 * may call it).
 */
export async function ownPullRequest(world: World, config = '', completions: FakeCompletion[] = []) {
  const files = config === '' ? PROJECT : { ...PROJECT, '.github/selfdebug.yml': config };
  const { standin, repository, octokit, token } = await world.repository([files]);
  const clone = await world.tempDir('selfdebug-clone-');
  const sha = await pushOwnFix(clone, repository, token, BRANCH);
  const { data: pull } = await octokit.rest.pulls.create({
    owner: 'octo-org',
    repo: 'app',
    title: 'selfdebug: import statistics',
    body: 'The fix.\n\nFixes the failure of the run.',
    head: BRANCH,
    base: 'main',
  });
  const model = await world.model(completions);
  return { standin, repository, token, clone, sha, pull, model };
}

type OwnPullRequest = Awaited<ReturnType<typeof ownPullRequest>>;

/** A run of workflow `name` on `sha` of the Action's branch: finished, or still `running`. */
export function otherRun(
  standin: GitHubStandin,
  sha: string,
  name: string,
  conclusion: 'success' | 'failure',
  running = false,
) {
  return standin.createWorkflowRun('octo-org/app', {
    workflowName: name,
    path: `.github/workflows/${name.toLowerCase()}.yml`,
    headBranch: BRANCH,
    headSha: sha,
    running,
    jobs: [{ name: 'test', conclusion, steps: [], log: '' }],
  });
}

/** The runner of a step in run `runId` of a push of the fix to its branch (by the App that made the token). */
export async function ownPushRunner(world: World, own: OwnPullRequest, runId: number) {
  const root = await world.tempDir('selfdebug-action-');
  return simulateRunner(root, own.standin, {
    repository: own.repository.fullName,
    workspace: own.clone,
    ...pushBy('selfdebug-app[bot]', BRANCH),
    runId,
    sha: own.sha,
    inputs: inputsFor(own.model, own.token),
  });
}

export const verdictChecks = (standin: GitHubStandin) =>
  standin.checkRuns('octo-org/app').filter((check) => check.name === CI_VERDICT_CHECK);

export const pullBody = (standin: GitHubStandin) => standin.pulls('octo-org/app')[0]!.body;
