/**
 * Removes secrets from text before it is shown on GitHub: the exact values
 * the job knows it uses (installation token, API keys, the repository's
 * `secret_env` values) and the shapes common credentials have. Every
 * pattern starts with a literal and has no nested quantifier, and the
 * private-key scan only moves forward, so megabytes of hostile output cost
 * linear time.
 */
export const REDACTED = '[REDACTED]';

/** Shorter values are too likely to be ordinary words or numbers to replace everywhere. */
export const MIN_SECRET_LENGTH = 8;

interface Pattern {
  regex: RegExp;
  /** What a match becomes; `$1` keeps a harmless part such as a header name or a URL's scheme. */
  replacement: string;
}

// Tokens may follow an underscore (`MY_TOKEN_ghp_…` in dumps), so the start is "no letter or digit before", not \b.
const PATTERNS: readonly Pattern[] = [
  // GitHub: server, personal, OAuth, user-to-server and refresh tokens, and fine-grained PATs.
  { regex: /(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{20,}/g, replacement: REDACTED },
  { regex: /(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{20,}/g, replacement: REDACTED },
  // OpenAI (sk-…, sk-proj-…, sk-svcacct-…) and other providers that copied the shape.
  { regex: /(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{20,}/g, replacement: REDACTED },
  // AWS access key ids; secret keys have no shape of their own, so only assignments are caught.
  { regex: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g, replacement: REDACTED },
  {
    regex: /\b(aws_secret_access_key["']?[ \t]{0,20}[:=][ \t]{0,20}["']?)[A-Za-z0-9/+=]{16,}/gi,
    replacement: `$1${REDACTED}`,
  },
  // Slack bot, app, user, refresh and legacy tokens.
  { regex: /(?<![A-Za-z0-9])xox[baprs]-[A-Za-z0-9-]{10,}/g, replacement: REDACTED },
  // The value of an Authorization header, whatever the scheme's token looks like.
  {
    regex:
      /\b(authorization["']?[ \t]{0,20}[:=][ \t]{0,20}["']?(?:bearer|basic|token|digest)[ \t]{1,20})[^\s"',;]+/gi,
    replacement: `$1${REDACTED}`,
  },
  // Credentials in URLs: scheme://user:password@host keeps the scheme and the host.
  {
    regex: /\b([a-z][a-z0-9+.-]{0,30}:\/\/)[^\s/?#@:"'<>]{1,256}:[^\s/?#@"'<>]{1,1024}@/gi,
    replacement: `$1${REDACTED}@`,
  },
];

const KEY_BEGIN = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
const KEY_END = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;

export class Redactor {
  private readonly secrets: string[];

  /** `secrets`: values in use by the job; empty, missing and short values are ignored. */
  constructor(secrets: Iterable<string | null | undefined> = []) {
    const values = new Set<string>();
    for (const secret of secrets) {
      if (!secret || secret.length < MIN_SECRET_LENGTH) continue;
      values.add(secret);
      // A value pasted into a URL or a query string shows up percent-encoded.
      const encoded = encodeURIComponent(secret);
      if (encoded !== secret) values.add(encoded);
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = [...values].sort((left, right) => right.length - left.length);
  }

  /** A redactor for text known to hold nothing of the job's own (tests, the CLI on local files). */
  static readonly none = new Redactor();

  redact(text: string): string {
    let result = text;
    for (const secret of this.secrets) {
      if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    }
    result = redactPrivateKeys(result);
    for (const { regex, replacement } of PATTERNS) result = result.replace(regex, replacement);
    return result;
  }
}

/**
 * A private key block becomes one redaction. A block without its end line
 * (output cut in the middle of a key) is redacted to the end of the text:
 * the rest of the key is in there.
 */
function redactPrivateKeys(text: string): string {
  if (!text.includes('PRIVATE KEY')) return text;
  const pieces: string[] = [];
  let position = 0;
  for (;;) {
    KEY_BEGIN.lastIndex = position;
    const begin = KEY_BEGIN.exec(text);
    if (!begin) break;
    pieces.push(text.slice(position, begin.index), REDACTED);
    KEY_END.lastIndex = begin.index + begin[0].length;
    const end = KEY_END.exec(text);
    if (!end) {
      position = text.length;
      break;
    }
    position = end.index + end[0].length;
  }
  pieces.push(text.slice(position));
  return pieces.join('');
}
