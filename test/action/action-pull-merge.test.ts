import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ACTION_TIMEOUT,
  failedRun,
  gitAs,
  inputsFor,
  NUMBERS_DATA,
  openPull,
  pullRequestRun,
  reflection,
  reviewsOn,
  runSimulated,
  simulateRunner,
  useActionWorld,
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
  const world = useActionWorld();

  it("suggests on the head's lines (RIGHT side) though the base has moved, and writes out what the diff does not hold", {
    timeout: ACTION_TIMEOUT,
  }, async () => {
    const base = { 'stats.py': STATS, 'numbers_data.py': NUMBERS_DATA, '.github/workflows/ci.yml': WORKFLOW };
    const { standin, repository, octokit, token } = await world.repository([base]);
    // The job's checkout: the head on a feature branch, the moved base on main, and their merge checked out,
    // as actions/checkout checks out refs/pull/N/merge.
    const workspace = join(await world.tempDir('selfdebug-action-merge-'), 'workspace');
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
    const pull = await openPull(octokit, 'Print the mean');
    const model = await world.model([{ json: proposal }, { json: reflection }]);
    const run = failedRun(standin, repository.fullName, headSha, {
      headBranch: 'feature',
      event: 'pull_request',
      log: 'NameError\n',
    });
    const simulated = await simulateRunner(join(workspace, '..'), standin, {
      repository: repository.fullName,
      workspace,
      ...pullRequestRun(pull.number, headSha),
      runId: run.id,
      sha: mergeSha,
      inputs: inputsFor(model, token, { deliver: 'suggestions' }),
    });

    const { code, log } = await runSimulated(simulated.env);

    expect(log).not.toContain('::error::');
    expect(code).toBe(0);
    const { reviews, comments } = await reviewsOn(octokit, pull.number);
    expect(reviews).toHaveLength(1);
    expect(reviews[0]!.commit_id).toBe(headSha);
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
