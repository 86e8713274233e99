import { appObject, example, type Json, nodeId, rehome, repositoryObject, userObject } from './objects.js';
import type {
  CheckRunState,
  CheckSuiteState,
  JobState,
  RepositoryState,
  StandinState,
  WorkflowRunState,
} from './state.js';

export function checkRunObject(state: StandinState, repository: RepositoryState, run: CheckRunState): Json {
  const { site } = state;
  const url = `${site.apiUrl}/repos/${repository.fullName}/check-runs/${run.id}`;
  const { deployment: _deployment, ...shaped } = rehome(
    example('POST /repos/{owner}/{repo}/check-runs', 201),
    site,
    repository.fullName,
  );
  return {
    ...shaped,
    id: run.id,
    node_id: nodeId('CheckRun', run.id),
    head_sha: run.headSha,
    external_id: run.externalId,
    url,
    html_url: `${site.webUrl}/${repository.fullName}/runs/${run.id}`,
    details_url: run.detailsUrl,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    output: {
      title: run.output.title ?? null,
      summary: run.output.summary ?? null,
      text: run.output.text ?? null,
      annotations_count: run.output.annotations.length,
      annotations_url: `${url}/annotations`,
    },
    name: run.name,
    // One suite per head commit is all a check run needs to name.
    check_suite: { id: suiteId(run.headSha) },
    app: appObject(state),
    pull_requests: [],
  };
}

/**
 * The check suites GitHub lists for a commit: one of GitHub Actions per
 * workflow run on it, the App's own (GitHub opens it on every push, since
 * the App may write checks; its runs are the App's check runs on the
 * commit), and the other apps' suites: the ones a test set, and an empty
 * queued one for each other checks app that has none on the commit.
 */
export function commitSuites(state: StandinState, repository: RepositoryState, sha: string): Json[] {
  const actions = [...repository.runs.values()]
    .filter((run) => run.headSha === sha)
    .map((run): CheckSuiteState => {
      const failed = run.jobs.some((job) => job.conclusion === 'failure');
      const { headBranch, headSha } = run;
      const app = { slug: 'github-actions', name: 'GitHub Actions' };
      const conclusion = failed ? 'failure' : 'success';
      return {
        id: suiteId(headSha) + run.runNumber,
        app,
        headBranch,
        headSha,
        status: 'completed',
        conclusion,
        checkRuns: 1,
      };
    });
  const own = [...repository.checkRuns.values()].filter((run) => run.headSha === sha);
  const ownSuite: CheckSuiteState = {
    id: suiteId(sha),
    app: { slug: state.app.slug, name: state.app.slug },
    headBranch: '',
    headSha: sha,
    status: own.length > 0 && own.every((run) => run.status === 'completed') ? 'completed' : 'queued',
    conclusion: null,
    checkRuns: own.length,
  };
  const others = [...repository.suites.values()].filter((suite) => suite.headSha === sha);
  const opened = repository.checkApps
    .filter((app) => !others.some((suite) => suite.app.slug === app.slug))
    .map((app, index): CheckSuiteState => {
      const id = suiteId(sha) + 1000 + index;
      return { id, app, headBranch: '', headSha: sha, status: 'queued', conclusion: null, checkRuns: 0 };
    });
  return [...actions, ownSuite, ...others, ...opened].map((suite) =>
    checkSuiteObject(state, repository, suite),
  );
}

function checkSuiteObject(state: StandinState, repository: RepositoryState, suite: CheckSuiteState): Json {
  const { site } = state;
  const shaped = rehome(
    example('GET /repos/{owner}/{repo}/check-suites/{check_suite_id}', 200),
    site,
    repository.fullName,
  );
  return {
    ...shaped,
    id: suite.id,
    node_id: nodeId('CheckSuite', suite.id),
    head_branch: suite.headBranch,
    head_sha: suite.headSha,
    status: suite.status,
    conclusion: suite.conclusion,
    url: `${site.apiUrl}/repos/${repository.fullName}/check-suites/${suite.id}`,
    // The App's own is the App; any other app gets an id of its own beside it.
    app:
      suite.app.slug === state.app.slug
        ? appObject(state)
        : { ...appObject(state), id: state.app.id + 1, slug: suite.app.slug, name: suite.app.name },
    repository: repositoryObject(state, repository),
    latest_check_runs_count: suite.checkRuns,
    check_runs_url: `${site.apiUrl}/repos/${repository.fullName}/check-suites/${suite.id}/check-runs`,
  };
}

function suiteId(sha: string): number {
  return Number.parseInt(sha.slice(0, 8), 16) || 1;
}

export function workflowRunObject(
  state: StandinState,
  repository: RepositoryState,
  run: WorkflowRunState,
): Json {
  const { site } = state;
  const runUrl = `${site.apiUrl}/repos/${repository.fullName}/actions/runs/${run.id}`;
  const workflowFile = run.path.replace(/^\.github\/workflows\//, '');
  const failed = run.jobs.some((job) => job.conclusion === 'failure');
  const repo = repositoryObject(state, repository);
  const actor = userObject(state, repository.owner);
  const shaped = rehome(
    example('GET /repos/{owner}/{repo}/actions/runs/{run_id}', 200),
    site,
    repository.fullName,
  );
  const headCommit = shaped.head_commit as Json;
  return {
    ...shaped,
    id: run.id,
    name: run.workflowName,
    node_id: nodeId('WorkflowRun', run.id),
    check_suite_id: suiteId(run.headSha),
    check_suite_node_id: nodeId('CheckSuite', suiteId(run.headSha)),
    head_branch: run.headBranch,
    head_sha: run.headSha,
    path: run.path,
    run_number: run.runNumber,
    event: run.event,
    display_title: run.workflowName,
    status: run.running ? 'in_progress' : 'completed',
    conclusion: run.running ? null : failed ? 'failure' : 'success',
    workflow_id: run.workflowId,
    url: runUrl,
    html_url: `${site.webUrl}/${repository.fullName}/actions/runs/${run.id}`,
    pull_requests: [],
    created_at: run.createdAt,
    updated_at: run.createdAt,
    run_started_at: run.createdAt,
    actor,
    triggering_actor: actor,
    run_attempt: 1,
    referenced_workflows: [],
    jobs_url: `${runUrl}/jobs`,
    logs_url: `${runUrl}/logs`,
    check_suite_url: `${site.apiUrl}/repos/${repository.fullName}/check-suites/${suiteId(run.headSha)}`,
    artifacts_url: `${runUrl}/artifacts`,
    cancel_url: `${runUrl}/cancel`,
    rerun_url: `${runUrl}/rerun`,
    previous_attempt_url: null,
    workflow_url: `${site.apiUrl}/repos/${repository.fullName}/actions/workflows/${workflowFile}`,
    head_commit: { ...headCommit, id: run.headSha, timestamp: run.createdAt },
    repository: repo,
    head_repository: repo,
  };
}

export function jobObject(
  state: StandinState,
  repository: RepositoryState,
  run: WorkflowRunState,
  job: JobState,
): Json {
  const { site } = state;
  const runUrl = `${site.apiUrl}/repos/${repository.fullName}/actions/runs/${run.id}`;
  const jobs = example('GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs', 200).jobs;
  const template = rehome(Array.isArray(jobs) ? (jobs[0] as Json) : {}, site, repository.fullName);
  return {
    ...template,
    id: job.id,
    run_id: run.id,
    run_url: runUrl,
    run_attempt: 1,
    node_id: nodeId('WorkflowJob', job.id),
    head_sha: run.headSha,
    head_branch: run.headBranch,
    url: `${site.apiUrl}/repos/${repository.fullName}/actions/jobs/${job.id}`,
    html_url: `${site.webUrl}/${repository.fullName}/actions/runs/${run.id}/job/${job.id}`,
    status: 'completed',
    conclusion: job.conclusion,
    // GitHub's example job lacks `created_at`, which its schema requires.
    created_at: run.createdAt,
    started_at: run.createdAt,
    completed_at: run.createdAt,
    name: job.name,
    steps: job.steps.map((step) => ({
      name: step.name,
      status: step.conclusion === null ? 'queued' : 'completed',
      conclusion: step.conclusion,
      number: step.number,
      started_at: step.conclusion === null ? null : run.createdAt,
      completed_at: step.conclusion === null ? null : run.createdAt,
    })),
    check_run_url: `${site.apiUrl}/repos/${repository.fullName}/check-runs/${job.id}`,
    labels: ['ubuntu-latest'],
    runner_id: 1,
    runner_name: job.runnerName ?? 'GitHub Actions 1',
    runner_group_id: 1,
    runner_group_name: 'GitHub Actions',
    workflow_name: run.workflowName,
  };
}
