const REDACTED = '***';

// Forms of credentials git or curl could echo whatever the secret's value is.
const AUTHORIZATION_VALUE = /(authorization:\s*(?:basic|bearer|token)\s+)\S+/gi;
const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi;

/** Removes the given secrets, any Authorization header value and any URL userinfo from `text`. */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  // Longest first, so that a secret containing another is removed whole.
  for (const secret of [...secrets].sort((left, right) => right.length - left.length)) {
    if (secret.length > 0) result = result.replaceAll(secret, REDACTED);
  }
  return result.replace(AUTHORIZATION_VALUE, `$1${REDACTED}`).replace(URL_USERINFO, `$1${REDACTED}@`);
}
