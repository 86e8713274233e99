/**
 * Text written by the model or printed in the sandbox, made safe to embed
 * in the App's Markdown. Nothing it contains may ping people, close issues,
 * fake the App's markers, break out of a code block or a collapsed
 * section, or hide the rest of the comment. Characters are neutralised
 * with an invisible zero-width joiner rather than removed, so the text
 * reads the same.
 */
export const ZERO_WIDTH_JOINER = '\u200D';

/** `@octocat` or `@org/team` would notify; `@\u200Docto` does not. E-mail addresses are left alone. */
export function neutralizeMentions(text: string): string {
  return text.replace(/(?<![A-Za-z0-9_])@(?=[A-Za-z0-9])/g, `@${ZERO_WIDTH_JOINER}`);
}

/**
 * `#12`, `owner/repo#12`, `GH-12` and issue URLs would link, leave a
 * back-reference on the issue, and after `fixes` close it when a pull
 * request merges. redirect.github.com is GitHub's own host for links that
 * must not back-reference.
 */
export function neutralizeReferences(text: string): string {
  return text
    .replace(/#(?=\d)/g, `#${ZERO_WIDTH_JOINER}`)
    .replace(/\bGH-(?=\d)/gi, (match) => `${match}${ZERO_WIDTH_JOINER}`)
    .replace(
      /\bhttps?:\/\/(?:www\.)?github\.com\/(?=[\w.-]{1,100}\/[\w.-]{1,100}\/(?:issues|pull|discussions)\/\d)/gi,
      'https://redirect.github.com/',
    );
}

/**
 * Every HTML tag, comment or declaration becomes plain text: no fake
 * `<!-- selfdebug:… -->` marker, no `</details>` closing our section, no
 * `<!--` hiding everything after it. `a < b` is left as it is.
 */
function neutralizeHtml(text: string): string {
  return text.replace(/<(?=[A-Za-z!?/])/g, `<${ZERO_WIDTH_JOINER}`);
}

/**
 * Inside code, HTML is shown as written, but the raw body is still searched
 * for markers: only comments that could read as one are broken.
 */
function neutralizeMarkers(text: string): string {
  return text.replace(/<!--(?=\s*selfdebug)/gi, `<!${ZERO_WIDTH_JOINER}--`);
}

/** A fence the model opened and never closed would swallow the rest of the comment. */
export function closeOpenFences(text: string): string {
  let open: { character: string; length: number } | null = null;
  for (const line of text.split('\n')) {
    const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (!fence) continue;
    const run = fence[1] ?? '';
    const rest = fence[2] ?? '';
    if (open === null) {
      // A backtick fence's info string may not hold backticks; such a line is inline code.
      if (run[0] === '`' && rest.includes('`')) continue;
      open = { character: run[0] ?? '`', length: run.length };
    } else if (run[0] === open.character && run.length >= open.length && rest.trim() === '') {
      open = null;
    }
  }
  if (open === null) return text;
  return `${text.endsWith('\n') ? text : `${text}\n`}${open.character.repeat(open.length)}`;
}

/** Model prose rendered as Markdown: formatting kept, everything active neutralised. */
export function sanitizeProse(text: string): string {
  return closeOpenFences(neutralizeReferences(neutralizeMentions(neutralizeHtml(text))));
}

/**
 * A plain-text title (pull request, check run): not Markdown, but GitHub
 * still links references in it, and a squash merge copies a pull request's
 * title into the commit, where `fixes #2` would close an issue.
 */
export function sanitizeTitle(text: string): string {
  return neutralizeReferences(neutralizeMentions(neutralizeHtml(text)));
}

/** Text placed inside an HTML element such as `<summary>`, where Markdown does not apply. */
export function escapeHtml(text: string): string {
  const escaped = text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
  return neutralizeReferences(neutralizeMentions(escaped));
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return longest;
}

/**
 * A fenced block nothing inside can close: the fence is longer than any
 * backtick run in the text. Mentions and references inside code never
 * notify, so the text is kept as it is, markers aside.
 */
export function codeBlock(text: string, language = ''): string {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  const info = language.replace(/[^\w+-]/g, '');
  const content = neutralizeMarkers(text);
  const ending = content === '' || content.endsWith('\n') ? '' : '\n';
  return `${fence}${info}\n${content}${ending}${fence}`;
}

/** Inline code on one line, delimited by more backticks than it contains. */
export function inlineCode(text: string): string {
  const content = neutralizeMarkers(text.replace(/\s+/g, (run) => (run.includes('\n') ? ' ' : run)));
  if (content.trim() === '') return '` `';
  const ticks = '`'.repeat(longestBacktickRun(content) + 1);
  const padding = content.startsWith('`') || content.endsWith('`') ? ' ' : '';
  return `${ticks}${padding}${content}${padding}${ticks}`;
}
