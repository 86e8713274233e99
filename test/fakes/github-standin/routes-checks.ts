import { isObject } from './objects.js';
import { checkRunObject } from './objects-checks.js';
import {
  type ApiCall,
  bodyObject,
  json,
  notFound,
  numberParam,
  type Reply,
  type Routes,
  repositoryOf,
  stringField,
  validationFailed,
  type World,
} from './route.js';
import type { CheckRunState } from './state.js';

/** GitHub takes at most 50 annotations per request; more come in later updates and add up. */
const ANNOTATIONS_PER_REQUEST = 50;
/** `output.summary` and `output.text` each. */
const OUTPUT_TEXT_LIMIT = 65_535;

export const checkRoutes: Routes = {
  'POST /repos/{owner}/{repo}/check-runs': {
    auth: 'installation',
    handle: async (call, world): Promise<Reply> => {
      const repository = repositoryOf(call, world);
      if (repository === undefined) return notFound();
      const headSha = stringField(call, 'head_sha') ?? '';
      const found = /^[0-9a-f]{40}$/.test(headSha)
        ? await world.git.resolveCommit(repository.fullName, headSha)
        : null;
      if (found !== headSha) {
        return validationFailed([
          {
            resource: 'CheckRun',
            field: 'head_sha',
            code: 'invalid',
            message: `No commit found for SHA: ${headSha}`,
          },
        ]);
      }
      const run: CheckRunState = {
        id: world.state.nextId(),
        name: stringField(call, 'name') ?? '',
        headSha,
        status: 'queued',
        conclusion: null,
        detailsUrl: null,
        externalId: null,
        startedAt: stringField(call, 'started_at') ?? world.state.now(),
        completedAt: null,
        output: { annotations: [] },
      };
      const refused = apply(call, world, run);
      if (refused !== undefined) return refused;
      repository.checkRuns.set(run.id, run);
      return json(201, checkRunObject(world.state, repository, run));
    },
  },

  'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      const run = repository?.checkRuns.get(numberParam(call, 'check_run_id'));
      if (repository === undefined || run === undefined) return notFound();
      // GitHub applies an update whole or not at all, so work on a copy.
      const updated = structuredClone(run);
      const refused = apply(call, world, updated);
      if (refused !== undefined) return refused;
      repository.checkRuns.set(run.id, updated);
      return json(200, checkRunObject(world.state, repository, updated));
    },
  },

  'GET /repos/{owner}/{repo}/check-runs/{check_run_id}': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      const run = repository?.checkRuns.get(numberParam(call, 'check_run_id'));
      if (repository === undefined || run === undefined) return notFound();
      return json(200, checkRunObject(world.state, repository, run));
    },
  },
};

/** Applies a create or update body to `run`; returns GitHub's refusal when it would refuse. */
function apply(call: ApiCall, world: World, run: CheckRunState): Reply | undefined {
  const body = bodyObject(call);
  const text = (name: string) => stringField(call, name);
  run.name = text('name') ?? run.name;
  run.detailsUrl = text('details_url') ?? run.detailsUrl;
  run.externalId = text('external_id') ?? run.externalId;
  run.status = text('status') ?? run.status;
  const conclusion = text('conclusion');
  // A conclusion completes the run, whatever status says.
  if (conclusion !== undefined) {
    run.conclusion = conclusion;
    run.status = 'completed';
  }
  if (run.status === 'completed' && run.conclusion === null) {
    return validationFailed([
      {
        resource: 'CheckRun',
        field: 'conclusion',
        code: 'missing_field',
        message: "Conclusion can't be blank",
      },
    ]);
  }
  if (run.status === 'completed')
    run.completedAt = text('completed_at') ?? run.completedAt ?? world.state.now();
  const output = body.output;
  if (isObject(output)) {
    const annotations = Array.isArray(output.annotations) ? output.annotations : [];
    if (annotations.length > ANNOTATIONS_PER_REQUEST) {
      return validationFailed([
        {
          resource: 'CheckRun',
          field: 'output.annotations',
          code: 'custom',
          message: `Only ${ANNOTATIONS_PER_REQUEST} annotations are allowed per request`,
        },
      ]);
    }
    for (const field of ['summary', 'text'] as const) {
      const value = output[field];
      if (typeof value === 'string' && value.length > OUTPUT_TEXT_LIMIT) {
        return validationFailed([
          {
            resource: 'CheckRun',
            field: `output.${field}`,
            code: 'custom',
            message: `${field} is too long (maximum is ${OUTPUT_TEXT_LIMIT} characters)`,
          },
        ]);
      }
    }
    run.output = {
      ...run.output,
      ...(typeof output.title === 'string' ? { title: output.title } : {}),
      ...(typeof output.summary === 'string' ? { summary: output.summary } : {}),
      ...(typeof output.text === 'string' ? { text: output.text } : {}),
      annotations: [...run.output.annotations, ...annotations],
    };
  }
  return undefined;
}
