import { GitAuthError, GitError } from '../../errors/index.js';
import type { CheckoutRequest } from '../../workspace/workspace.js';
import type { GitRunner } from './git-runner.js';
import { mapGitFailure } from './map-git-failure.js';

/**
 * Fetches just enough history to check out `request.sha`. Servers that refuse
 * to serve a commit by its sha (protocol v0 without
 * uploadpack.allowReachableSHA1InWant) are asked for `request.ref` instead,
 * deepened to the full history if the commit is older than `depth`.
 */
export async function fetchCommit(
  runner: GitRunner,
  dir: string,
  request: CheckoutRequest,
  depth: number,
): Promise<void> {
  const { sha, ref, token, cloneUrl } = request;
  const fetch = (...what: string[]) =>
    runner.run(dir, ['fetch', '--no-tags', '--no-recurse-submodules', ...what], { token });
  try {
    await fetch(`--depth=${depth}`, 'origin', sha);
    return;
  } catch (failure) {
    const error = mapGitFailure('checkout', failure, cloneUrl);
    if (error instanceof GitAuthError || ref === undefined) throw error;
  }
  try {
    await fetch(`--depth=${depth}`, 'origin', ref);
    if (await hasCommit(runner, dir, sha)) return;
    if ((await runner.run(dir, ['rev-parse', '--is-shallow-repository'])).trim() === 'true') {
      await fetch('--unshallow', 'origin', ref);
    }
  } catch (failure) {
    throw mapGitFailure('checkout', failure, cloneUrl);
  }
  if (!(await hasCommit(runner, dir, sha))) {
    throw new GitError(
      'checkout',
      `The commit ${sha} is not on ${ref} in ${cloneUrl}. It may have been force-pushed away; ` +
        'run the job again on a commit that still exists.',
    );
  }
}

async function hasCommit(runner: GitRunner, dir: string, sha: string): Promise<boolean> {
  return runner.run(dir, ['cat-file', '-e', `${sha}^{commit}`]).then(
    () => true,
    () => false,
  );
}
