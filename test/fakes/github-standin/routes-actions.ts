import type { ServerResponse } from 'node:http';
import { jobObject, workflowRunObject } from './objects-checks.js';
import {
  type ApiCall,
  json,
  notFound,
  numberParam,
  paginate,
  type Routes,
  repositoryOf,
  type World,
} from './route.js';
import type { JobState } from './state.js';

/** How long a log URL works; GitHub's last about a minute, which is too tight for a debugger. */
const LOG_URL_LIFETIME_MS = 10 * 60 * 1000;
export const LOG_PATH = '/_logs/';

export const actionsRoutes: Routes = {
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      const run = repository?.runs.get(numberParam(call, 'run_id'));
      if (repository === undefined || run === undefined) return notFound();
      return json(200, workflowRunObject(world.state, repository, run));
    },
  },

  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      const run = repository?.runs.get(numberParam(call, 'run_id'));
      if (repository === undefined || run === undefined) return notFound();
      // Runs here have a single attempt, so `filter=latest` and `filter=all` list the same jobs.
      const { page, headers } = paginate(call, run.jobs);
      return json(
        200,
        {
          total_count: run.jobs.length,
          jobs: page.map((job) => jobObject(world.state, repository, run, job)),
        },
        headers,
      );
    },
  },

  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs': {
    auth: 'installation',
    handle: (call, world) => {
      const job = findJob(call, world);
      if (job === undefined) return notFound();
      const expires = Date.now() + LOG_URL_LIFETIME_MS;
      const id = String(job.id);
      const location = `${world.state.site.webUrl}${LOG_PATH}${id}?expires=${expires}&sig=${world.signer.sign(id, expires)}`;
      return { status: 302, headers: { location } };
    },
  },
};

function findJob(call: ApiCall, world: World): JobState | undefined {
  const id = numberParam(call, 'job_id');
  for (const run of repositoryOf(call, world)?.runs.values() ?? []) {
    const job = run.jobs.find((candidate) => candidate.id === id);
    if (job !== undefined) return job;
  }
  return undefined;
}

/**
 * The log storage host's side of the redirect: no GitHub token, only the
 * signature in the URL, as on GitHub's storage host. Answers with the status.
 */
export function serveLog(world: World, url: URL, response: ServerResponse): number {
  const id = url.pathname.slice(LOG_PATH.length);
  const job = /^\d+$/.test(id) ? world.state.findJob(Number(id)) : undefined;
  const signed = world.signer.verify(
    id,
    Number(url.searchParams.get('expires')),
    url.searchParams.get('sig') ?? '',
  );
  if (!signed) {
    response
      .writeHead(403, { 'Content-Type': 'application/xml' })
      .end('<Error><Code>AuthenticationFailed</Code></Error>');
    return 403;
  }
  if (job === undefined) {
    response
      .writeHead(404, { 'Content-Type': 'application/xml' })
      .end('<Error><Code>BlobNotFound</Code></Error>');
    return 404;
  }
  response.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': job.log.length });
  response.end(job.log);
  return 200;
}
