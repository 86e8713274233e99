import webhookExamples from '@octokit/webhooks-examples/api.github.com/index.json' with { type: 'json' };

/**
 * Webhook payloads as GitHub sends them: GitHub's own examples
 * (@octokit/webhooks-examples) with the repository, people, numbers and
 * commits of the stand-in's state written over them.
 */
export type Json = Record<string, unknown>;

export interface PayloadRepository {
  id: number;
  owner: string;
  name: string;
  fullName: string;
  cloneUrl: string;
  defaultBranch: string;
}

function example(event: string, action: string): Json {
  const entry = (webhookExamples as unknown as { name: string; examples: Json[] }[]).find(
    (candidate) => candidate.name === event,
  );
  const found = entry?.examples.find((candidate) => candidate.action === action);
  if (!found) throw new Error(`no ${event}.${action} example in @octokit/webhooks-examples`);
  return structuredClone(found);
}

export function user(login: string, id = 1000 + login.length): Json {
  const type = login.endsWith('[bot]') ? 'Bot' : 'User';
  return {
    ...(example('issue_comment', 'created').sender as Json),
    login,
    id,
    type,
    html_url: `https://github.com/${login}`,
  };
}

export function repositoryPayload(repo: PayloadRepository): Json {
  const base = example('issue_comment', 'created').repository as Json;
  return {
    ...base,
    id: repo.id,
    name: repo.name,
    full_name: repo.fullName,
    owner: { ...(base.owner as Json), login: repo.owner },
    private: false,
    fork: false,
    clone_url: repo.cloneUrl,
    default_branch: repo.defaultBranch,
    html_url: `https://github.com/${repo.fullName}`,
  };
}

function envelope(repo: PayloadRepository, installationId: number, sender: string): Json {
  return {
    repository: repositoryPayload(repo),
    sender: user(sender),
    installation: { id: installationId, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNzc=' },
  };
}

/** `issue_comment.created` on issue `issue.number`. */
export function issueCommentPayload(
  repo: PayloadRepository,
  installationId: number,
  issue: { number: number; title: string; body: string; user: string },
  comment: { id: number; body: string; user: string },
): Json {
  const base = example('issue_comment', 'created');
  return {
    ...base,
    ...envelope(repo, installationId, comment.user),
    issue: {
      ...(base.issue as Json),
      number: issue.number,
      title: issue.title,
      body: issue.body,
      user: user(issue.user),
      pull_request: undefined,
      state: 'open',
    },
    comment: { ...(base.comment as Json), id: comment.id, body: comment.body, user: user(comment.user) },
  };
}

/** A pull request as a workflow run lists it: its number, head and base (here the same repository's). */
const pullRequestStub = {
  id: 1,
  url: 'https://api.github.com/repos/o/r/pulls/1',
  head: {
    ref: 'selfdebug/x',
    sha: '0'.repeat(40),
    repo: { id: 1, url: 'https://api.github.com/repos/o/r', name: 'r' },
  },
  base: {
    ref: 'main',
    sha: '0'.repeat(40),
    repo: { id: 1, url: 'https://api.github.com/repos/o/r', name: 'r' },
  },
};

/** `workflow_run.completed`, with conclusion failure unless `run.conclusion` says otherwise. */
export function workflowRunPayload(
  repo: PayloadRepository,
  installationId: number,
  run: {
    id: number;
    name: string;
    path: string;
    headBranch: string;
    headSha: string;
    actor: string;
    conclusion?: 'success' | 'failure';
    /** The pull requests whose head the run ran on (GitHub lists those of the same repository). */
    pullRequests?: number[];
  },
): Json {
  const base = example('workflow_run', 'completed');
  const baseRun = base.workflow_run as Json;
  const repository = repositoryPayload(repo);
  return {
    ...base,
    ...envelope(repo, installationId, run.actor),
    workflow: { ...(base.workflow as Json), name: run.name, path: run.path },
    workflow_run: {
      ...baseRun,
      id: run.id,
      name: run.name,
      path: run.path,
      head_branch: run.headBranch,
      head_sha: run.headSha,
      event: 'push',
      status: 'completed',
      conclusion: run.conclusion ?? 'failure',
      run_attempt: 1,
      pull_requests: (run.pullRequests ?? []).map((number) => ({ ...pullRequestStub, number })),
      actor: user(run.actor),
      triggering_actor: user(run.actor),
      repository,
      head_repository: repository,
    },
  };
}

/** `check_suite.completed` of another app's suite on `suite.headSha`; GitHub sends no sender for it but a ghost. */
export function checkSuitePayload(
  repo: PayloadRepository,
  installationId: number,
  suite: {
    id: number;
    app: { slug: string; name: string };
    headBranch: string;
    headSha: string;
    conclusion: 'success' | 'failure';
  },
): Json {
  const base = example('check_suite', 'completed');
  const baseSuite = base.check_suite as Json;
  return {
    ...base,
    ...envelope(repo, installationId, 'ghost'),
    check_suite: {
      ...baseSuite,
      id: suite.id,
      head_branch: suite.headBranch,
      head_sha: suite.headSha,
      status: 'completed',
      conclusion: suite.conclusion,
      app: { ...(baseSuite.app as Json), slug: suite.app.slug, name: suite.app.name },
      pull_requests: [],
    },
  };
}

/** `pull_request_review.submitted` on pull request `pull.number`. */
export function reviewPayload(
  repo: PayloadRepository,
  installationId: number,
  pull: { number: number; headRef: string; headSha: string; baseRef: string; author: string },
  review: { id: number; state: 'changes_requested' | 'commented'; body: string; user: string },
): Json {
  const base = example('pull_request_review', 'submitted');
  const basePull = base.pull_request as Json;
  const repository = repositoryPayload(repo);
  return {
    ...base,
    ...envelope(repo, installationId, review.user),
    review: {
      ...(base.review as Json),
      id: review.id,
      body: review.body,
      state: review.state,
      user: user(review.user),
      commit_id: pull.headSha,
    },
    pull_request: {
      ...basePull,
      number: pull.number,
      user: user(pull.author),
      head: { ...(basePull.head as Json), ref: pull.headRef, sha: pull.headSha, repo: repository },
      base: { ...(basePull.base as Json), ref: pull.baseRef, repo: repository },
    },
  };
}
