import { createHash } from 'node:crypto';
import type { CacheScope } from '../sandbox/environment.js';

/** A branch name as a full ref; a full ref stays as it is. */
function branchRef(branch: string): string {
  return branch.startsWith('refs/') ? branch : `refs/heads/${branch}`;
}

/** The refs whose entries a job may reuse, first match wins: its own, then the default branch's. */
export function refsToRead(scope: CacheScope): string[] {
  return scope.ref === scope.defaultRef ? [scope.ref] : [scope.ref, scope.defaultRef];
}

/** Groups one repository's entries for its cap, whatever ref made them. */
export function repositoryOf(scope: CacheScope): string {
  return digest({ tenant: scope.tenant, repository: scope.repository }).slice(0, 32);
}

/**
 * The name of an entry: the environment key inside the scope and under the
 * ref it was written for. Two repositories (or one repository's two refs)
 * with the same setup and lockfiles still name two entries, so one never
 * starts from what the other's setup left behind.
 */
export function entryKey(scope: CacheScope, ref: string, key: string): string {
  return digest({ tenant: scope.tenant, repository: scope.repository, ref, key });
}

/** The App's job: its installation, the repository's numeric id and the branch it runs on. */
export function appScope(input: {
  installationId: number;
  repositoryId: number;
  branch: string;
  defaultBranch: string;
}): CacheScope {
  return {
    tenant: `installation:${input.installationId}`,
    repository: String(input.repositoryId),
    ref: branchRef(input.branch),
    defaultRef: branchRef(input.defaultBranch),
  };
}

/**
 * The Action on a runner: GITHUB_REPOSITORY_ID, GITHUB_REF and the event's
 * default branch. A pull request's ref (refs/pull/N/merge) only reads its own
 * entries and the default branch's.
 */
export function actionScope(input: { repositoryId: string; ref: string; defaultBranch: string }): CacheScope {
  return {
    tenant: 'actions',
    repository: input.repositoryId,
    ref: branchRef(input.ref),
    defaultRef: branchRef(input.defaultBranch),
  };
}

/** `selfdebug fix` on a folder: the folder is the repository, and it has one ref. */
export function localScope(user: string, folder: string): CacheScope {
  const ref = 'local';
  return { tenant: `local:${user}`, repository: digest({ folder }).slice(0, 32), ref, defaultRef: ref };
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}
