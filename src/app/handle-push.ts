import type { Context } from 'probot';
import type { AppDependencies } from './dependencies.js';

const BRANCH_REF = 'refs/heads/';

/**
 * A push moves a branch on, so jobs still debugging an older commit of it
 * are stale: waiting ones are dropped and running ones are cancelled (their
 * container is removed; their status comment says "cancelled"). The App's
 * own pushes are skipped, or a job delivering its fix would cancel itself.
 * Nothing is posted here and no GitHub call is made.
 */
export async function handlePush(context: Context<'push'>, dependencies: AppDependencies): Promise<void> {
  const { payload } = context;
  forgetChangedConfig(payload, dependencies);
  if (payload.deleted || !payload.ref.startsWith(BRANCH_REF)) return;
  if (payload.sender?.login.toLowerCase() === `${dependencies.handle.toLowerCase()}[bot]`) return;
  const branch = payload.ref.slice(BRANCH_REF.length);
  const sha = payload.after;
  const cancelled = await dependencies.queue.cancelStale(
    { repository: payload.repository.full_name, branch, sha },
    `${branch} moved on to ${sha.slice(0, 7)}; this job was for an older commit`,
  );
  if (cancelled > 0) context.log.info({ branch, sha, cancelled }, 'cancelled jobs for older commits');
}

const CONFIG_FILES = ['.github/selfdebug.yml', '.github/selfdebug.yaml'];

/**
 * The cached configuration goes stale when the default branch changes the
 * file, or when anything lands in the organisation's `.github` repository
 * (org defaults and `_extends` targets live there).
 */
function forgetChangedConfig(payload: Context<'push'>['payload'], dependencies: AppDependencies): void {
  const forget = dependencies.forgetRepoConfig;
  if (!forget) return;
  const [owner = '', repo = ''] = payload.repository.full_name.split('/');
  if (repo === '.github') {
    forget(owner);
    return;
  }
  if (payload.ref !== `${BRANCH_REF}${payload.repository.default_branch}`) return;
  const touched = payload.commits.flatMap((commit) => [
    ...(commit.added ?? []),
    ...(commit.modified ?? []),
    ...(commit.removed ?? []),
  ]);
  // GitHub lists at most 2048 commits (and files) per push; a truncated list may hide the file.
  if (payload.commits.length >= 2048 || touched.some((path) => CONFIG_FILES.includes(path)))
    forget(owner, repo);
}
