import { example, rehome } from './objects.js';
import { reviewObject } from './objects-pulls.js';
import {
  bodyObject,
  json,
  notFound,
  numberParam,
  paginate,
  type Reply,
  type Routes,
  repositoryOf,
  validationFailed,
} from './route.js';
import { bodyTooLong } from './routes-issues.js';

/** Creating reviews: the GitHub Action's `suggestions` delivery posts one review with inline suggestions. */
export const reviewRoutes: Routes = {
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/files': {
    auth: 'installation',
    handle: async (call, world): Promise<Reply> => {
      const repository = repositoryOf(call, world);
      const pull = repository?.issues.get(numberParam(call, 'pull_number'))?.pull;
      if (repository === undefined || pull === undefined) return notFound();
      const files = await world.git.changedFiles(
        repository.fullName,
        `refs/heads/${pull.base}`,
        `refs/heads/${pull.head}`,
      );
      const template = rehome(
        example('GET /repos/{owner}/{repo}/pulls/{pull_number}/files', 200),
        world.state.site,
        repository.fullName,
      );
      const { page, headers } = paginate(call, files);
      return json(
        200,
        page.map((file) => ({
          ...template,
          filename: file.path,
          status: file.status,
          additions: file.additions,
          deletions: file.deletions,
          changes: file.additions + file.deletions,
          patch: file.patch,
        })),
        headers,
      );
    },
  },

  'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews': {
    auth: 'installation',
    handle: async (call, world): Promise<Reply> => {
      const repository = repositoryOf(call, world);
      const pullNumber = numberParam(call, 'pull_number');
      const pull = repository?.issues.get(pullNumber)?.pull;
      if (repository === undefined || pull === undefined) return notFound();
      const body = bodyObject(call);
      const text = typeof body.body === 'string' ? body.body : '';
      const tooLong = bodyTooLong('PullRequestReview', text);
      if (tooLong !== undefined) return tooLong;
      const comments = Array.isArray(body.comments) ? body.comments : [];
      const { state } = world;
      const parsed = [];
      for (const comment of comments) {
        const { path, line, body: commentBody } = comment as Record<string, unknown>;
        // GitHub answers 422 for a comment without a line it can place.
        if (typeof path !== 'string' || typeof line !== 'number' || typeof commentBody !== 'string')
          return validationFailed([{ resource: 'PullRequestReviewComment', field: 'line', code: 'invalid' }]);
        parsed.push({ id: state.nextId(), path, line, body: commentBody });
      }
      const headSha = (await world.git.branchSha(repository.fullName, pull.head)) ?? pull.headSha;
      const created = {
        id: state.nextId(),
        pullNumber,
        user: state.app.botLogin,
        state: 'COMMENTED' as const,
        body: text,
        commitId: typeof body.commit_id === 'string' ? body.commit_id : headSha,
        submittedAt: state.now(),
        comments: parsed,
      };
      repository.reviews.push(created);
      return json(200, reviewObject(state, repository, created));
    },
  },
};
