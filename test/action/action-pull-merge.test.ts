import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { installationToken, standinOctokit } from '../fakes/github-standin/clients.js';
import { GitHubStandin } from '../fakes/github-standin/standin.js';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import {
  ACTION_TIMEOUT,
  FAILED_STEPS,
  gitAs,
  NUMBERS_DATA,
  reflection,
  runSimulated,
  simulateRunner,
  WORKFLOW,
  writeFiles,
} from './harness.js';

const STATS = [
  'import statistics',
  '',
  'from numbers_data import load_numbers',
  '',
  'values = load_numbers()',
  'print(f"count: {len(values)}")',
  'print(f"mean: {statistics.mean(values)}")',
  '',
].join('\n');
/** The pull request's change: a typo on its last line (line 7 of the head). */
const BROKEN = STATS.replace('mean(values)', 'mean(value)');
/** The base moved meanwhile: two lines on top, so the merge commit's lines are the head's plus 2. */
const HEADER = '# Summary statistics of the numbers.\n# Run: python3 stats.py\n';

const proposal = {
  analysis: 'The last line of stats.py uses `value`, which is not defined; the list is `values`.',
  edits: [
    { path: 'stats.py', search: 'mean(value)', replace: 'mean(values)' },
    // A file the pull request does not change: no suggestion can go there.
    { path: 'numbers_data.py', search: 'return [1, 2, 3, 4]', replace: 'return [1, 2, 3, 4, 5]' },
  ],
};

describe('the GitHub Action on a pull_request run of a merge commit', () => {
  const tempDir = useTempDirs();
  let standin: GitHubStandin | undefined;
  let model: FakeOpenAIServer | undefined;

  afterEach(async () => {
    await model?.close();
    await standin?.close();
  });

  it("suggests on the head's lines (RIGHT side) though the base has moved, and writes out what the diff does not hold", {
    timeout: ACTION_TIMEOUT,
  }, async () => {
    standin = await GitHubStandin.start();
    const base = { 'stats.py': STATS, 'numbers_data.py': NUMBERS_DATA, '.github/workflows/ci.yml': WORKFLOW };
    const repository = await standin.createRepository('octo-org', 'app', [base]);
    const octokit = standinOctokit(standin);
    const token = await installationToken(octokit);
    // The job's checkout: the head on a feature branch, the moved base on main, and their merge checked out,
    // as actions/checkout checks out refs/pull/N/merge.
    const workspace = join(await tempDir('selfdebug-action-merge-'), 'workspace');
    const git = (...args: string[]) => gitAs(workspace, token, ...args);
    await gitAs(join(workspace, '..'), token, 'clone', '--quiet', repository.cloneUrl, 'workspace');
    await git('checkout', '--quiet', '-b', 'feature');
    await writeFiles(workspace, { 'stats.py': BROKEN });
    await git('commit', '--quiet', '-am', 'Print the mean');
    const headSha = (await git('rev-parse', 'HEAD')).trim();
    await git('push', '--quiet', 'origin', 'feature');
    await git('checkout', '--quiet', 'main');
    await writeFiles(workspace, { 'stats.py': `${HEADER}${STATS}` });
    await git('commit', '--quiet', '-am', 'Say what stats.py is');
    await git('push', '--quiet', 'origin', 'main');
    await git('merge', '--quiet', '--no-edit', 'feature');
    const mergeSha = (await git('rev-parse', 'HEAD')).trim();
    const { data: pull } = await octokit.rest.pulls.create({
      owner: 'octo-org',
      repo: 'app',
      title: 'Print the mean',
      head: 'feature',
      base: 'main',
    });
    model = await startFakeOpenAIServer([{ json: proposal }, { json: reflection }]);
    const run = standin.createWorkflowRun(repository.fullName, {
      workflowName: 'CI',
      path: '.github/workflows/ci.yml',
      headBranch: 'feature',
      headSha,
      event: 'pull_request',
      jobs: [{ name: 'test', conclusion: 'failure', steps: FAILED_STEPS, log: 'NameError\n' }],
    });
    const simulated = await simulateRunner(join(workspace, '..'), standin, {
      repository: repository.fullName,
      workspace,
      eventName: 'pull_request',
      event: {
        number: pull.number,
        pull_request: { number: pull.number, head: { ref: 'feature', sha: headSha }, base: { ref: 'main' } },
        sender: { login: 'alice', type: 'User' },
      },
      runId: run.id,
      sha: mergeSha,
      ref: `refs/pull/${pull.number}/merge`,
      inputs: {
        'api-key': 'test-key',
        'base-url': model.url,
        sandbox: 'runner',
        deliver: 'suggestions',
        'github-token': token,
      },
      extra: { GITHUB_HEAD_REF: 'feature' },
    });

    const { code, log } = await runSimulated(simulated.env);

    expect(log).not.toContain('::error::');
    expect(code).toBe(0);
    const { data: reviews } = await octokit.rest.pulls.listReviews({
      owner: 'octo-org',
      repo: 'app',
      pull_number: pull.number,
    });
    expect(reviews).toHaveLength(1);
    expect(reviews[0]!.commit_id).toBe(headSha);
    const { data: comments } = await octokit.rest.pulls.listCommentsForReview({
      owner: 'octo-org',
      repo: 'app',
      pull_number: pull.number,
      review_id: reviews[0]!.id,
    });
    // The fix's hunk is lines 6–9 of the merge commit: lines 4–7 of the head, inside the pull request's hunk.
    expect(comments.map((comment) => [comment.path, comment.line])).toEqual([['stats.py', 7]]);
    expect(comments[0]!.body).toBe(
      '```suggestion\n\nvalues = load_numbers()\nprint(f"count: {len(values)}")\nprint(f"mean: {statistics.mean(values)}")\n```',
    );
    // numbers_data.py is not in the pull request's diff: its change is in the review's text instead.
    expect(reviews[0]!.body).toContain('Outside the lines this pull request changes');
    expect(reviews[0]!.body).toContain('numbers_data.py, lines 1–2');
    expect(reviews[0]!.body).toContain('return [1, 2, 3, 4, 5]');
    expect(standin.problems).toEqual([]);
  });
});
