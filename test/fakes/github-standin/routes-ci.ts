import { example, rehome } from './objects.js';
import { commitSuites, workflowRunObject } from './objects-checks.js';
import { commentObject } from './objects-issues.js';
import { json, notFound, numberParam, paginate, type Routes, repositoryOf } from './route.js';

/*
 * What following a fix's CI reads: the runs and check suites of one commit,
 * the workflows a repository has (as GitHub does: the files under
 * .github/workflows on the default branch), and one comment by id.
 */
export const ciRoutes: Routes = {
  'GET /repos/{owner}/{repo}/actions/runs': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      if (repository === undefined) return notFound();
      const sha = call.query.get('head_sha');
      const branch = call.query.get('branch');
      const runs = [...repository.runs.values()]
        .filter(
          (run) => (sha === null || run.headSha === sha) && (branch === null || run.headBranch === branch),
        )
        .reverse();
      const { page, headers } = paginate(call, runs);
      return json(
        200,
        {
          total_count: runs.length,
          workflow_runs: page.map((run) => workflowRunObject(world.state, repository, run)),
        },
        headers,
      );
    },
  },

  'GET /repos/{owner}/{repo}/actions/workflows': {
    auth: 'installation',
    handle: async (call, world) => {
      const repository = repositoryOf(call, world);
      if (repository === undefined) return notFound();
      const head = await world.git.branchSha(repository.fullName, repository.defaultBranch);
      const files = head === null ? [] : await world.git.list(repository.fullName, head, '.github/workflows');
      const workflows = files
        .filter((file) => file.type === 'blob' && /\.ya?ml$/.test(file.path))
        .map((file, index) => {
          const shaped = rehome(
            example('GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}', 200),
            world.state.site,
            repository.fullName,
          );
          const ran = [...repository.runs.values()].find((run) => run.path === file.path);
          const name = file.path.replace(/^.*\//, '');
          return { ...shaped, id: ran?.workflowId ?? index + 1, name, path: file.path, state: 'active' };
        });
      const { page, headers } = paginate(call, workflows);
      return json(200, { total_count: workflows.length, workflows: page }, headers);
    },
  },

  'GET /repos/{owner}/{repo}/commits/{ref}/check-suites': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      if (repository === undefined) return notFound();
      const suites = commitSuites(world.state, repository, call.params.ref ?? '');
      const { page, headers } = paginate(call, suites);
      return json(200, { total_count: suites.length, check_suites: page }, headers);
    },
  },

  'GET /repos/{owner}/{repo}/issues/comments/{comment_id}': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      const id = numberParam(call, 'comment_id');
      const comment = repository?.comments.find((candidate) => candidate.id === id);
      if (repository === undefined || comment === undefined) return notFound();
      return json(200, commentObject(world.state, repository, comment));
    },
  },
};
