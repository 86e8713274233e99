import { isObject, labelObject, reactionObject } from './objects.js';
import { commentObject, issueObject } from './objects-issues.js';
import {
  type ApiCall,
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
import type { RepositoryState } from './state.js';

/**
 * GitHub's limit on issue, pull request and comment bodies. Counted in
 * UTF-16 code units, the stricter reading, which is also how the App
 * measures its bodies (src/report/limits.ts).
 */
export const BODY_LIMIT = 65_536;

export function bodyTooLong(resource: string, body: string): Reply | undefined {
  if (body.length <= BODY_LIMIT) return undefined;
  return validationFailed([
    {
      resource,
      code: 'custom',
      field: 'body',
      message: `body is too long (maximum is ${BODY_LIMIT} characters)`,
    },
  ]);
}

export const issueRoutes: Routes = {
  'GET /repos/{owner}/{repo}/issues/{issue_number}': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      const issue = repository?.issues.get(numberParam(call, 'issue_number'));
      if (repository === undefined || issue === undefined) return notFound();
      return json(200, issueObject(world.state, repository, issue));
    },
  },

  'GET /repos/{owner}/{repo}/issues/{issue_number}/comments': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      const number = numberParam(call, 'issue_number');
      if (repository === undefined || !repository.issues.has(number)) return notFound();
      const since = call.query.get('since');
      const comments = repository.comments.filter(
        (comment) => comment.issueNumber === number && (since === null || comment.updatedAt >= since),
      );
      const { page, headers } = paginate(call, comments);
      return json(
        200,
        page.map((comment) => commentObject(world.state, repository, comment)),
        headers,
      );
    },
  },

  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      const number = numberParam(call, 'issue_number');
      if (repository === undefined || !repository.issues.has(number)) return notFound();
      const body = stringField(call, 'body') ?? '';
      const tooLong = bodyTooLong('IssueComment', body);
      if (tooLong !== undefined) return tooLong;
      const comment = world.state.addComment(repository, number, body, world.state.app.botLogin);
      const url = `${world.state.site.apiUrl}/repos/${repository.fullName}/issues/comments/${comment.id}`;
      return json(201, commentObject(world.state, repository, comment), { location: url });
    },
  },

  'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      const id = numberParam(call, 'comment_id');
      const comment = repository?.comments.find((candidate) => candidate.id === id);
      if (repository === undefined || comment === undefined) return notFound();
      const body = stringField(call, 'body') ?? '';
      const tooLong = bodyTooLong('IssueComment', body);
      if (tooLong !== undefined) return tooLong;
      comment.body = body;
      comment.updatedAt = world.state.now();
      return json(200, commentObject(world.state, repository, comment));
    },
  },

  'POST /repos/{owner}/{repo}/issues/{issue_number}/labels': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      const issue = repository?.issues.get(numberParam(call, 'issue_number'));
      if (repository === undefined || issue === undefined) return notFound();
      for (const name of labelNames(call.body)) {
        if (!issue.labels.includes(name)) issue.labels.push(name);
      }
      issue.updatedAt = world.state.now();
      return json(
        200,
        issue.labels.map((name) => labelObject(world.state, repository, name)),
      );
    },
  },

  'POST /repos/{owner}/{repo}/issues/{issue_number}/reactions': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      const number = numberParam(call, 'issue_number');
      if (repository === undefined || !repository.issues.has(number)) return notFound();
      return react(call, world, repository, `issue:${number}`);
    },
  },

  'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      const id = numberParam(call, 'comment_id');
      if (repository === undefined || !repository.comments.some((comment) => comment.id === id))
        return notFound();
      return react(call, world, repository, `comment:${id}`);
    },
  },
};

/** `{ labels: [...] }` or a bare array, each a name or `{ name }`, as GitHub accepts. */
function labelNames(body: unknown): string[] {
  const list = Array.isArray(body) ? body : isObject(body) ? body.labels : undefined;
  if (!Array.isArray(list)) return [];
  return list
    .map((item: unknown) => (typeof item === 'string' ? item : isObject(item) ? item.name : undefined))
    .filter((name): name is string => typeof name === 'string' && name !== '');
}

/** GitHub answers 200 with the existing reaction when the same user reacts the same way again. */
function react(call: ApiCall, world: World, repository: RepositoryState, target: string): Reply {
  const content = stringField(call, 'content') ?? '';
  const user = world.state.app.botLogin;
  const existing = repository.reactions.find(
    (reaction) => reaction.target === target && reaction.content === content && reaction.user === user,
  );
  if (existing !== undefined) return json(200, reactionObject(world.state, existing));
  const reaction = { id: world.state.nextId(), target, content, user, createdAt: world.state.now() };
  repository.reactions.push(reaction);
  return json(201, reactionObject(world.state, reaction));
}
