import type { IncomingHttpHeaders } from 'node:http';
import type { Operation } from '../../helpers/openapi-operations.js';
import type { UrlSigner } from './auth.js';
import type { GitRepositories } from './git-repositories.js';
import type { RepositoryState, StandinState } from './state.js';

/** Everything a route handler may read or change. */
export interface World {
  state: StandinState;
  git: GitRepositories;
  signer: UrlSigner;
}

/** One API request, matched to GitHub's documented operation. */
export interface ApiCall {
  operation: Operation;
  /** Path parameters, decoded, by their documented names. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body; undefined when there was none. */
  body: unknown;
  headers: IncomingHttpHeaders;
  /** The absolute URL the client asked for, for Link headers. */
  url: URL;
}

export interface Reply {
  status: number;
  /** A JSON body, checked against the documented response. */
  body?: unknown;
  /** A body sent as is (raw file content); only its status is checked. */
  raw?: { content: string | Buffer; contentType: string };
  headers?: Record<string, string>;
}

export type Handler = (call: ApiCall, world: World) => Reply | Promise<Reply>;

/** `app` routes take the App's JWT; all others an installation token. */
export interface Route {
  auth: 'app' | 'installation';
  handle: Handler;
}

/** Keyed by the documented `METHOD /template`, e.g. `GET /repos/{owner}/{repo}`. */
export type Routes = Record<string, Route>;

const DOCUMENTATION = 'https://docs.github.com/rest';

export function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return headers === undefined ? { status, body } : { status, body, headers };
}

export function notFound(): Reply {
  return json(404, { message: 'Not Found', documentation_url: DOCUMENTATION, status: '404' });
}

/** GitHub's 422: a message and, usually, one error per field. */
export function validationFailed(
  errors: { resource?: string; field?: string; code: string; message?: string }[],
): Reply {
  return json(422, { message: 'Validation Failed', errors, documentation_url: DOCUMENTATION, status: '422' });
}

export function invalidRequest(detail: string): Reply {
  return json(422, {
    message: `Invalid request.\n\n${detail}`,
    documentation_url: DOCUMENTATION,
    status: '422',
  });
}

export function unauthorized(message: string): Reply {
  return json(401, { message, documentation_url: DOCUMENTATION, status: '401' });
}

/** The repository a `/repos/{owner}/{repo}/…` call names; undefined when the stand-in has none. */
export function repositoryOf(call: ApiCall, world: World): RepositoryState | undefined {
  return world.state.repository(call.params.owner ?? '', call.params.repo ?? '');
}

/** A numeric path parameter, or NaN. */
export function numberParam(call: ApiCall, name: string): number {
  const value = call.params[name] ?? '';
  return /^\d+$/.test(value) ? Number(value) : Number.NaN;
}

/** The body's object, or an empty one: request validation has already recorded a wrong shape. */
export function bodyObject(call: ApiCall): Record<string, unknown> {
  const { body } = call;
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}

export function stringField(call: ApiCall, name: string): string | undefined {
  const value = bodyObject(call)[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * One page of `items`, as `per_page` (default 30, at most 100) and `page`
 * ask, with the Link header GitHub sends and Octokit's paginate follows.
 */
export function paginate<T>(
  call: ApiCall,
  items: readonly T[],
): { page: T[]; headers: Record<string, string> } {
  const perPage = Math.min(100, Math.max(1, Number(call.query.get('per_page') ?? 30) || 30));
  const page = Math.max(1, Number(call.query.get('page') ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (to: number, rel: string) => {
    const url = new URL(call.url);
    url.searchParams.set('per_page', String(perPage));
    url.searchParams.set('page', String(to));
    return `<${url.toString()}>; rel="${rel}"`;
  };
  const links = [
    ...(page < last ? [link(page + 1, 'next'), link(last, 'last')] : []),
    ...(page > 1 ? [link(1, 'first'), link(page - 1, 'prev')] : []),
  ];
  return {
    page: items.slice((page - 1) * perPage, page * perPage),
    headers: links.length === 0 ? {} : { link: links.join(', ') },
  };
}
