import type { Redactor } from '../report/index.js';

/** Markup already built by this room; every other value is text to escape. */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Interpolation = SafeHtml | string | number | null | undefined | readonly Interpolation[];
export type HtmlTemplate = (strings: TemplateStringsArray, ...values: Interpolation[]) => SafeHtml;

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character]!);
}

/**
 * The page's one way to write markup: a tagged template whose values go
 * through the project's redactor, then HTML escaping, unless they are
 * SafeHtml built the same way. So no value reaches the page unredacted or
 * unescaped, whatever a repository name, a reason or a link holds.
 */
export function htmlTemplate(redactor: Redactor): HtmlTemplate {
  const render = (value: Interpolation): string => {
    if (value instanceof SafeHtml) return value.text;
    if (Array.isArray(value)) return value.map(render).join('');
    if (value === null || value === undefined) return '';
    return escapeHtml(redactor.redact(String(value)));
  };
  return (strings, ...values) =>
    new SafeHtml(strings.reduce((out, part, index) => out + render(values[index - 1]) + part));
}

/** A link only for http(s) addresses: anything else (javascript:, data:) is shown as nothing. */
export function httpUrl(url: string | null | undefined): string | null {
  return url && /^https?:\/\//i.test(url) ? url : null;
}
