import type { ActionCodeHost } from '../code-host/code-host.js';
import { loadAppConfig } from '../config/app-config.js';
import { readFolderConfig } from '../config/folder-config.js';
import { applyOperatorCeilings, type RepoConfig, readRepoConfig } from '../config/repo-config.js';
import type { FailedRun } from './event.js';
import type { ActionInputs, RunnerContext } from './inputs.js';

/** What a run goes on with: the repository's settings, the run (its pull request found), the inputs. */
export interface ConfiguredRun {
  config: RepoConfig;
  failed: FailedRun;
  inputs: ActionInputs;
}

/**
 * The settings of this run. The repository's own code: `.github/selfdebug.yml` of the checkout. A
 * fork's (with `allow-forks`): the file of the default branch, read through the API, since the
 * fork's copy would let its author choose the setup commands and hosts; and the fix goes only to
 * suggestions on the fork's pull request, never to a branch of this repository.
 */
export async function configuredRun(
  inputs: ActionInputs,
  { runner, host, failed }: { runner: RunnerContext; host: ActionCodeHost; failed: FailedRun },
  log: (line: string) => void,
): Promise<ConfiguredRun> {
  if (failed.fork === null) {
    const { config } = await readFolderConfig(runner.GITHUB_WORKSPACE, {});
    return { config, failed, inputs };
  }
  const read = await readRepoConfig(host);
  if (!read.ok) throw new Error(read.message);
  const { config } = applyOperatorCeilings(read.config, loadAppConfig({}));
  const pullRequest = failed.pullRequest ?? (await forkPullRequest(host, failed));
  const deliver = inputs.deliver === 'none' || pullRequest === null ? 'none' : 'suggestions';
  log(
    `selfdebug: debugging code from the fork ${failed.fork} (allow-forks): settings from the default branch; ` +
      (deliver === 'suggestions'
        ? `the fix, if any, is suggested on pull request #${pullRequest?.number}.`
        : 'the fix, if any, is in the job summary and the artifact only.'),
  );
  return { config, failed: { ...failed, pullRequest }, inputs: { ...inputs, deliver } };
}

/**
 * A workflow_run event lists no pull requests for a fork's head: the open pull request from the
 * fork's branch is looked up instead, or null when there is none.
 */
async function forkPullRequest(host: ActionCodeHost, failed: FailedRun): Promise<FailedRun['pullRequest']> {
  const forkOwner = failed.fork?.split('/')[0];
  if (!forkOwner || failed.branch === '') return null;
  const pulls = await host.openPullRequestsFrom(forkOwner, failed.branch);
  return pulls.find((candidate) => candidate.headSha === failed.sha) ?? pulls[0] ?? null;
}
