import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_PREFIX, type ApiRouter } from './api-router.js';
import { gitToken } from './auth.js';
import type { World } from './route.js';
import { LOG_PATH, serveLog } from './routes-actions.js';

/** `/{owner}/{repo}.git/…`: git's smart-HTTP requests, on the stand-in's own port like github.com's. */
const GIT_PATH = /^\/([^/]+)\/([^/]+)\.git(?:\/|$)/;

export interface RecordedRequest {
  method: string;
  /** Path and query as sent, e.g. `/api/v3/repos/o/r/pulls?state=open`. */
  path: string;
  status: number;
  /** Time from the request's arrival to the end of the answer (the stand-in's own cost, git included). */
  ms: number;
}

/**
 * The one port of the stand-in: the REST API under /api/v3, git over HTTP
 * for clone URLs, and the log storage host the job-log redirect points at.
 * Every request is recorded with the status it got.
 */
export class HttpFront {
  constructor(
    private readonly world: World,
    private readonly router: ApiRouter,
    private readonly requests: RecordedRequest[],
    private readonly record: (problem: string) => void,
  ) {}

  async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = (request.method ?? 'GET').toUpperCase();
    const path = request.url ?? '/';
    const started = performance.now();
    response.on('finish', () =>
      this.requests.push({ method, path, status: response.statusCode, ms: performance.now() - started }),
    );
    try {
      const url = new URL(path, this.world.state.site.webUrl);
      this.world.state.received.push(path);
      if (url.pathname === API_PREFIX || url.pathname.startsWith(`${API_PREFIX}/`)) {
        const body = await readBody(request);
        if (body !== '') this.world.state.received.push(body);
        await this.router.handle(request, response, url, body);
      } else if (url.pathname.startsWith(LOG_PATH)) {
        serveLog(this.world, url, response);
      } else if (GIT_PATH.test(url.pathname)) {
        this.git(request, response, url);
      } else {
        this.record(`${method} ${path}: neither the API, git nor a log URL`);
        response.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found\n');
      }
    } catch (error) {
      this.record(
        `${method} ${path}: the stand-in failed: ${error instanceof Error ? error.stack : String(error)}`,
      );
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end('stand-in error\n');
    }
  }

  /**
   * Git sends no credentials until challenged unless it was given a header,
   * so a request without any is answered with the challenge and is no
   * problem; wrong credentials are.
   */
  private git(request: IncomingMessage, response: ServerResponse, url: URL): void {
    const [, owner = '', repo = ''] = GIT_PATH.exec(url.pathname) ?? [];
    const authorization = request.headers.authorization;
    if (gitToken(authorization, this.world.state.tokens) === undefined) {
      if (authorization !== undefined) {
        this.record(`${request.method} ${url.pathname}: git refused, not an issued installation token`);
      }
      response
        .writeHead(401, { 'WWW-Authenticate': 'Basic realm="GitHub"' })
        .end('Invalid username or token.\n');
      return;
    }
    const repository = this.world.state.repository(owner, repo);
    if (repository === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Repository not found.\n');
      return;
    }
    // The bare repositories keep the names they were created with, whatever case the URL uses.
    const rest = url.pathname.slice(`/${owner}/${repo}.git`.length);
    this.world.git.forward(`/${repository.fullName}.git${rest}${url.search}`, request, response);
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
