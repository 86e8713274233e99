import { documentedExample } from '../../helpers/openapi-operations.js';
import type { ReactionState, RepositoryState, Site, StandinState } from './state.js';

/**
 * REST objects start from GitHub's own documented example of the response,
 * which carries every field the schema requires, and then get the fields
 * that matter overridden: ids, numbers, logins, shas, bodies, timestamps
 * and URLs pointing at the stand-in instead of github.com.
 */

export type Json = Record<string, unknown>;

/** GitHub's example body for `METHOD /template` at `status`; a few are wrapped in a stray `{ value }`. */
export function example(name: string, status: number): Json {
  let value = documentedExample(name, status);
  if (isObject(value) && Object.keys(value).length <= 2 && isObject(value.value)) value = value.value;
  if (Array.isArray(value)) value = value[0];
  if (!isObject(value)) throw new Error(`GitHub's example for ${name} ${status} is not an object`);
  return value;
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Applies string replacements to every string inside `value`. */
export function replaceInStrings<T>(value: T, rules: readonly [RegExp, string][]): T {
  const visit = (item: unknown): unknown => {
    if (typeof item === 'string')
      return rules.reduce((text, [pattern, to]) => text.replace(pattern, to), item);
    if (Array.isArray(item)) return item.map(visit);
    if (isObject(item))
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, visit(inner)]));
    return item;
  };
  return visit(value) as T;
}

/**
 * Points an example's URLs at the stand-in, and (given a repository) its
 * repository URLs at that repository, whatever example repository they named.
 */
export function rehome<T>(value: T, site: Site, fullName?: string): T {
  const rules: [RegExp, string][] = [];
  if (fullName !== undefined) {
    rules.push(
      [/https:\/\/api\.github\.com\/repos\/[^/{}?#]+\/[^/{}?#]+/g, `${site.apiUrl}/repos/${fullName}`],
      [
        /https:\/\/github\.com\/(?!apps\/|images\/|orgs\/|organizations\/)[^/{}?#]+\/[^/{}?#]+/g,
        `${site.webUrl}/${fullName}`,
      ],
    );
  }
  rules.push([/https:\/\/api\.github\.com/g, site.apiUrl], [/https:\/\/github\.com/g, site.webUrl]);
  return replaceInStrings(value, rules);
}

/** Node ids are opaque to clients; these only need to be unique and stable. */
export function nodeId(kind: string, id: number): string {
  return Buffer.from(`${kind}:${id}`).toString('base64');
}

export function isBot(login: string): boolean {
  return login.endsWith('[bot]');
}

/** A simple-user; bots link to their App page, as GitHub's do. */
export function userObject(state: StandinState, login: string): Json {
  const id = state.userId(login);
  const api = `${state.site.apiUrl}/users/${encodeURIComponent(login)}`;
  const bot = isBot(login);
  return {
    login,
    id,
    node_id: nodeId(bot ? 'Bot' : 'User', id),
    avatar_url: `${state.site.webUrl}/avatars/u/${id}`,
    gravatar_id: '',
    url: api,
    html_url: bot
      ? `${state.site.webUrl}/apps/${login.replace(/\[bot\]$/, '')}`
      : `${state.site.webUrl}/${encodeURIComponent(login)}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: bot ? 'Bot' : 'User',
    user_view_type: 'public',
    site_admin: false,
  };
}

export function cloneUrlOf(site: Site, fullName: string): string {
  return `${site.webUrl}/${fullName}.git`;
}

/** A full-repository; it has every field of the smaller repository shapes too. */
export function repositoryObject(state: StandinState, repository: RepositoryState): Json {
  const { site } = state;
  const {
    template_repository: _template,
    organization: _organization,
    parent: _parent,
    source: _source,
    temp_clone_token: _cloneToken,
    ...rest
  } = rehome(example('GET /repos/{owner}/{repo}', 200), site, repository.fullName);
  const openIssues = [...repository.issues.values()].filter((issue) => issue.state === 'open').length;
  return {
    ...rest,
    id: repository.id,
    node_id: nodeId('Repository', repository.id),
    name: repository.name,
    full_name: repository.fullName,
    owner: userObject(state, repository.owner),
    private: false,
    description: null,
    fork: false,
    homepage: null,
    language: null,
    license: null,
    forks_count: 0,
    forks: 0,
    stargazers_count: 0,
    watchers_count: 0,
    watchers: 0,
    subscribers_count: 0,
    network_count: 0,
    open_issues_count: openIssues,
    open_issues: openIssues,
    default_branch: repository.defaultBranch,
    clone_url: cloneUrlOf(site, repository.fullName),
    git_url: `git://${site.host}/${repository.fullName}.git`,
    ssh_url: `git@${site.host}:${repository.fullName}.git`,
    svn_url: `${site.webUrl}/${repository.fullName}`,
    mirror_url: null,
    created_at: repository.createdAt,
    updated_at: repository.createdAt,
    pushed_at: repository.createdAt,
  };
}

export function appObject(state: StandinState): Json {
  const { app, site } = state;
  return {
    ...rehome(example('GET /app', 200), site),
    id: app.id,
    slug: app.slug,
    node_id: nodeId('Integration', app.id),
    name: app.slug,
    html_url: `${site.webUrl}/apps/${app.slug}`,
    permissions: {
      checks: 'write',
      contents: 'write',
      issues: 'write',
      pull_requests: 'write',
      actions: 'read',
      metadata: 'read',
    },
    events: ['issue_comment', 'workflow_run', 'pull_request_review', 'push'],
  };
}

export function labelObject(state: StandinState, repository: RepositoryState, name: string): Json {
  const id = labelId(repository, name);
  return {
    id,
    node_id: nodeId('Label', id),
    url: `${state.site.apiUrl}/repos/${repository.fullName}/labels/${encodeURIComponent(name)}`,
    name,
    description: null,
    color: 'ededed',
    default: false,
  };
}

/** The same name always gives the same id within a repository, as a label's id does. */
function labelId(repository: RepositoryState, name: string): number {
  let hash = repository.id;
  for (const character of name) hash = (hash * 31 + (character.codePointAt(0) ?? 0)) % 2_000_000_000;
  return hash;
}

export function reactionObject(state: StandinState, reaction: ReactionState): Json {
  return {
    ...example('POST /repos/{owner}/{repo}/issues/{issue_number}/reactions', 201),
    id: reaction.id,
    node_id: nodeId('Reaction', reaction.id),
    user: userObject(state, reaction.user),
    content: reaction.content,
    created_at: reaction.createdAt,
  };
}

const REACTION_KEYS: Record<string, string> = {
  '+1': '+1',
  '-1': '-1',
  laugh: 'laugh',
  confused: 'confused',
  heart: 'heart',
  hooray: 'hooray',
  eyes: 'eyes',
  rocket: 'rocket',
};

/** The `reactions` roll-up issues and comments carry. */
export function reactionRollup(repository: RepositoryState, target: string, url: string): Json {
  const counts: Json = Object.fromEntries(Object.values(REACTION_KEYS).map((key) => [key, 0]));
  const matching = repository.reactions.filter((reaction) => reaction.target === target);
  for (const reaction of matching) counts[reaction.content] = Number(counts[reaction.content] ?? 0) + 1;
  return { url: `${url}/reactions`, total_count: matching.length, ...counts };
}

/** How GitHub describes an author's relation to a repository. */
export function authorAssociation(repository: RepositoryState, login: string): string {
  if (login === repository.owner) return 'OWNER';
  const role = repository.roles.get(login);
  return role === undefined || role === 'none' ? 'NONE' : 'COLLABORATOR';
}
