import type { TestedCommit } from './job-view.js';
import { link, type MarkdownWriter } from './markdown.js';

/** How many characters of a SHA people see, as GitHub shows them. */
const SHORT_SHA_LENGTH = 7;

/**
 * The tested commit as "commit [`3484a3f`](…/commit/3484a3f…)": short, and
 * linked to its page when the URL is usable. A SHA that is not hex (it never
 * should be) is still shown, as code.
 */
export function commitLink(commit: TestedCommit, md: MarkdownWriter): string {
  const short = /^[0-9a-f]{7,64}$/i.test(commit.sha)
    ? `\`${commit.sha.slice(0, SHORT_SHA_LENGTH)}\``
    : md.code(commit.sha, 40);
  return `commit ${link(short, commit.url)}`;
}

/** A commit's page from the repository's clone URL (`https://host/owner/name.git`); null for anything else (ssh, credentials). */
export function commitUrl(cloneUrl: string, sha: string): string | null {
  if (!/^[0-9a-f]{7,64}$/i.test(sha)) return null;
  if (!/^https?:\/\/[^\s/@]+\/[^\s@]+$/.test(cloneUrl)) return null;
  return `${cloneUrl.replace(/\/$/, '').replace(/\.git$/, '')}/commit/${sha}`;
}
