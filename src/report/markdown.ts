import { clip, oneLine } from './format.js';
import { BODY_BUDGET, type BodyPart, fitBody, GITHUB_BODY_LIMIT, hardLimit, type Section } from './limits.js';
import type { Redactor } from './redact.js';
import { codeBlock, escapeHtml, inlineCode, sanitizeProse, ZERO_WIDTH_JOINER } from './sanitize.js';

/**
 * The only way renderers put text they did not write into a body: each
 * method redacts first (so no cut can leave half a secret behind), then
 * sanitises for where the text goes. `body` redacts the finished body once
 * more, so even a template that forgot a method cannot leak a secret.
 */
export class MarkdownWriter {
  constructor(private readonly redactor: Redactor) {}

  redact(text: string): string {
    return this.redactor.redact(text);
  }

  /** A paragraph of model prose, kept whole: for text the loop already bounds. */
  prose(text: string): string {
    return sanitizeProse(this.redact(text).trim());
  }

  /** Prose that may be long; cut last of all. */
  proseSection(text: string): Section {
    return { cut: 'prose', text: this.redact(text).trim(), render: sanitizeProse };
  }

  /** One line of prose (a list item, a heading), whitespace collapsed and clipped. */
  line(text: string, maxChars = 300): string {
    const line = oneLine(this.redact(text), maxChars);
    // A line starting like a fence or a heading would turn the list item it sits in into one.
    return sanitizeProse(/^(?:`{3}|~{3}|#)/.test(line) ? `${ZERO_WIDTH_JOINER}${line}` : line);
  }

  /** Inline code, e.g. a command; on one line and clipped. */
  code(text: string, maxChars = 200): string {
    return inlineCode(clip(this.redact(text).replace(/\s+/g, ' ').trim(), maxChars));
  }

  /** Text for inside `<summary>` and other HTML, where Markdown does not apply. */
  html(text: string, maxChars = 200): string {
    return escapeHtml(oneLine(this.redact(text), maxChars));
  }

  /** A fenced block kept whole: for short text such as tool arguments. */
  block(text: string, language = ''): string {
    return codeBlock(this.redact(text), language);
  }

  /** Command output: cut first, keeping its head, its tail and its error lines. */
  output(text: string): Section {
    return { cut: 'output', text: this.redact(text), render: (shown) => codeBlock(shown, 'text') };
  }

  /** A unified diff, cut after outputs. */
  diff(text: string): Section {
    return { cut: 'diff', text: this.redact(text), render: (shown) => codeBlock(shown, 'diff') };
  }

  /** A tool result or a raw model answer, cut after diffs. */
  detail(text: string, language = ''): Section {
    return { cut: 'detail', text: this.redact(text), render: (shown) => codeBlock(shown, language) };
  }

  /** The finished body: sections cut to fit, then redacted as a whole. */
  body(parts: readonly BodyPart[], budget = BODY_BUDGET, limit = GITHUB_BODY_LIMIT): string {
    return hardLimit(this.redact(fitBody(parts, budget, limit)), limit);
  }
}

/**
 * A collapsed section; the blank lines let GitHub render the Markdown
 * inside. `summaryHtml` is HTML: build it with `MarkdownWriter.html`.
 */
export function details(summaryHtml: string, content: readonly BodyPart[], open = false): BodyPart[] {
  return [
    `<details${open ? ' open' : ''}><summary>${summaryHtml}</summary>\n\n`,
    ...content,
    '\n\n</details>\n\n',
  ];
}

/**
 * URLs come from the App's own API calls, but a stray space or parenthesis
 * would still break the link syntax: anything unexpected is left unlinked.
 */
export function safeUrl(url: string | null | undefined): string | null {
  if (!url || !/^https?:\/\/[^\s<>()[\]"'`]+$/.test(url)) return null;
  return url;
}

/** `[text](url)` when the URL is usable; the text alone otherwise. `text` is Markdown already. */
export function link(text: string, url: string | null | undefined): string {
  const safe = safeUrl(url);
  return safe ? `[${text}](${safe})` : text;
}
