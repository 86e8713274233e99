import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Environment } from '../../config/read-environment.js';
import type { CheckoutRequest, Workspace, WorkspaceProvider } from '../../workspace/workspace.js';
import { assertCloneUrl } from './clone-url.js';
import { ConfigSeal } from './config-seal.js';
import { fetchCommit } from './fetch-commit.js';
import { assertRefName, assertSha } from './git-names.js';
import { GitRunner } from './git-runner.js';
import { GitWorkspace } from './git-workspace.js';
import { mapGitFailure } from './map-git-failure.js';

export interface GitWorkspaceProviderOptions {
  /** URL schemes git may use. Only https by default; tests against a local server add http. */
  allowedProtocols?: readonly string[];
  /** The folder checkouts are made in; the system's temporary folder by default. */
  parentDir?: string;
  /** A git command silent for this long is stopped (ten minutes by default). */
  silenceTimeoutMs?: number;
  /** Commits of history fetched with the one checked out (50 by default). */
  fetchDepth?: number;
  /** The variables selfdebug was started with (PATH, HOME, proxies, DEBUG); git sees only a few of them. */
  host: Environment;
}

/** Workspaces over the git command line, through simple-git. */
export class GitWorkspaceProvider implements WorkspaceProvider {
  private readonly runner: GitRunner;
  private readonly allowedProtocols: readonly string[];
  private readonly parentDir: string;
  private readonly fetchDepth: number;

  constructor(options: GitWorkspaceProviderOptions) {
    this.allowedProtocols = options.allowedProtocols ?? ['https'];
    this.parentDir = options.parentDir ?? tmpdir();
    this.fetchDepth = options.fetchDepth ?? 50;
    this.runner = new GitRunner({
      allowedProtocols: this.allowedProtocols,
      silenceTimeoutMs: options.silenceTimeoutMs ?? 600_000,
      host: options.host,
    });
  }

  async checkout(request: CheckoutRequest): Promise<Workspace> {
    assertCloneUrl(request.cloneUrl, this.allowedProtocols);
    assertSha(request.sha);
    if (request.ref !== undefined) assertRefName('checkout', request.ref);
    const dir = await mkdtemp(join(this.parentDir, 'selfdebug-workspace-'));
    try {
      // init + fetch rather than clone: one commit's worth of history, and no default branch to guess.
      await this.git(dir, ['init']);
      await this.git(dir, ['remote', 'add', 'origin', request.cloneUrl]);
      await fetchCommit(this.runner, dir, request, this.fetchDepth);
      await this.git(dir, ['checkout', '--detach', request.sha, '--']);
      return new GitWorkspace(dir, this.runner, request.cloneUrl, await ConfigSeal.of(dir));
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  private async git(dir: string, args: string[]): Promise<void> {
    await this.runner.run(dir, args).catch((failure: unknown) => {
      throw mapGitFailure('checkout', failure, 'the new workspace');
    });
  }
}
