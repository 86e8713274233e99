import type { Range } from './secretlint-scan.js';

/**
 * Credential shapes secretlint's recommended preset does not have (JWT,
 * Stripe, Google API keys, Twilio, Azure connection strings, env-style
 * assignments), looser forms of ones it has (it wants GitHub tokens of exactly
 * 36 characters; older and test tokens differ), and the forms git and curl
 * echo (Authorization headers, URL userinfo). Shapes follow gitleaks' rules.
 *
 * Why each is linear on hostile text: every pattern starts with a literal
 * behind a look-behind that excludes the characters of its own body, so runs
 * like `sk-sk-sk-…` start at most one match per run; every other quantifier
 * is bounded or stops at a delimiter the body cannot contain.
 *
 * Group 1, when present, is a harmless prefix kept in the text (a header name,
 * a URL's scheme, a variable name); the rest of the match is hidden.
 */
const PATTERNS: readonly RegExp[] = [
  // GitHub: server, personal, OAuth, user-to-server and refresh tokens, and fine-grained PATs.
  /(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{20,}/g,
  /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{20,}/g,
  // GitLab personal, deploy, runner, OAuth, CI job and feed tokens.
  /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|oas|cbt|ft|soat|imt)-[A-Za-z0-9_-]{20,}/g,
  // npm tokens of any length (the preset wants 36 characters).
  /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{30,}/g,
  // OpenAI (sk-…, sk-proj-…), Anthropic (sk-ant-…) and other providers that copied the shape.
  /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}/g,
  // Stripe secret and restricted keys (publishable pk_ keys are public by design).
  /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,}/g,
  // Google API keys.
  /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}/g,
  // JSON Web Tokens: a header and a payload that both start as a JSON object (`{"` → eyJ), and a signature.
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  // Twilio API keys and SendGrid keys of any segment length.
  /(?<![A-Za-z0-9])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])/g,
  /(?<![A-Za-z0-9])SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g,
  // Slack bot, app, user, refresh and legacy tokens.
  /(?<![A-Za-z0-9-])xox[abeoprs]-[A-Za-z0-9-]{10,}/g,
  // AWS access key ids; secret keys have no shape of their own, so only assignments are caught.
  /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  /\b(aws_secret_access_key["']?[ \t]{0,20}[:=][ \t]{0,20}["']?)[A-Za-z0-9/+=]{16,}/gi,
  // Azure storage and service-bus connection strings and SAS signatures.
  /(?<![A-Za-z0-9])((?:AccountKey|SharedAccessKey|SharedAccessSignature)=)[^\s;"'<>]{8,}/gi,
  /([?&;]sig=)[A-Za-z0-9%+/=]{16,}/g,
  // An environment-style assignment of a secret: `DB_PASSWORD=…`, `export API_TOKEN="…"`. Upper case
  // only, so code such as `token = get_token()` in a transcript stays readable.
  /(?<![A-Za-z0-9_])([A-Z0-9_]{0,40}(?:SECRET|TOKEN|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)["']?[ \t]{0,20}[:=][ \t]{0,20}["']?)[^\s"'`]{8,}/g,
  // The value of an Authorization header, whatever the scheme's token looks like.
  /\b(authorization["']?[ \t]{0,20}[:=][ \t]{0,20}["']?(?:bearer|basic|token|digest)[ \t]{1,20})[^\s"',;]+/gi,
  // Credentials in URLs: scheme://userinfo@host keeps the scheme and the host. As git's errors
  // did, a user name alone is hidden too: a token is often passed as the user.
  /(?<![A-Za-z0-9+.-])([a-z][a-z0-9+.-]{0,30}:\/\/)[^\s/?#@"'<>]{1,1024}(?=@)/gi,
];

/** The ranges every pattern matches in `text`, without the kept prefixes. */
export function credentialRanges(text: string): Range[] {
  const ranges: Range[] = [];
  for (const pattern of PATTERNS) {
    pattern.lastIndex = 0;
    for (const match of text.matchAll(pattern)) {
      const start = match.index + (match[1]?.length ?? 0);
      ranges.push([start, match.index + match[0].length]);
    }
  }
  return ranges;
}

const KEY_BEGIN = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
const KEY_END = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;

/**
 * A private key block is one range. A block without its end line (output
 * cut in the middle of a key) runs to the end of the text: the rest of the
 * key is in there. The scan only moves forward.
 */
export function privateKeyRanges(text: string): Range[] {
  if (!text.includes('PRIVATE KEY')) return [];
  const ranges: Range[] = [];
  let position = 0;
  for (;;) {
    KEY_BEGIN.lastIndex = position;
    const begin = KEY_BEGIN.exec(text);
    if (!begin) break;
    KEY_END.lastIndex = begin.index + begin[0].length;
    const end = KEY_END.exec(text);
    if (!end) {
      ranges.push([begin.index, text.length]);
      break;
    }
    position = end.index + end[0].length;
    ranges.push([begin.index, position]);
  }
  return ranges;
}
