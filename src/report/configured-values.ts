import type { Range } from './secretlint-scan.js';

/** Shorter values are too likely to be ordinary words or numbers to replace everywhere. */
const MIN_SECRET_LENGTH = 8;

/**
 * Whitespace allowed between two characters of a configured value: enough
 * for a line wrapped by a terminal, `base64`'s 76-column lines or an indented
 * continuation, and bounded so a match never scans far.
 */
const BREAK = '\\s{0,16}';

/** Values longer than this are matched only as written: a split-tolerant pattern per character would be large. */
const MAX_SPLIT_LENGTH = 512;

/**
 * The forms a value the job knows takes in output: as written, percent-encoded
 * (pasted into a URL), JSON-escaped, and base64 at each of the three byte
 * alignments it can have inside a longer encoded string (`user:password` in a
 * Basic header, a token inside a config blob), standard and URL-safe, and reversed. Each
 * form may also be broken by whitespace (a wrapped line). All of them go into
 * one alternation, longest first, so one pass over the text finds them all.
 */
export class ConfiguredValues {
  private readonly pattern: RegExp | null;

  constructor(values: Iterable<string | null | undefined>) {
    const forms = new Set<string>();
    for (const value of values) {
      if (!value || value.length < MIN_SECRET_LENGTH) continue;
      for (const form of formsOf(value)) if (form.length >= MIN_SECRET_LENGTH) forms.add(form);
    }
    const sorted = [...forms].sort((left, right) => right.length - left.length);
    this.pattern = sorted.length > 0 ? new RegExp(sorted.map(splitTolerant).join('|'), 'g') : null;
  }

  ranges(text: string): Range[] {
    if (!this.pattern) return [];
    const ranges: Range[] = [];
    this.pattern.lastIndex = 0;
    for (const match of text.matchAll(this.pattern))
      ranges.push([match.index, match.index + match[0].length]);
    return ranges;
  }
}

function formsOf(value: string): string[] {
  const forms = [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)];
  forms.push(forms[1]!.replace(/%[0-9A-F]{2}/g, (percent) => percent.toLowerCase()));
  // Reversed (`| rev`): the cheapest way a command could carry a value past a redactor of its plain forms.
  forms.push([...value].reverse().join(''));
  const bytes = Buffer.from(value, 'utf8');
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Only the characters made of the value's bits alone: the first ones also carry the unknown prefix's, the last the suffix's.
    const core = encoded.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6));
    forms.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return forms;
}

function splitTolerant(form: string): string {
  if (form.length > MAX_SPLIT_LENGTH) return escapeRegExp(form);
  // The value's own blanks are left to the breaks between its other characters (any run of up to 16
  // blanks, its own among them). A blank beside a break made the pattern ambiguous: a repository's
  // secret of a few spaces and a word backtracked for seconds over a run of spaces in the output.
  const characters = [...form].filter((character) => !BLANK.test(character));
  if (characters.length < MIN_SECRET_LENGTH) return escapeRegExp(form);
  return characters.map(escapeRegExp).join(BREAK);
}

const BLANK = /\s/;

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}
