import { reviewObject } from './objects-pulls.js';
import {
  bodyObject,
  json,
  notFound,
  numberParam,
  type Reply,
  type Routes,
  repositoryOf,
  validationFailed,
} from './route.js';
import { bodyTooLong } from './routes-issues.js';

/** Creating reviews: the GitHub Action's `suggestions` delivery posts one review with inline suggestions. */
export const reviewRoutes: Routes = {
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
