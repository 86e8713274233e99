import { execFile } from 'node:child_process';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { type FileMap, GitHttpServer } from '../../helpers/git-http-server.js';
import { newInstallationToken } from './auth.js';

const execFileAsync = promisify(execFile);

// Neither the machine's nor the user's git configuration may change what the stand-in answers.
const GIT_ENVIRONMENT = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
};

/** One entry of a tree, as `git ls-tree --long` lists it. */
export interface TreeEntry {
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  /** Null for trees and submodules. */
  size: number | null;
  path: string;
}

/**
 * The stand-in's git side: the bare repositories of a GitHttpServer (the
 * test helper that runs `git http-backend`), read directly with git for the
 * contents and branches APIs, and reached over HTTP through the stand-in's
 * own port. The helper accepts a single token; the stand-in checks the
 * client's installation token itself and forwards with that one.
 */
export class GitRepositories {
  private constructor(
    private readonly server: GitHttpServer,
    private readonly serverToken: string,
  ) {}

  static async start(): Promise<GitRepositories> {
    const { token } = newInstallationToken();
    return new GitRepositories(await GitHttpServer.start({ token }), token);
  }

  /** Creates the bare repository, one commit per file map, with `defaultBranch` as HEAD; returns the shas. */
  async create(fullName: string, commits: FileMap[], defaultBranch: string): Promise<string[]> {
    const shas = await this.server.createRepository(fullName, commits);
    if (defaultBranch !== 'main') {
      await this.git(fullName, 'branch', '--move', 'main', defaultBranch);
      await this.git(fullName, 'symbolic-ref', 'HEAD', `refs/heads/${defaultBranch}`);
    }
    return shas;
  }

  branchSha(fullName: string, branch: string): Promise<string | null> {
    return this.server.branchSha(fullName, branch);
  }

  /** Points `branch` at `sha`, as a push of that commit would. */
  async createBranch(fullName: string, branch: string, sha: string): Promise<void> {
    await this.git(fullName, 'branch', '--force', '--', branch, sha);
  }

  /** The repository's branch names, sorted. */
  async branches(fullName: string): Promise<string[]> {
    const output = await this.git(fullName, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/');
    return output === '' ? [] : output.split('\n').sort();
  }

  /** The commit a branch, tag or sha names, or null. */
  async resolveCommit(fullName: string, ref: string): Promise<string | null> {
    // A ref that starts with a dash would be read as an option.
    if (ref === '' || ref.startsWith('-')) return null;
    return this.git(fullName, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`).catch(() => null);
  }

  /** The entry at `path` in `commit`; the root tree for ''. Null when nothing is there. */
  async entry(fullName: string, commit: string, path: string): Promise<TreeEntry | null> {
    if (path === '') {
      const sha = await this.git(fullName, 'rev-parse', `${commit}^{tree}`);
      return { mode: '040000', type: 'tree', sha, size: null, path: '' };
    }
    const listed = await this.lsTree(fullName, commit, path);
    return listed.find((entry) => entry.path === path) ?? null;
  }

  /** The entries of the tree at `path`, with paths from the repository root. */
  list(fullName: string, commit: string, path: string): Promise<TreeEntry[]> {
    return this.lsTree(fullName, commit, path === '' ? '' : `${path}/`);
  }

  async blob(fullName: string, sha: string): Promise<Buffer> {
    const { stdout } = await execFileAsync('git', ['cat-file', 'blob', sha], {
      cwd: this.server.repositoryPath(fullName),
      env: GIT_ENVIRONMENT,
      encoding: 'buffer',
      maxBuffer: 256 * 1024 * 1024,
    });
    return stdout;
  }

  /** The file at the tip of `ref` (a branch or sha). */
  async readFile(fullName: string, ref: string, path: string): Promise<string> {
    const commit = await this.resolveCommit(fullName, ref);
    const entry = commit === null ? null : await this.entry(fullName, commit, path);
    if (entry === null || entry.type !== 'blob') throw new Error(`${fullName} has no file ${path} at ${ref}`);
    return (await this.blob(fullName, entry.sha)).toString('utf8');
  }

  /** How many commits `head` has that `base` has not. */
  async commitsAhead(fullName: string, base: string, head: string): Promise<number> {
    return Number(await this.git(fullName, 'rev-list', '--count', `${base}..${head}`));
  }

  /** Each file `head` changed since its merge base with `base`, with its unified diff, as the pulls API lists them. */
  async changedFiles(
    fullName: string,
    base: string,
    head: string,
  ): Promise<{ path: string; status: string; additions: number; deletions: number; patch: string }[]> {
    const numstat = await this.git(fullName, 'diff', '--numstat', '--no-renames', `${base}...${head}`);
    const statuses = await this.git(fullName, 'diff', '--name-status', '--no-renames', `${base}...${head}`);
    const status = new Map(
      statuses
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [letter = 'M', path = ''] = line.split('\t');
          return [path, letter === 'A' ? 'added' : letter === 'D' ? 'removed' : 'modified'];
        }),
    );
    const files = [];
    for (const line of numstat.split('\n').filter(Boolean)) {
      const [added = '0', deleted = '0', path = ''] = line.split('\t');
      const diff = await this.git(fullName, 'diff', '--no-renames', `${base}...${head}`, '--', path);
      // The API's `patch` starts at the first hunk, without git's file headers.
      const patch = diff.slice(Math.max(0, diff.indexOf('@@')));
      files.push({
        path,
        status: status.get(path) ?? 'modified',
        additions: Number(added),
        deletions: Number(deleted),
        patch,
      });
    }
    return files;
  }

  /**
   * Sends one smart-HTTP request on to the git server, under its token, and
   * its answer back. `path` is the request's path and query, e.g.
   * `/owner/name.git/info/refs?service=git-upload-pack`.
   */
  forward(path: string, request: IncomingMessage, response: ServerResponse): void {
    const target = new URL(this.server.url('x'));
    const headers = { ...request.headers, host: target.host };
    headers.authorization = `Basic ${Buffer.from(`x-access-token:${this.serverToken}`).toString('base64')}`;
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: request.method, path, headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', (error) => {
      if (!response.headersSent) response.writeHead(502, { 'Content-Type': 'text/plain' });
      response.end(`git server: ${error.message}\n`);
    });
    request.pipe(upstream);
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private async lsTree(fullName: string, commit: string, path: string): Promise<TreeEntry[]> {
    const args = ['ls-tree', '--long', '-z', commit, '--', ...(path === '' ? [] : [path])];
    const output = await this.git(fullName, ...args).catch(() => '');
    return output
      .split('\0')
      .filter((line) => line !== '')
      .map((line) => {
        const tab = line.indexOf('\t');
        const [mode = '', type = '', sha = '', size = '-'] = line.slice(0, tab).split(/\s+/);
        return {
          mode,
          type: type === 'tree' || type === 'commit' ? type : 'blob',
          sha,
          size: size === '-' ? null : Number(size),
          path: line.slice(tab + 1),
        };
      });
  }

  private async git(fullName: string, ...args: string[]): Promise<string> {
    const { stdout } = await execFileAsync('git', args, {
      cwd: this.server.repositoryPath(fullName),
      env: GIT_ENVIRONMENT,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout.trim();
  }
}
