import { pullObject, reviewCommentObjects, reviewObject } from './objects-pulls.js';
import {
  type ApiCall,
  bodyObject,
  json,
  notFound,
  numberParam,
  paginate,
  type Reply,
  type Routes,
  repositoryOf,
  stringField,
  validationFailed,
  type World,
} from './route.js';
import { bodyTooLong } from './routes-issues.js';
import type { IssueState, PullState, RepositoryState } from './state.js';

type PullIssue = IssueState & { pull: PullState };

export const pullRoutes: Routes = {
  'GET /repos/{owner}/{repo}/pulls': {
    auth: 'installation',
    handle: async (call, world): Promise<Reply> => {
      const repository = repositoryOf(call, world);
      if (repository === undefined) return notFound();
      const state = call.query.get('state') ?? 'open';
      const head = call.query.get('head');
      const base = call.query.get('base');
      const matching = pullsOf(repository)
        .filter((pull) => state === 'all' || pull.state === state)
        .filter((pull) => head === null || `${repository.owner}:${pull.pull.head}` === head)
        .filter((pull) => base === null || pull.pull.base === base)
        // Newest first, GitHub's default order.
        .sort((left, right) => right.number - left.number);
      const { page, headers } = paginate(call, matching);
      for (const pull of page) await refreshHead(world, repository, pull);
      return json(
        200,
        page.map((pull) => pullObject(world.state, repository, pull, 'simple')),
        headers,
      );
    },
  },

  'POST /repos/{owner}/{repo}/pulls': {
    auth: 'installation',
    handle: async (call, world): Promise<Reply> => {
      const repository = repositoryOf(call, world);
      if (repository === undefined) return notFound();
      const requested = stringField(call, 'head') ?? '';
      const ownerPrefix = `${repository.owner}:`;
      const head = requested.startsWith(ownerPrefix) ? requested.slice(ownerPrefix.length) : requested;
      const base = stringField(call, 'base') ?? '';
      const body = stringField(call, 'body') ?? '';
      const refused = await refusal(world, repository, head, base, body);
      if (refused !== undefined) return refused;
      const headSha = (await world.git.branchSha(repository.fullName, head)) ?? '';
      const baseSha = (await world.git.branchSha(repository.fullName, base)) ?? '';
      const issue = world.state.addIssue(repository, {
        title: stringField(call, 'title') ?? '',
        body,
        user: world.state.app.botLogin,
        pull: { head, base, headSha, baseSha, draft: bodyObject(call).draft === true },
      });
      if (!isPull(issue)) throw new Error('a new pull request lost its branches');
      const url = `${world.state.site.apiUrl}/repos/${repository.fullName}/pulls/${issue.number}`;
      return json(201, pullObject(world.state, repository, issue, 'full'), { location: url });
    },
  },

  'GET /repos/{owner}/{repo}/pulls/{pull_number}': {
    auth: 'installation',
    handle: async (call, world): Promise<Reply> => {
      const found = pullOf(call, world);
      if (found === undefined) return notFound();
      await refreshHead(world, found.repository, found.pull);
      return json(200, pullObject(world.state, found.repository, found.pull, 'full'));
    },
  },

  'PATCH /repos/{owner}/{repo}/pulls/{pull_number}': {
    auth: 'installation',
    handle: async (call, world): Promise<Reply> => {
      const found = pullOf(call, world);
      if (found === undefined) return notFound();
      const { repository, pull } = found;
      const body = stringField(call, 'body');
      const tooLong = body === undefined ? undefined : bodyTooLong('PullRequest', body);
      if (tooLong !== undefined) return tooLong;
      pull.title = stringField(call, 'title') ?? pull.title;
      pull.body = body ?? pull.body;
      pull.pull.base = stringField(call, 'base') ?? pull.pull.base;
      const state = stringField(call, 'state');
      if (state === 'open' || state === 'closed') {
        pull.state = state;
        pull.closedAt = state === 'closed' ? world.state.now() : null;
      }
      pull.updatedAt = world.state.now();
      await refreshHead(world, repository, pull);
      return json(200, pullObject(world.state, repository, pull, 'full'));
    },
  },

  'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews': {
    auth: 'installation',
    handle: (call, world) => {
      const found = pullOf(call, world);
      if (found === undefined) return notFound();
      const reviews = found.repository.reviews.filter((review) => review.pullNumber === found.pull.number);
      const { page, headers } = paginate(call, reviews);
      return json(
        200,
        page.map((review) => reviewObject(world.state, found.repository, review)),
        headers,
      );
    },
  },

  'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments': {
    auth: 'installation',
    handle: (call, world) => {
      const found = pullOf(call, world);
      const id = numberParam(call, 'review_id');
      const review = found?.repository.reviews.find(
        (candidate) => candidate.id === id && candidate.pullNumber === found.pull.number,
      );
      if (found === undefined || review === undefined) return notFound();
      const { page, headers } = paginate(call, reviewCommentObjects(world.state, found.repository, review));
      return json(200, page, headers);
    },
  },
};

export function pullsOf(repository: RepositoryState): PullIssue[] {
  return [...repository.issues.values()].filter(isPull);
}

function isPull(issue: IssueState | undefined): issue is PullIssue {
  return issue?.pull !== undefined;
}

function pullOf(call: ApiCall, world: World): { repository: RepositoryState; pull: PullIssue } | undefined {
  const repository = repositoryOf(call, world);
  const issue = repository?.issues.get(numberParam(call, 'pull_number'));
  if (repository === undefined || !isPull(issue)) return undefined;
  return { repository, pull: issue };
}

/** A pushed branch moves the pull request's head; a deleted one leaves the last known sha. */
async function refreshHead(world: World, repository: RepositoryState, pull: PullIssue): Promise<void> {
  const sha = await world.git.branchSha(repository.fullName, pull.pull.head);
  if (sha !== null) pull.pull.headSha = sha;
  const baseSha = await world.git.branchSha(repository.fullName, pull.pull.base);
  if (baseSha !== null) pull.pull.baseSha = baseSha;
}

/** GitHub's 422s for a new pull request, in the order it checks. */
async function refusal(
  world: World,
  repository: RepositoryState,
  head: string,
  base: string,
  body: string,
): Promise<Reply | undefined> {
  const tooLong = bodyTooLong('PullRequest', body);
  if (tooLong !== undefined) return tooLong;
  const { git } = world;
  const invalid = (field: string) => validationFailed([{ resource: 'PullRequest', field, code: 'invalid' }]);
  if ((await git.branchSha(repository.fullName, base)) === null) return invalid('base');
  if ((await git.branchSha(repository.fullName, head)) === null) return invalid('head');
  const open = pullsOf(repository).find(
    (pull) => pull.state === 'open' && pull.pull.head === head && pull.pull.base === base,
  );
  if (open !== undefined) {
    return validationFailed([
      {
        resource: 'PullRequest',
        code: 'custom',
        message: `A pull request already exists for ${repository.owner}:${head}.`,
      },
    ]);
  }
  if ((await git.commitsAhead(repository.fullName, `refs/heads/${base}`, `refs/heads/${head}`)) === 0) {
    return validationFailed([
      { resource: 'PullRequest', code: 'custom', message: `No commits between ${base} and ${head}` },
    ]);
  }
  return undefined;
}
