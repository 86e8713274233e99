import { createHmac, type KeyObject, randomBytes, timingSafeEqual, verify } from 'node:crypto';

/**
 * Who a request speaks for, judged the way GitHub does: the App itself with
 * a JWT it signed (only for /app routes), or an installation with a token
 * from POST /app/installations/{id}/access_tokens.
 */
export type Caller = { kind: 'app' } | { kind: 'installation'; token: string };

export type Identification = { caller: Caller } | { failure: string };

/** GitHub's tokens: a `ghs_` prefix and 36 base62 characters. */
const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const TOKEN_LIFETIME_MS = 60 * 60 * 1000;
/** GitHub refuses App JWTs that live longer than ten minutes. */
const MAX_JWT_LIFETIME_SECONDS = 10 * 60;
/** Allowance for clocks that differ, as GitHub gives. */
const CLOCK_SKEW_SECONDS = 60;

export function newInstallationToken(): { token: string; expiresAt: number } {
  const bytes = randomBytes(36);
  const token = `ghs_${Array.from(bytes, (byte) => TOKEN_ALPHABET[byte % TOKEN_ALPHABET.length]).join('')}`;
  return { token, expiresAt: Date.now() + TOKEN_LIFETIME_MS };
}

export interface AuthSettings {
  appId: number;
  publicKey: KeyObject;
  /** Issued installation tokens and when each expires (epoch ms). */
  tokens: ReadonlyMap<string, number>;
}

/** Reads an `Authorization` header: `Bearer <JWT>`, or `token`/`Bearer` with an installation token. */
export function identify(header: string | undefined, settings: AuthSettings): Identification {
  if (header === undefined || header === '') return { failure: 'Requires authentication' };
  const match = /^(bearer|token)\s+(\S+)$/i.exec(header.trim());
  if (match === null) return { failure: 'Bad credentials (unknown authorization scheme)' };
  const credential = match[2] ?? '';
  if (looksLikeJwt(credential)) {
    const problem = jwtProblem(credential, settings.appId, settings.publicKey);
    return problem === undefined ? { caller: { kind: 'app' } } : { failure: problem };
  }
  const expiresAt = settings.tokens.get(credential);
  if (expiresAt === undefined) return { failure: 'Bad credentials (a token the stand-in never issued)' };
  if (expiresAt <= Date.now()) return { failure: 'Bad credentials (the installation token has expired)' };
  return { caller: { kind: 'installation', token: credential } };
}

/** The installation token in git's `Basic x-access-token:<token>`, or undefined. */
export function gitToken(
  header: string | undefined,
  tokens: ReadonlyMap<string, number>,
): string | undefined {
  const match = /^basic\s+(\S+)$/i.exec(header?.trim() ?? '');
  if (match === null) return undefined;
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const token = decoded.slice(decoded.indexOf(':') + 1);
  const expiresAt = tokens.get(token);
  return expiresAt !== undefined && expiresAt > Date.now() ? token : undefined;
}

function looksLikeJwt(credential: string): boolean {
  return credential.split('.').length === 3 && credential.startsWith('eyJ');
}

/** Why GitHub would refuse this App JWT, in its words where known; undefined when it is good. */
export function jwtProblem(jwt: string, appId: number, publicKey: KeyObject): string | undefined {
  const [header = '', payload = '', signature = ''] = jwt.split('.');
  const parsedHeader = parseSegment(header);
  const claims = parseSegment(payload);
  if (parsedHeader === undefined || claims === undefined) return 'A JSON web token could not be decoded';
  if (parsedHeader.alg !== 'RS256')
    return `The JWT must be signed with RS256, not ${String(parsedHeader.alg)}`;
  const signed = verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    publicKey,
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) return "A JSON web token could not be decoded (the signature is not the App's key)";
  // Probot sends the id as a number, some clients as a string; GitHub takes either.
  if (String(claims.iss) !== String(appId)) return `'Issuer' claim ('iss') must be the App id ${appId}`;
  const now = Math.floor(Date.now() / 1000);
  const { exp, iat } = claims;
  if (typeof exp !== 'number' || exp <= now) {
    return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires";
  }
  if (exp > now + MAX_JWT_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS) {
    return "'Expiration time' claim ('exp') is too far in the future";
  }
  if (typeof iat !== 'number' || iat > now + CLOCK_SKEW_SECONDS) {
    return "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued";
  }
  return undefined;
}

function parseSegment(segment: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Signs the log download URLs the way GitHub's storage host expects a
 * signature: anyone holding the URL may read the log until it expires, and
 * no one can make one up.
 */
export class UrlSigner {
  private readonly key = randomBytes(32);

  sign(subject: string, expiresAt: number): string {
    return createHmac('sha256', this.key).update(`${subject}:${expiresAt}`).digest('base64url');
  }

  verify(subject: string, expiresAt: number, signature: string): boolean {
    if (!Number.isFinite(expiresAt) || expiresAt < Date.now()) return false;
    const expected = Buffer.from(this.sign(subject, expiresAt));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
