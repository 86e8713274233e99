import { ConfiguredValues } from './configured-values.js';
import { credentialRanges, privateKeyRanges } from './credential-patterns.js';
import { maskedKeyRanges, wordAfterTokenRanges } from './echo-patterns.js';
import { type Range, secretlintRanges } from './secretlint-scan.js';

/**
 * The project's one redactor: everything posted to GitHub, written to a log
 * or carried in an error removes secrets through it. It hides
 * - the values the job knows it uses (installation token, API keys, the
 *   repository's `secret_env` values) in every form they take in output
 *   (see `ConfiguredValues`),
 * - the credential shapes of secretlint's recommended preset (see
 *   `secretlintRanges`), plus the few it lacks (`credentialRanges`),
 * - private key blocks,
 * - and, for a server's error text only, what that server may echo of a
 *   credential (`EchoRules`).
 * Every finder reports ranges in the original text; overlapping ranges are
 * merged and each becomes one `[REDACTED]`, so no finder can see, or undo,
 * another's replacement. Why this is synchronous: docs/redaction.md.
 */
export const REDACTED = '[REDACTED]';

/** What else to hide in the error text of a server we sent a credential to (see echo-patterns.ts). */
export interface EchoRules {
  /** GitHub's: the word after `token` or `bearer`. */
  wordAfterToken?: boolean;
  /** A model server's: `sk-` keys however masked (`sk-****abcd`), and the secrets as written down to 4 characters. */
  maskedKeys?: boolean;
}

export class Redactor {
  private readonly values: ConfiguredValues;
  /** The secrets as given, for the echo rules that look for them as written. */
  private readonly written: string[];

  /** `secrets`: values in use by the job; empty, missing and short values are ignored (but see `EchoRules`). */
  constructor(
    secrets: Iterable<string | null | undefined> = [],
    private readonly echoes: EchoRules = {},
  ) {
    this.written = [...secrets].filter((secret): secret is string => Boolean(secret));
    this.values = new ConfiguredValues(this.written);
  }

  /** A redactor for text known to hold nothing of the job's own (tests, the CLI on local files). */
  static readonly none = new Redactor();

  redact(text: string): string {
    return replaceRanges(text, this.ranges(text));
  }

  /** The merged ranges to hide in `text`, sorted and disjoint. */
  ranges(text: string): Range[] {
    return merge([
      ...this.values.ranges(text),
      ...privateKeyRanges(text),
      ...secretlintRanges(text),
      ...credentialRanges(text),
      ...(this.echoes.wordAfterToken ? wordAfterTokenRanges(text) : []),
      ...(this.echoes.maskedKeys ? maskedKeyRanges(text, this.written) : []),
    ]);
  }
}

function merge(ranges: Range[]): Range[] {
  const sorted = ranges.filter(([start, end]) => end > start).sort((left, right) => left[0] - right[0]);
  const merged: [number, number][] = [];
  for (const [start, end] of sorted) {
    const last = merged.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** `ranges` sorted and disjoint, as `merge` returns them. */
function replaceRanges(text: string, ranges: readonly Range[]): string {
  if (ranges.length === 0) return text;
  const pieces: string[] = [];
  let position = 0;
  for (const [start, end] of ranges) {
    pieces.push(text.slice(position, start), REDACTED);
    position = end;
  }
  pieces.push(text.slice(position));
  return pieces.join('');
}
