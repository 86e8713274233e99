import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubApiError, GitHubNotFoundError } from '../../src/errors/github-errors.js';
import { type CodeHostSubject, REPOSITORY_CONFIG } from './code-host-subject.js';
import { failure } from './failure.js';

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

function annotations(count: number, from = 0) {
  return Array.from({ length: count }, (_, index) => ({
    path: 'src/app.py',
    startLine: from + index + 1,
    endLine: from + index + 1,
    level: 'failure' as const,
    message: `problem ${from + index}`,
  }));
}

/**
 * What the job runner and the handlers rely on from a CodeHost: the GitHub
 * adapter against the stand-in, and the fake the job tests use, must both
 * keep it, so a job test passing on the fake says something about GitHub.
 */
export function codeHostContract(name: string, start: () => Promise<CodeHostSubject>): void {
  describe(`CodeHost contract: ${name}`, () => {
    let subject: CodeHostSubject;
    beforeAll(async () => {
      subject = await start();
    });
    afterAll(async () => {
      await subject?.close();
    });

    describe('comments', () => {
      it('upserts one comment by its marker: created once, then edited in place', async () => {
        const issue = await subject.openIssue();
        const other = await subject.openIssue();
        const marker = '<!-- selfdebug:status job=1 -->';
        const chatter = await subject.host.createComment(issue, 'chatter');
        const elsewhere = await subject.host.createComment(other, `${marker}\nanother issue`);

        const first = await subject.host.upsertComment(issue, marker, `${marker}\nqueued`);
        const second = await subject.host.upsertComment(issue, marker, `${marker}\nrunning`);

        expect(second).toEqual(first);
        expect(first.url).toContain(`/issues/${issue}#issuecomment-${first.id}`);
        expect(subject.comments(issue)).toEqual([
          { id: chatter.id, body: 'chatter' },
          { id: first.id, body: `${marker}\nrunning` },
        ]);
        expect(subject.comments(other)).toEqual([{ id: elsewhere.id, body: `${marker}\nanother issue` }]);
      });

      it('creates a new comment each time, with its own id and link', async () => {
        const issue = await subject.openIssue();
        const one = await subject.host.createComment(issue, 'attempt 1');
        const two = await subject.host.createComment(issue, 'attempt 2');
        expect(two.id).not.toBe(one.id);
        expect(two.url).toContain(`/issues/${issue}#issuecomment-${two.id}`);
        expect(subject.comments(issue).map((comment) => comment.body)).toEqual(['attempt 1', 'attempt 2']);
      });

      it('refuses a body over 65,536 characters with a 422, posting nothing', async () => {
        const issue = await subject.openIssue();
        const refused = await failure(subject.host.createComment(issue, 'x'.repeat(65_537)));
        expect(refused).toBeInstanceOf(GitHubApiError);
        expect(refused).toMatchObject({ status: 422, retryable: false });
        const upserted = await failure(subject.host.upsertComment(issue, '<!-- m -->', 'y'.repeat(65_537)));
        expect(upserted).toMatchObject({ status: 422 });
        expect(subject.comments(issue)).toEqual([]);
        const longest = await subject.host.createComment(issue, 'x'.repeat(65_536));
        expect(subject.comments(issue)).toEqual([{ id: longest.id, body: 'x'.repeat(65_536) }]);
      });

      it('reacts to an issue and to a comment', async () => {
        const issue = await subject.openIssue();
        const comment = await subject.host.createComment(issue, 'on it');
        const before = subject.reactions().length;
        await subject.host.react({ issueNumber: issue }, 'eyes');
        await subject.host.react({ commentId: comment.id }, 'rocket');
        expect(subject.reactions().slice(before)).toEqual([
          { target: `issue:${issue}`, content: 'eyes' },
          { target: `comment:${comment.id}`, content: 'rocket' },
        ]);
      });
    });

    describe('repository', () => {
      it('reads permissions by role, and none for a stranger', async () => {
        subject.setPermission('alice', 'maintain');
        subject.setPermission('carol', 'triage');
        subject.setPermission('dave', 'write');
        expect(await subject.host.permissionOf('alice')).toBe('maintain');
        expect(await subject.host.permissionOf('carol')).toBe('triage');
        expect(await subject.host.permissionOf('dave')).toBe('write');
        expect(await subject.host.permissionOf('mallory')).toBe('none');
      });

      it('reads the commit a branch points at; a missing branch is not found', async () => {
        expect(await subject.host.branchHead('main')).toBe(subject.commits[1]);
        await subject.createBranch('old', subject.commits[0]!);
        expect(await subject.host.branchHead('old')).toBe(subject.commits[0]);
        const missing = await failure(subject.host.branchHead('no-such-branch'));
        expect(missing).toBeInstanceOf(GitHubNotFoundError);
        expect(missing).toMatchObject({ status: 404, retryable: false });
      });

      it('reads a file at a branch or a commit; null for what is not a file there', async () => {
        const [first, second] = subject.commits;
        expect(await subject.host.fileContent('README.md', 'main')).toBe('# app, second\n');
        expect(await subject.host.fileContent('src/app.py', second!)).toBe('print(2)\n');
        expect(await subject.host.fileContent('src/app.py', first!)).toBe('print(1)\n');
        expect(await subject.host.fileContent('.github/selfdebug.yml', first!)).toBeNull();
        expect(await subject.host.fileContent('missing.txt', 'main')).toBeNull();
        expect(await subject.host.fileContent('src', 'main')).toBeNull();
        expect(await subject.host.fileContent('README.md', 'no-such-ref')).toBeNull();
      });

      it('reads .github/selfdebug.yml as parsed YAML, and null where there is none', async () => {
        expect(await subject.host.repoConfigFile()).toEqual(REPOSITORY_CONFIG);
        const plain = await subject.hostWithoutConfig();
        expect(await plain.repoConfigFile()).toBeNull();
      });
    });

    describe('pull requests', () => {
      it('opens one pull request per branch, finds it again, updates and labels it', async () => {
        const [first, second] = subject.commits;
        await subject.createBranch('release', first!);
        await subject.createBranch('selfdebug/fix-1', second!);
        expect(await subject.host.findPullRequest('selfdebug/fix-1')).toBeNull();

        const request = { title: 'Fix app', body: 'Reflected fix', head: 'selfdebug/fix-1', base: 'release' };
        const opened = await subject.host.createPullRequest({ ...request, draft: true });
        expect(opened).toEqual({
          number: expect.any(Number),
          url: expect.stringContaining(`/pull/${opened.number}`),
          head: 'selfdebug/fix-1',
          draft: true,
        });
        expect(await subject.host.findPullRequest('selfdebug/fix-1')).toEqual(opened);
        expect(await subject.host.findPullRequest('selfdebug/other')).toBeNull();

        const again = await failure(subject.host.createPullRequest({ ...request, draft: true }));
        expect(again).toBeInstanceOf(GitHubApiError);
        expect(again).toMatchObject({ status: 422 });

        await subject.host.updatePullRequest(opened.number, { body: 'Reflected fix, updated' });
        await subject.host.addLabels(opened.number, ['selfdebug', 'automated']);
        await subject.host.addLabels(opened.number, []);
        expect(subject.pull(opened.number)).toEqual({
          title: 'Fix app',
          body: 'Reflected fix, updated',
          labels: ['selfdebug', 'automated'],
        });
        await subject.host.updatePullRequest(opened.number, { title: 'Fix app, retitled' });
        expect(subject.pull(opened.number)).toMatchObject({
          title: 'Fix app, retitled',
          body: 'Reflected fix, updated',
        });

        expect(await subject.host.pullRequest(opened.number)).toEqual({
          ...opened,
          headSha: second,
          headRepository: subject.fullName,
          base: 'release',
        });
      });

      it('follows the branch: where the head branch points now is the head sha read next', async () => {
        const [first, second] = subject.commits;
        await subject.createBranch('base-2', first!);
        await subject.createBranch('selfdebug/fix-2', second!);
        const opened = await subject.host.createPullRequest({
          title: 't',
          body: 'b',
          head: 'selfdebug/fix-2',
          base: 'base-2',
          draft: false,
        });
        expect(opened.draft).toBe(false);
        expect((await subject.host.pullRequest(opened.number)).headSha).toBe(second);
        await subject.createBranch('selfdebug/fix-2', first!);
        expect((await subject.host.pullRequest(opened.number)).headSha).toBe(first);
      });

      it('says not found for a pull request that does not exist', async () => {
        const read = await failure(subject.host.pullRequest(999_999));
        expect(read).toBeInstanceOf(GitHubNotFoundError);
        const updated = await failure(subject.host.updatePullRequest(999_999, { body: 'x' }));
        expect(updated).toBeInstanceOf(GitHubNotFoundError);
      });

      it('reads the inline comments of a review; an unknown review is not found', async () => {
        const [first, second] = subject.commits;
        await subject.createBranch('base-3', first!);
        await subject.createBranch('selfdebug/fix-3', second!);
        const opened = await subject.host.createPullRequest({
          title: 't',
          body: 'b',
          head: 'selfdebug/fix-3',
          base: 'base-3',
          draft: false,
        });
        const { reviewId } = await subject.createReview(opened.number, [
          { path: 'src/app.py', line: 1, body: 'print 3 here' },
          { path: 'README.md', line: 1, body: 'and say so' },
        ]);
        expect(await subject.host.reviewComments(opened.number, reviewId)).toEqual([
          { path: 'src/app.py', line: 1, body: 'print 3 here' },
          { path: 'README.md', line: 1, body: 'and say so' },
        ]);
        const missing = await failure(subject.host.reviewComments(opened.number, 999_999));
        expect(missing).toBeInstanceOf(GitHubNotFoundError);
      });
    });

    describe('check runs', () => {
      it('creates a run, then completes it: a conclusion completes it, annotations add up', async () => {
        const headSha = subject.commits[1]!;
        const created = await subject.host.createCheckRun({
          name: 'selfdebug',
          headSha,
          status: 'in_progress',
          output: { title: 'Reproducing', summary: 'Running the command', annotations: annotations(60) },
        });
        expect(created.url).toContain(`/runs/${created.id}`);
        expect(subject.checkRun(created.id)).toEqual({
          name: 'selfdebug',
          headSha,
          status: 'in_progress',
          conclusion: null,
          output: { title: 'Reproducing', summary: 'Running the command', annotations: 60 },
        });

        await subject.host.updateCheckRun(created.id, {
          conclusion: 'success',
          output: { title: 'Fixed', summary: 'All good', text: 'details', annotations: annotations(5, 60) },
        });
        expect(subject.checkRun(created.id)).toEqual({
          name: 'selfdebug',
          headSha,
          status: 'completed',
          conclusion: 'success',
          output: { title: 'Fixed', summary: 'All good', text: 'details', annotations: 65 },
        });
      });

      it('keeps the output when an update only moves the status', async () => {
        const created = await subject.host.createCheckRun({
          name: 'selfdebug',
          headSha: subject.commits[0]!,
          output: { title: 'Queued', summary: 'Waiting for a worker' },
        });
        expect(subject.checkRun(created.id)).toMatchObject({ status: 'queued', conclusion: null });
        await subject.host.updateCheckRun(created.id, { status: 'in_progress' });
        expect(subject.checkRun(created.id)).toMatchObject({
          status: 'in_progress',
          output: { title: 'Queued', summary: 'Waiting for a worker', annotations: 0 },
        });
        await subject.host.updateCheckRun(created.id, { status: 'completed', conclusion: 'neutral' });
        expect(subject.checkRun(created.id)).toMatchObject({ status: 'completed', conclusion: 'neutral' });
      });

      it('says not found when updating a run that does not exist', async () => {
        const missing = await failure(subject.host.updateCheckRun(999_999, { status: 'in_progress' }));
        expect(missing).toBeInstanceOf(GitHubNotFoundError);
      });
    });

    describe('workflow runs', () => {
      it('lists only the failed jobs of the run asked about, with their steps; an unknown run is not found', async () => {
        const steps = [
          { number: 1, name: 'Set up job', conclusion: 'success' as const },
          { number: 2, name: 'Run pytest', conclusion: 'failure' as const },
          { number: 3, name: 'Upload', conclusion: 'skipped' as const },
        ];
        const run = await subject.createWorkflowRun([
          { name: 'lint', conclusion: 'success', steps: steps.slice(0, 1), log: 'ok\n' },
          { name: 'test', conclusion: 'failure', steps, log: 'E   assert 1 == 2\n' },
        ]);
        const other = await subject.createWorkflowRun([
          { name: 'other', conclusion: 'failure', steps, log: 'elsewhere\n' },
        ]);
        expect(await subject.host.failedJobs(run.runId)).toEqual([
          { id: run.jobIds[1], name: 'test', conclusion: 'failure', steps },
        ]);
        expect((await subject.host.failedJobs(other.runId)).map((job) => job.name)).toEqual(['other']);
        const missing = await failure(subject.host.failedJobs(999_999));
        expect(missing).toBeInstanceOf(GitHubNotFoundError);
      });

      it('streams a job’s log; an unknown job is not found', async () => {
        const log = `${'noise\n'.repeat(20_000)}##[error]Process completed with exit code 1.\n`;
        const run = await subject.createWorkflowRun([
          {
            name: 'test',
            conclusion: 'failure',
            steps: [{ number: 1, name: 'Run', conclusion: 'failure' }],
            log,
          },
        ]);
        expect(await text(await subject.host.jobLog(run.jobIds[0]!))).toBe(log);
        const missing = await failure(subject.host.jobLog(999_999));
        expect(missing).toBeInstanceOf(GitHubNotFoundError);
      });
    });

    describe('permissions of the App', () => {
      it('maps a permission the installation lacks to a 403 that names it, not to not-found', async () => {
        const restore = subject.withhold('createCheckRun', 'checks=write');
        let refused: unknown;
        try {
          refused = await failure(
            subject.host.createCheckRun({ name: 'selfdebug', headSha: subject.commits[1]! }),
          );
        } finally {
          restore();
        }
        expect(refused).toBeInstanceOf(GitHubApiError);
        expect(refused).not.toBeInstanceOf(GitHubNotFoundError);
        expect(refused).toMatchObject({ status: 403, retryable: false });
        expect((refused as Error).message).toContain('"checks: write" permission');
        const created = await subject.host.createCheckRun({
          name: 'selfdebug',
          headSha: subject.commits[1]!,
        });
        expect(subject.checkRun(created.id)).toMatchObject({ name: 'selfdebug' });
      });

      it('refuses only the operation that needs the permission', async () => {
        const [first, second] = subject.commits;
        await subject.createBranch('base-4', first!);
        await subject.createBranch('selfdebug/fix-4', second!);
        const restore = subject.withhold('createPullRequest', 'pull_requests=write');
        try {
          const request = { title: 't', body: 'b', head: 'selfdebug/fix-4', base: 'base-4', draft: false };
          const refused = await failure(subject.host.createPullRequest(request));
          expect(refused).toMatchObject({ status: 403 });
          expect((refused as Error).message).toContain('"pull_requests: write" permission');
          expect(await subject.host.findPullRequest('selfdebug/fix-4')).toBeNull();
          expect(await subject.host.branchHead('selfdebug/fix-4')).toBe(second);
        } finally {
          restore();
        }
      });
    });

    it('sent nothing GitHub would refuse as malformed, nor got anything GitHub would never send', () => {
      expect(subject.problems?.() ?? []).toEqual([]);
    });
  });
}
