import { rm } from 'node:fs/promises';
import { GitError } from '../../errors/index.js';
import type { CommitAuthor, Workspace } from '../../workspace/workspace.js';
import { assertCommitPaths } from './commit-paths.js';
import type { ConfigSeal } from './config-seal.js';
import { assertPushable, assertRefName } from './git-names.js';
import type { GitRunner } from './git-runner.js';
import { mapGitFailure, mapPushFailure } from './map-git-failure.js';

/** A checkout made by GitWorkspaceProvider. */
export class GitWorkspace implements Workspace {
  constructor(
    readonly dir: string,
    private readonly runner: GitRunner,
    private readonly remote: string,
    private readonly seal: ConfigSeal,
  ) {}

  async createBranch(branch: string): Promise<void> {
    assertRefName('branch', branch);
    await this.seal.check('branch');
    await this.runner.run(this.dir, ['checkout', '-B', branch, 'HEAD', '--']).catch((failure: unknown) => {
      throw mapGitFailure('branch', failure, this.remote);
    });
  }

  async commit(message: string, author: CommitAuthor, paths?: string[]): Promise<string | null> {
    if (paths !== undefined) assertCommitPaths(paths);
    if (paths?.length === 0) return null;
    await this.seal.check('commit');
    try {
      await this.runner.run(this.dir, ['add', '--verbose', '--all', '--', ...(paths ?? ['.'])]);
      const staged = await this.runner.run(this.dir, ['diff', '--cached', '--name-only', '-z']);
      if (staged.length === 0) return null;
      await this.runner.run(
        this.dir,
        ['commit', '--no-verify', '--no-gpg-sign', '--cleanup=whitespace', '--message', message],
        { environment: identity(author) },
      );
      return (await this.runner.run(this.dir, ['rev-parse', '--verify', 'HEAD^{commit}'])).trim();
    } catch (failure) {
      throw mapGitFailure('commit', failure, this.remote);
    }
  }

  async countCommits(trailer: string): Promise<number> {
    await this.seal.check('branch');
    try {
      const count = await this.runner.run(this.dir, [
        'rev-list',
        '--count',
        '--fixed-strings',
        `--grep=${trailer}`,
        'HEAD',
      ]);
      return Number.parseInt(count.trim(), 10) || 0;
    } catch (failure) {
      throw mapGitFailure('branch', failure, this.remote);
    }
  }

  async push(branch: string, token: string): Promise<void> {
    assertPushable(branch);
    await this.seal.check('push');
    // HEAD is what was committed; naming the remote ref in full keeps git from guessing.
    await this.runner
      .run(this.dir, ['push', '--porcelain', '--no-verify', 'origin', `HEAD:refs/heads/${branch}`], { token })
      .catch((failure: unknown) => {
        throw mapPushFailure(failure, branch, this.remote);
      });
  }

  async dispose(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true }).catch((cause: unknown) => {
      throw new GitError('dispose', `Could not remove the workspace ${this.dir}. Remove it by hand.`, {
        cause,
      });
    });
  }
}

/** Author and committer through the environment, so no git configuration on the host is needed. */
function identity(author: CommitAuthor): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
  };
}
