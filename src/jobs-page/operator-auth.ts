import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The cookie a valid `?token=` sets: HttpOnly, so no script can read it, and for the page's path only. */
const SESSION_COOKIE = 'selfdebug_operator';
const SESSION_HOURS = 12;

/**
 * Compares without leaking where two values differ or how long the secret
 * is: both sides are hashed to 32 bytes first, then compared in constant time.
 */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * The cookie holds a keyed hash of the token, not the token: a copied cookie
 * opens only this page, and changing SELFDEBUG_OPERATOR_TOKEN ends every session.
 */
function sessionValue(token: string): string {
  return createHmac('sha256', token).update('selfdebug jobs page session').digest('hex');
}

export type Access = 'granted' | 'denied' | { setCookie: string };

/**
 * Who may see the page: `Authorization: Bearer <token>` (scripts, curl), a
 * session cookie, or `?token=<token>` once in a browser, which answers with
 * the cookie (and a redirect that drops the token from the address bar).
 */
export function checkAccess(request: IncomingMessage, url: URL, token: string): Access {
  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim();
  if (bearer !== undefined) return sameSecret(bearer, token) ? 'granted' : 'denied';
  const cookie = cookieValue(request.headers.cookie, SESSION_COOKIE);
  if (cookie !== null && sameSecret(cookie, sessionValue(token))) return 'granted';
  const query = url.searchParams.get('token');
  if (query === null || !sameSecret(query, token)) return 'denied';
  const secure = isHttps(request) ? '; Secure' : '';
  return {
    setCookie: `${SESSION_COOKIE}=${sessionValue(token)}; Path=${url.pathname}; Max-Age=${SESSION_HOURS * 3600}; HttpOnly; SameSite=Strict${secure}`,
  };
}

function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return null;
}

/** Behind a TLS-terminating proxy the App sees plain HTTP; the proxy says so in X-Forwarded-Proto. */
function isHttps(request: IncomingMessage): boolean {
  const forwarded = request.headers['x-forwarded-proto'];
  return (
    'encrypted' in request.socket ||
    (typeof forwarded === 'string' && forwarded.split(',')[0]?.trim() === 'https')
  );
}
