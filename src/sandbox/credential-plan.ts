import { posix } from 'node:path';
import { stripGitConfig, withoutUserinfo } from './git-config-credentials.js';

/**
 * What a workspace copy leaves out so that no credential a CI runner (or a
 * person) left in the checkout enters a container: files that only ever hold
 * credentials are dropped; files that mix settings and credentials (git's
 * config, `.npmrc`, `.yarnrc.yml`) are copied without the credential lines.
 * Pure: the adapter that copies walks the tree, asks `admit` for each entry,
 * then writes what `rewrites` returns in place of the files held back. The
 * host's checkout is never touched. See docs/sandbox.md#credentials.
 */

/** A credential left out of a workspace copy: the file and what of it (never the value). */
export interface RemovedCredential {
  path: string;
  what: string;
  /** The whole file was left out, rather than some of its lines. */
  dropped: boolean;
}

type Rule = { action: 'drop'; what: string } | { action: 'strip'; strip: Stripper } | null;
type Stripper = (text: string) => { text: string; removed: string[] };

/** Files that hold nothing but credentials, by the end of their path inside the workspace. */
const DROPPED: readonly [RegExp, string][] = [
  [/(^|\/)\.git-credentials$/, "git's stored credentials"],
  [/(^|\/)\.config\/git\/credentials$/, "git's stored credentials"],
  [/(^|\/)[._]netrc$/, 'a netrc file (logins for hosts)'],
  [/(^|\/)\.pypirc$/, 'package index logins (.pypirc)'],
  [/(^|\/)\.docker\/config\.json$/, 'registry logins (docker config)'],
  [/(^|\/)\.aws\/credentials$/, 'AWS credentials'],
  [/(^|\/)application_default_credentials\.json$/, 'Google Cloud credentials'],
  [
    /(^|\/)\.config\/gcloud\/(credentials\.db|access_tokens\.db|legacy_credentials\/.*)$/,
    'gcloud credentials',
  ],
  // google-github-actions/auth writes its credentials file into the workspace by default.
  [/^gha-creds-[^/]*\.json$/, 'Google Cloud credentials (google-github-actions/auth)'],
];

/** git's config files: the repository's own, a worktree's, a submodule's (in .git/modules). */
const GIT_CONFIG = /(^|\/)\.git\/(modules\/.+\/|worktrees\/[^/]+\/)?config(\.worktree)?$/;

export function credentialRule(path: string): Rule {
  for (const [pattern, what] of DROPPED) if (pattern.test(path)) return { action: 'drop', what };
  if (GIT_CONFIG.test(path)) return { action: 'strip', strip: stripGitConfig };
  const name = posix.basename(path);
  if (name === '.npmrc' || name === '.yarnrc') return { action: 'strip', strip: stripNpmrc };
  if (name === '.yarnrc.yml') return { action: 'strip', strip: stripYarnrc };
  return null;
}

/** npm's auth keys, alone or scoped to a registry (`//host/:_authToken`); user name and password go together. */
const NPM_AUTH = /^\s*("?)([^=\s]*:)?(?<key>_authToken|_auth|_password|password|username)\1\s*[=\s]/i;
/** Yarn Berry's auth settings, at the top level or under a registry or scope. */
const YARN_AUTH = /^\s*"?(?<key>npmAuthToken|npmAuthIdent|npmAuthPassword)"?\s*:/;

function stripLines(text: string, credential: RegExp): { text: string; removed: string[] } {
  const removed = new Set<string>();
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    const match = credential.exec(line);
    if (match) {
      removed.add(match.groups?.key ?? 'a login');
      continue;
    }
    const clean = withoutUserinfo(line);
    if (clean !== line) removed.add('the user name and password in a URL');
    kept.push(clean);
  }
  return { text: kept.join('\n'), removed: [...removed] };
}

function stripNpmrc(text: string) {
  return stripLines(text, NPM_AUTH);
}

function stripYarnrc(text: string) {
  return stripLines(text, YARN_AUTH);
}

/**
 * Why copy-back must leave `path` as the host has it, or null: a credential file is never brought back
 * (a model writing one would put it in a pull request), and a file whose login lines the copy-in
 * stripped would come back without them, so the host's copy (and the person's login) is kept.
 */
export function copyBackCredentialRefusal(path: string, hostText: string | null): string | null {
  const rule = credentialRule(path);
  if (rule === null) return null;
  if (rule.action === 'drop')
    return `a credential file (${rule.what}) is never brought back from the sandbox`;
  if (hostText === null || rule.strip(hostText).removed.length === 0) return null;
  return "the checkout's copy holds logins the sandbox never saw; it is left as it is (apply the change by hand)";
}

/** One copy's decisions: built as the copy walks the workspace, read when it ends. */
export class CredentialPlan {
  readonly removed: RemovedCredential[] = [];
  private readonly held: { path: string; strip: Stripper }[] = [];

  /**
   * Whether the copy takes the entry at `path` (relative, `/`-separated) as it is. A regular file
   * to strip is held back for `rewrites`; anything else with such a name (a link, a folder) is
   * copied as it is, since reading through a link could pull in a file from outside the workspace.
   */
  admit(path: string, kind: 'file' | 'other'): boolean {
    const rule = credentialRule(path);
    if (rule === null) return true;
    if (rule.action === 'drop') {
      this.removed.push({ path, what: rule.what, dropped: true });
      return false;
    }
    if (kind !== 'file') return true;
    this.held.push({ path, strip: rule.strip });
    return false;
  }

  /** The held-back files, stripped; `read` gives a file's content (relative path). */
  async rewrites(read: (path: string) => Promise<Buffer>): Promise<{ path: string; content: Buffer }[]> {
    const written: { path: string; content: Buffer }[] = [];
    for (const { path, strip } of this.held) {
      const stripped = strip((await read(path)).toString('utf8'));
      for (const what of stripped.removed) this.removed.push({ path, what, dropped: false });
      written.push({ path, content: Buffer.from(stripped.text) });
    }
    return written;
  }
}

/** The transcript's lines for what a copy left out: the stripped files with what of them, then the dropped ones. */
export function credentialNotes(removed: readonly RemovedCredential[]): string[] {
  const sorted = [...removed].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const stripped = new Map<string, string[]>();
  for (const entry of sorted.filter((entry) => !entry.dropped))
    stripped.set(entry.path, [...(stripped.get(entry.path) ?? []), entry.what]);
  const dropped = sorted.filter((entry) => entry.dropped).map((entry) => entry.path);
  const notes: string[] = [];
  if (stripped.size > 0) {
    const files = [...stripped].map(([path, what]) => `${path} (${what.join(', ')})`);
    notes.push(
      `credentials stripped from the workspace copy (the checkout is unchanged): ${files.join('; ')}`,
    );
  }
  if (dropped.length > 0)
    notes.push(`credential files left out of the workspace copy: ${dropped.join(', ')}`);
  return notes;
}
