import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitHubCodeHost } from '../../src/adapters/github/index.js';
import type { CodeHost } from '../../src/code-host/code-host.js';
import { guardCodeHost } from '../../src/jobs/guarded-ports.js';
import { FakeCodeHost, type StoredCheckRun } from '../fakes/fake-code-host.js';
import { standinOctokit } from '../fakes/github-standin/clients.js';
import { GitHubStandin } from '../fakes/github-standin/standin.js';
import { heldLease } from '../fakes/held-lease.js';
import { SqliteCodeHost } from '../queue/fault/sqlite-code-host.js';
import { codeHostContract } from './code-host-contract.js';
import { type CodeHostSubject, REPOSITORY_CONFIG, REPOSITORY_FILES } from './code-host-subject.js';

/** The REST operation behind each CodeHost method the contract withholds a permission from. */
const OPERATIONS = {
  createCheckRun: 'POST /repos/{owner}/{repo}/check-runs',
  createPullRequest: 'POST /repos/{owner}/{repo}/pulls',
} as const;

codeHostContract('GitHubCodeHost over the GitHub stand-in', async () => {
  const standin = await GitHubStandin.start();
  const repository = await standin.createRepository(
    'octo-org',
    'app',
    REPOSITORY_FILES.map((files) => ({ ...files })),
  );
  const { fullName } = repository;
  const octokit = standinOctokit(standin);
  const headSha = repository.commits.at(-1) ?? '';
  return {
    host: new GitHubCodeHost(octokit, { owner: 'octo-org', repo: 'app' }),
    fullName,
    commits: repository.commits,
    hostWithoutConfig: async () => {
      await standin.createRepository('octo-org', 'plain', [{ 'README.md': 'plain\n' }]);
      return new GitHubCodeHost(octokit, { owner: 'octo-org', repo: 'plain' });
    },
    openIssue: async () =>
      standin.createIssue(fullName, { title: 'Broken', body: 'b', user: 'alice' }).number,
    createBranch: (branch, sha) => standin.createBranch(fullName, branch, sha),
    setPermission: (login, role) => standin.setPermission(fullName, login, role),
    withhold: (method, permission) => {
      const operation = OPERATIONS[method];
      standin.withholdPermission(operation, permission);
      return () => standin.withholdPermission(operation, undefined);
    },
    createWorkflowRun: async (jobs) => {
      const run = standin.createWorkflowRun(fullName, {
        workflowName: 'CI',
        path: '.github/workflows/ci.yml',
        headBranch: 'main',
        headSha,
        jobs,
      });
      // The stand-in's own listing names the jobs' ids; the adapter's failedJobs is what is under test.
      const { data } = await octokit.rest.actions.listJobsForWorkflowRun({
        owner: 'octo-org',
        repo: 'app',
        run_id: run.id,
      });
      return {
        runId: run.id,
        jobIds: jobs.map((job) => data.jobs.find((j) => j.name === job.name)?.id ?? 0),
      };
    },
    createReview: async (pullNumber, comments) => {
      const review = standin.createReview(fullName, pullNumber, {
        user: 'alice',
        state: 'changes_requested',
        body: 'Please change',
        comments,
      });
      return { reviewId: review.id };
    },
    comments: (issueNumber) => standin.comments(fullName, issueNumber).map(({ id, body }) => ({ id, body })),
    reactions: () => standin.reactions(fullName).map(({ target, content }) => ({ target, content })),
    pull: (number) => {
      const pull = standin.pulls(fullName).find((candidate) => candidate.number === number);
      return pull && { title: pull.title, body: pull.body, labels: pull.labels };
    },
    checkRun: (id) => {
      const run = standin.checkRuns(fullName).find((candidate) => candidate.id === id);
      if (run === undefined) return undefined;
      const { annotations, ...texts } = run.output;
      return {
        name: run.name,
        headSha: run.headSha,
        status: run.status,
        conclusion: run.conclusion,
        output: { ...texts, annotations: annotations.length },
      };
    },
    problems: () => standin.problems,
    close: () => standin.close(),
  };
});

/** A sha-shaped name for a fake commit. */
function fakeSha(seed: string): string {
  return createHash('sha1').update(seed).digest('hex');
}

/** A check run as the contract reads it, from the fakes' stored form. */
function checkRunView(run: StoredCheckRun | undefined): ReturnType<CodeHostSubject['checkRun']> {
  if (run === undefined) return undefined;
  const { annotations = [], ...texts } = run.output ?? {};
  return {
    name: run.name,
    headSha: run.headSha,
    status: run.status ?? 'queued',
    conclusion: run.conclusion ?? null,
    output: { ...texts, annotations: annotations.length },
  };
}

/** FakeCodeHost, or a wrapper of it: the subject reads and arranges the fake whatever is put around it. */
function fakeSubject(wrap: (host: FakeCodeHost) => Promise<CodeHost>): () => Promise<CodeHostSubject> {
  return async () => {
    const fullName = 'octo-org/app';
    const host = new FakeCodeHost(fullName);
    const commits = REPOSITORY_FILES.map((_, index) => fakeSha(`commit ${index}`));
    for (const [index, files] of REPOSITORY_FILES.entries()) {
      host.commits.set(commits[index]!, new Map(Object.entries(files)));
    }
    host.branches.set('main', commits.at(-1)!);
    host.config = REPOSITORY_CONFIG;
    let issues = 0;
    let ids = 1;
    return {
      host: await wrap(host),
      fullName,
      commits,
      hostWithoutConfig: async () => wrap(new FakeCodeHost('octo-org/plain')),
      openIssue: async () => ++issues,
      createBranch: async (branch, sha) => {
        host.branches.set(branch, sha);
      },
      setPermission: (login, role) => host.permissions.set(login, role),
      withhold: (method, permission) => {
        host.withheld.set(method, permission);
        return () => host.withheld.delete(method);
      },
      createWorkflowRun: async (jobs) => {
        const runId = ids++;
        const listed = jobs.map((job) => ({ id: ids++, ...job }));
        for (const job of listed) host.logs.set(job.id, job.log);
        host.runs.set(
          runId,
          listed.map(({ id, name, conclusion, steps }) => ({ id, name, conclusion, steps })),
        );
        return { runId, jobIds: listed.map((job) => job.id) };
      },
      createReview: async (_pullNumber, comments) => {
        const reviewId = ids++;
        host.reviews.set(reviewId, comments);
        return { reviewId };
      },
      comments: (issueNumber) =>
        host.comments
          .filter((comment) => comment.issueNumber === issueNumber)
          .map(({ id, body }) => ({ id, body })),
      reactions: () =>
        host.reactions.map(({ target, reaction }) => ({
          target: 'issueNumber' in target ? `issue:${target.issueNumber}` : `comment:${target.commentId}`,
          content: reaction,
        })),
      pull: (number) => {
        const pull = host.pulls.find((candidate) => candidate.number === number);
        return pull && { title: pull.title, body: pull.body, labels: [...pull.labels] };
      },
      checkRun: (id) => checkRunView(host.checkRuns.find((candidate) => candidate.id === id)),
      close: async () => {},
    };
  };
}

codeHostContract(
  'FakeCodeHost',
  fakeSubject(async (host) => host),
);

codeHostContract(
  'guardCodeHost (the worker’s wrapper) over FakeCodeHost',
  fakeSubject(async (host) => guardCodeHost(host, await heldLease())),
);

codeHostContract('SqliteCodeHost (the fault test’s GitHub, shared by worker processes)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'selfdebug-code-host-'));
  const fullName = 'octo-org/app';
  const host = new SqliteCodeHost(join(dir, 'github.db'), fullName);
  const plain = new SqliteCodeHost(join(dir, 'plain.db'), 'octo-org/plain');
  const commits = REPOSITORY_FILES.map((_, index) => fakeSha(`commit ${index}`));
  for (const [index, files] of REPOSITORY_FILES.entries()) host.addCommit(commits[index]!, files);
  host.setSetting('branch:main', commits.at(-1));
  host.setSetting('config', REPOSITORY_CONFIG);
  let issues = 0;
  return {
    host,
    fullName,
    commits,
    hostWithoutConfig: async () => plain,
    openIssue: async () => ++issues,
    createBranch: async (branch, sha) => host.setSetting(`branch:${branch}`, sha),
    setPermission: (login, role) => host.setSetting(`permission:${login}`, role),
    withhold: (method, permission) => {
      host.setSetting(`withheld:${method}`, permission);
      return () => host.deleteSetting(`withheld:${method}`);
    },
    createWorkflowRun: async (jobs) => host.addWorkflowRun(jobs),
    createReview: async (_pullNumber, comments) => ({ reviewId: host.addReview(comments) }),
    comments: (issueNumber) =>
      host
        .comments()
        .filter((comment) => comment.issue === issueNumber)
        .map(({ id, body }) => ({ id, body })),
    reactions: () => host.reactions(),
    pull: (number) => {
      const pull = host.pulls().find((candidate) => candidate.number === number);
      return pull && { title: pull.title, body: pull.body, labels: pull.labels };
    },
    checkRun: (id) => checkRunView(host.checkRuns().find((candidate) => candidate.id === id)),
    close: async () => {
      host.close();
      plain.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
