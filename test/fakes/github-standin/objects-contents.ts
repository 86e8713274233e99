import type { TreeEntry } from './git-repositories.js';
import { example, type Json, rehome } from './objects.js';
import type { RepositoryState, StandinState } from './state.js';

/** Over this size the contents API leaves `content` empty and says `encoding: none`. */
export const INLINE_CONTENT_LIMIT = 1024 * 1024;

const FILE_MODES: Record<string, 'symlink' | undefined> = { '120000': 'symlink' };

/** The fields every kind of content entry has: name, path, sha, size and the links. */
function entryFields(state: StandinState, repository: RepositoryState, entry: TreeEntry, ref: string): Json {
  const { site } = state;
  const kind = contentType(entry);
  const self = `${site.apiUrl}/repos/${repository.fullName}/contents/${entry.path}?ref=${encodeURIComponent(ref)}`;
  const git = `${site.apiUrl}/repos/${repository.fullName}/git/${entry.type === 'tree' ? 'trees' : 'blobs'}/${entry.sha}`;
  const html = `${site.webUrl}/${repository.fullName}/${entry.type === 'tree' ? 'tree' : 'blob'}/${ref}/${entry.path}`;
  return {
    type: kind,
    size: entry.size ?? 0,
    name: entry.path.split('/').pop() ?? entry.path,
    path: entry.path,
    sha: entry.sha,
    url: self,
    git_url: git,
    html_url: html,
    download_url: kind === 'file' ? `${site.webUrl}/${repository.fullName}/raw/${ref}/${entry.path}` : null,
    _links: { self, git, html },
  };
}

function contentType(entry: TreeEntry): 'file' | 'dir' | 'symlink' | 'submodule' {
  if (entry.type === 'tree') return 'dir';
  if (entry.type === 'commit') return 'submodule';
  return FILE_MODES[entry.mode] ?? 'file';
}

/** A file with its content in base64, wrapped at 60 characters as GitHub does. */
export function fileObject(
  state: StandinState,
  repository: RepositoryState,
  entry: TreeEntry,
  ref: string,
  content: Buffer,
): Json {
  const inline = content.length <= INLINE_CONTENT_LIMIT;
  return {
    ...rehome(example('GET /repos/{owner}/{repo}/contents/{path}', 200), state.site, repository.fullName),
    ...entryFields(state, repository, entry, ref),
    encoding: inline ? 'base64' : 'none',
    content: inline ? (content.toString('base64').match(/.{1,60}/g) ?? []).join('\n') : '',
  };
}

export function symlinkObject(
  state: StandinState,
  repository: RepositoryState,
  entry: TreeEntry,
  ref: string,
  target: string,
): Json {
  return { ...entryFields(state, repository, entry, ref), target };
}

export function submoduleObject(
  state: StandinState,
  repository: RepositoryState,
  entry: TreeEntry,
  ref: string,
): Json {
  return { ...entryFields(state, repository, entry, ref), submodule_git_url: '' };
}

/** A directory: its entries without content. */
export function directoryObject(
  state: StandinState,
  repository: RepositoryState,
  entries: TreeEntry[],
  ref: string,
): Json[] {
  return entries.map((entry) => entryFields(state, repository, entry, ref));
}
