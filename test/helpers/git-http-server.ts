import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** One request as the server saw it, before authentication. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/** File path → content for a commit; `null` deletes the file. */
export type FileMap = Record<string, string | null>;

export interface GitHttpServerOptions {
  /** The installation token the server accepts, as `x-access-token` in Basic authentication. */
  token: string;
  /**
   * Forward the client's Git-Protocol header so that fetches speak protocol v2,
   * which lets a client fetch any commit by sha. Without it the server speaks
   * v0 and refuses unadvertised commits, as some servers do.
   */
  protocolV2?: boolean;
}

// Neither the machine's nor the user's git configuration may change what the tests see.
const GIT_ENVIRONMENT = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'author@example.com',
};

/**
 * A real git smart-HTTP server on 127.0.0.1: node:http in front of
 * `git http-backend` run as a CGI program, over bare repositories in a
 * temporary folder. It demands the installation token the way GitHub does and
 * records every request, so tests can check what went over the wire.
 */
export class GitHttpServer {
  readonly requests: RecordedRequest[] = [];

  private constructor(
    private readonly root: string,
    private readonly port: number,
    private readonly close_: () => Promise<void>,
  ) {}

  static async start(options: GitHttpServerOptions): Promise<GitHttpServer> {
    const root = await mkdtemp(join(tmpdir(), 'selfdebug-git-server-'));
    const expected = `Basic ${Buffer.from(`x-access-token:${options.token}`).toString('base64')}`;
    let server: GitHttpServer | undefined;
    const http = createServer((request, response) => {
      server?.requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
      });
      if (request.headers.authorization !== expected) {
        response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="selfdebug test"' }).end('Unauthorized\n');
        return;
      }
      runBackend(root, options.protocolV2 ?? true, request, response);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as AddressInfo;
    const close = async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await rm(root, { recursive: true, force: true });
    };
    server = new GitHttpServer(root, port, close);
    return server;
  }

  /** The clone URL of `repository`, without credentials. */
  url(repository: string): string {
    return `http://127.0.0.1:${this.port}/${repository}.git`;
  }

  /** Creates a bare repository whose `main` has one commit per file map; returns their shas, oldest first. */
  async createRepository(repository: string, commits: FileMap[]): Promise<string[]> {
    const bare = this.barePath(repository);
    await git(this.root, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
    await git(bare, 'config', 'http.receivepack', 'true');
    const work = await mkdtemp(join(tmpdir(), 'selfdebug-git-seed-'));
    try {
      await git(work, 'init', '--quiet', '--initial-branch=main');
      const shas: string[] = [];
      for (const [index, files] of commits.entries()) {
        for (const [path, content] of Object.entries(files)) {
          const file = join(work, path);
          if (content === null) {
            await rm(file, { force: true });
          } else {
            await mkdir(dirname(file), { recursive: true });
            await writeFile(file, content);
          }
        }
        await git(work, 'add', '--all');
        await git(work, 'commit', '--quiet', '--allow-empty', '--message', `Commit ${index + 1}`);
        shas.push(await git(work, 'rev-parse', 'HEAD'));
      }
      await git(work, 'push', '--quiet', bare, 'HEAD:refs/heads/main');
      return shas;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /** The sha `branch` points at, or null when it does not exist. */
  async branchSha(repository: string, branch: string): Promise<string | null> {
    return git(this.barePath(repository), 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`).catch(
      () => null,
    );
  }

  /** The content of `path` at the tip of `branch`. */
  async readFile(repository: string, branch: string, path: string): Promise<string> {
    const { stdout } = await execFileAsync('git', ['show', `refs/heads/${branch}:${path}`], {
      cwd: this.barePath(repository),
      env: GIT_ENVIRONMENT,
    });
    return stdout;
  }

  /** Requests whose URL contains `part`, e.g. `git-receive-pack`, from the `since`-th on. */
  requestsTo(part: string, since = 0): RecordedRequest[] {
    return this.requests.slice(since).filter((request) => request.url.includes(part));
  }

  async close(): Promise<void> {
    await this.close_();
  }

  /** The bare repository's folder, for fakes that read or shape it with git directly. */
  repositoryPath(repository: string): string {
    return this.barePath(repository);
  }

  private barePath(repository: string): string {
    return join(this.root, `${repository}.git`);
  }
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, { cwd, env: GIT_ENVIRONMENT });
  return stdout.trim();
}

/** Runs `git http-backend` for one request: CGI variables in, CGI headers and body out. */
function runBackend(
  root: string,
  protocolV2: boolean,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : (value ?? '');
  };
  const backend = spawn('git', ['http-backend'], {
    env: {
      ...GIT_ENVIRONMENT,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: request.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ''),
      CONTENT_TYPE: header('content-type'),
      ...(request.headers['content-length'] === undefined
        ? {}
        : { CONTENT_LENGTH: header('content-length') }),
      HTTP_CONTENT_ENCODING: header('content-encoding'),
      ...(protocolV2 ? { HTTP_GIT_PROTOCOL: header('git-protocol') } : {}),
      REMOTE_USER: 'x-access-token',
      REMOTE_ADDR: request.socket.remoteAddress ?? '127.0.0.1',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  request.pipe(backend.stdin);
  backend.stdin.on('error', () => {});
  let stderr = '';
  backend.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  let head = Buffer.alloc(0);
  let headersSent = false;
  backend.stdout.on('data', (chunk: Buffer) => {
    if (headersSent) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const parsed = parseCgiHead(head);
    if (parsed === undefined) return;
    headersSent = true;
    response.writeHead(parsed.status, parsed.headers);
    if (parsed.body.length > 0) response.write(parsed.body);
  });
  backend.on('close', (code) => {
    if (!headersSent) {
      response.writeHead(500, { 'Content-Type': 'text/plain' }).end(`http-backend exited ${code}: ${stderr}`);
      return;
    }
    response.end();
  });
}

interface CgiHead {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Splits a CGI response into its headers (with `Status:` as the status code) and the start of the body. */
function parseCgiHead(output: Buffer): CgiHead | undefined {
  const text = output.toString('latin1');
  const match = /\r?\n\r?\n/.exec(text);
  if (match === null) return undefined;
  const headers: Record<string, string> = {};
  let status = 200;
  for (const line of text.slice(0, match.index).split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
    else headers[name] = value;
  }
  return { status, headers, body: output.subarray(match.index + match[0].length) };
}
