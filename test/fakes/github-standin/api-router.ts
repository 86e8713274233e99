import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  findOperation,
  type Operation,
  parameterProblems,
  requestBodyProblems,
  responseBodyProblems,
} from '../../helpers/openapi-operations.js';
import { type AuthSettings, identify } from './auth.js';
import {
  type ApiCall,
  invalidRequest,
  json,
  notFound,
  type Reply,
  type Routes,
  unauthorized,
  type World,
} from './route.js';

export const API_PREFIX = '/api/v3';

/**
 * The REST side of the stand-in: matches each request to the operation
 * GitHub documents, authenticates it, checks it against the description,
 * runs the handler and checks the answer too. Whatever does not fit the
 * description is recorded as a problem; the client still gets the answer
 * GitHub would give.
 */
export class ApiRouter {
  constructor(
    private readonly world: World,
    private readonly routes: Routes,
    private readonly auth: Omit<AuthSettings, 'tokens'>,
    private readonly record: (problem: string) => void,
  ) {}

  async handle(request: IncomingMessage, response: ServerResponse, url: URL, rawBody: string): Promise<void> {
    const method = (request.method ?? 'GET').toUpperCase();
    const path = documentedForm(url.pathname.slice(API_PREFIX.length) || '/');
    const name = `${method} ${API_PREFIX}${path}`;
    const found = findOperation(method, path);
    if (found === undefined) {
      this.record(`${name}: GitHub's REST API has no such route`);
      return send(response, notFound());
    }
    const { operation, pathParameters } = found;
    const key = `${operation.method.toUpperCase()} ${operation.template}`;
    const route = this.routes[key];
    if (route === undefined) {
      this.record(`${name}: the stand-in does not serve ${key}; add it to test/fakes/github-standin`);
      return send(response, notFound());
    }

    const bodyProblems = requestBodyProblems(operation, rawBody);
    const problems = [
      ...parameterProblems(operation, 'path', pathParameters),
      ...parameterProblems(operation, 'query', queryOf(url)),
      ...bodyProblems,
    ];
    for (const problem of problems) this.record(`${name} (${key}): ${problem}`);

    const identity = identify(header(request, 'authorization'), {
      ...this.auth,
      tokens: this.world.state.tokens,
    });
    if ('failure' in identity) {
      this.record(`${name}: refused, ${identity.failure}`);
      return send(response, unauthorized(identity.failure));
    }
    if (identity.caller.kind !== route.auth) {
      const wanted = route.auth === 'app' ? "a JWT signed with the App's key" : 'an installation token';
      this.record(`${name}: refused, ${key} takes ${wanted}`);
      return send(
        response,
        unauthorized(route.auth === 'app' ? 'A JSON web token could not be decoded' : 'Bad credentials'),
      );
    }

    const caller = identity.caller.kind === 'installation' ? identity.caller.token : 'app';
    const rate = this.world.state.rateLimits.take(caller);
    if (rate.exceeded) return send(response, rateLimited(identity.caller.kind), rate.headers);
    const withheld = this.world.state.withheld.get(key);
    if (withheld !== undefined && identity.caller.kind === 'installation') {
      return send(response, forbidden(withheld), rate.headers);
    }

    let body: unknown;
    try {
      body = rawBody === '' ? undefined : JSON.parse(rawBody);
    } catch {
      return send(
        response,
        json(400, { message: 'Problems parsing JSON', documentation_url: 'https://docs.github.com/rest' }),
      );
    }
    // GitHub checks bodies against its schema too, and refuses what does not fit.
    if (bodyProblems.length > 0) return send(response, invalidRequest(bodyProblems.join('\n')));

    const call: ApiCall = {
      operation,
      params: pathParameters,
      query: url.searchParams,
      body,
      headers: request.headers,
      url,
    };
    let reply: Reply;
    try {
      reply = await route.handle(call, this.world);
    } catch (error) {
      this.record(`${name}: the stand-in failed: ${error instanceof Error ? error.stack : String(error)}`);
      reply = json(500, { message: 'Server Error' });
    }
    for (const problem of replyProblems(operation, reply))
      this.record(`${name} → ${reply.status} (${key}): ${problem}`);
    send(response, reply, rate.headers);
  }
}

/**
 * Octokit sends `{path}` and `{branch}` with slashes encoded; other clients
 * send them as they are. GitHub takes both, the description's patterns only
 * the first.
 */
function documentedForm(path: string): string {
  const match = /^(\/repos\/[^/]+\/[^/]+\/(?:contents|branches))\/(.+)$/.exec(path);
  if (match === null) return path;
  return `${match[1]}/${match[2]?.split('/').map(encodeSegment).join('%2F')}`;
}

function encodeSegment(segment: string): string {
  return encodeURIComponent(decodeURIComponent(segment));
}

function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? (values[0] ?? '') : values;
  }
  return query;
}

/**
 * A success must be a documented status with a body that fits. An error
 * GitHub leaves undocumented for an operation (a 404 or 422 it sends anyway)
 * is not held against the stand-in.
 */
function replyProblems(operation: Operation, reply: Reply): string[] {
  const documented = Object.keys(operation.definition.responses as object).includes(String(reply.status));
  if (reply.status >= 400 && !documented) return [];
  if (reply.raw !== undefined) return documented ? [] : [`GitHub documents no ${reply.status} response`];
  return responseBodyProblems(operation, reply.status, reply.body);
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `rateLimit`: GitHub's rate-limit headers, on every answer to an authenticated request. */
function send(response: ServerResponse, reply: Reply, rateLimit: Record<string, string> = {}): void {
  const headers: Record<string, string> = {
    'x-github-media-type': 'github.v3; format=json',
    'x-github-request-id': `STANDIN:${Date.now().toString(16)}`,
    ...rateLimit,
    ...reply.headers,
  };
  if (reply.raw !== undefined) {
    response.writeHead(reply.status, { ...headers, 'content-type': reply.raw.contentType });
    response.end(reply.raw.content);
    return;
  }
  if (reply.body === undefined) {
    response.writeHead(reply.status, headers).end();
    return;
  }
  response.writeHead(reply.status, { ...headers, 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(reply.body));
}

/** GitHub's answer past the primary rate limit: 403, with `x-ratelimit-remaining: 0`. */
function rateLimited(kind: 'app' | 'installation'): Reply {
  return json(403, {
    message: `API rate limit exceeded for ${kind === 'app' ? 'the app' : 'installation'}.`,
    documentation_url: 'https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api',
  });
}

/** GitHub's answer to an installation token without the permission an operation needs. */
function forbidden(acceptedPermissions: string): Reply {
  return json(
    403,
    {
      message: 'Resource not accessible by integration',
      documentation_url: 'https://docs.github.com/rest',
      status: '403',
    },
    { 'x-accepted-github-permissions': acceptedPermissions },
  );
}
