import type { Context } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobRequest } from '../../src/queue/job-request.js';
import type { JobRunner } from '../fakes/memory-queue.js';
import { assertGitHubMocksDone, blockNetwork } from '../helpers/github-api.js';
import {
  expectComment,
  expectConfig,
  expectInstallationToken,
  expectPermission,
  expectReaction,
} from '../helpers/github-handler-mocks.js';
import { deliver, example, NOW, testApp } from '../helpers/probot.js';

type CommentPayload = Context<'issue_comment.created'>['payload'];

const OWNER = 'Codertocat';
const REPO = 'Hello-World';

/**
 * GitHub's issue_comment.created example (Codertocat/Hello-World#1), edited:
 * the comment body and id (each command is its own comment), and the issue number where given.
 */
function command(body: string, commentId: number, issueNumber = 1): CommentPayload {
  const payload = example<CommentPayload>('issue_comment', 'created');
  payload.comment.body = body;
  payload.comment.id = commentId;
  payload.issue.number = issueNumber;
  return payload;
}

/** Config (none) and permission (write): what every command by the writer asks GitHub first. */
function expectWriterChecks() {
  expectConfig(OWNER, REPO, null);
  expectPermission(OWNER, REPO, 'Codertocat', 'write');
}

/** A runner that starts jobs and holds them until they are aborted, recording both. */
function blockingRunner() {
  const started: string[] = [];
  const aborted: { id: string; reason: string }[] = [];
  const runner: JobRunner = (request: JobRequest, signal: AbortSignal) => {
    started.push(request.id);
    return new Promise<void>((resolve) => {
      signal.addEventListener('abort', () => {
        aborted.push({ id: request.id, reason: String((signal.reason as Error).message) });
        resolve();
      });
    });
  };
  return { runner, started, aborted };
}

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe('@selfdebug stop', () => {
  it('aborts the running job for the issue and says so', async () => {
    const { runner, started, aborted } = blockingRunner();
    const app = await testApp({ runner });
    expectInstallationToken(); // once: Probot caches the token for the later deliveries
    expectWriterChecks();
    expectReaction(OWNER, REPO, { commentId: 11 }, 'eyes');
    await deliver(app, 'issue_comment', command('@selfdebug fix', 11), { waitForJobs: false });
    expect(started).toEqual(['job-1']);

    expectWriterChecks();
    const posted = expectComment(OWNER, REPO, 1);
    await deliver(app, 'issue_comment', command('@selfdebug stop', 12));
    expect(aborted).toEqual([{ id: 'job-1', reason: 'stopped by @Codertocat' }]);
    expect(posted).toEqual(['Stopping the job for this issue.']);
  });

  it('removes a waiting job for the issue before it starts, and leaves other issues alone', async () => {
    const { runner, started, aborted } = blockingRunner();
    const app = await testApp({ runner, concurrency: 1 });
    expectInstallationToken();
    // Issue 2's job takes the only slot; issue 1's job waits behind it.
    expectWriterChecks();
    expectReaction(OWNER, REPO, { commentId: 21 }, 'eyes');
    await deliver(app, 'issue_comment', command('@selfdebug fix', 21, 2), { waitForJobs: false });
    expectWriterChecks();
    expectReaction(OWNER, REPO, { commentId: 11 }, 'eyes');
    await deliver(app, 'issue_comment', command('@selfdebug fix', 11, 1), { waitForJobs: false });
    expect(started).toEqual(['job-1']);

    expectWriterChecks();
    const posted = expectComment(OWNER, REPO, 1);
    await deliver(app, 'issue_comment', command('@selfdebug stop', 12, 1), { waitForJobs: false });
    expect(posted).toEqual(['Stopping the job for this issue.']);
    expect(aborted).toEqual([]);

    // Ending issue 2's job frees the slot; the stopped job must not take it.
    await app.queue.cancel({ repository: 'codertocat/hello-world', issueNumber: 2 }, 'test over');
    await app.queue.idle();
    expect(started).toEqual(['job-1']);
  });

  it('says "Nothing is running here." when nothing runs', async () => {
    const app = await testApp();
    expectInstallationToken();
    expectWriterChecks();
    const posted = expectComment(OWNER, REPO, 1);
    await deliver(app, 'issue_comment', command('@selfdebug stop', 12));
    expect(posted).toEqual(['Nothing is running here.']);
    expect(app.enqueued).toEqual([]);
  });

  it('refuses a reader, and stops nothing', async () => {
    const { runner, started, aborted } = blockingRunner();
    const app = await testApp({ runner });
    expectInstallationToken();
    expectWriterChecks();
    expectReaction(OWNER, REPO, { commentId: 11 }, 'eyes');
    await deliver(app, 'issue_comment', command('@selfdebug fix', 11), { waitForJobs: false });

    const stop = command('@selfdebug stop', 12);
    stop.sender.login = 'octocat';
    expectConfig(OWNER, REPO, null);
    expectPermission(OWNER, REPO, 'octocat', 'read');
    const posted = expectComment(OWNER, REPO, 1);
    await deliver(app, 'issue_comment', stop, { waitForJobs: false });
    expect(posted[0]).toContain('Sorry @octocat');
    expect(started).toEqual(['job-1']);
    expect(aborted).toEqual([]);
    await app.queue.cancel({ repository: 'codertocat/hello-world', issueNumber: 1 }, 'test over');
    await app.queue.idle();
  });
});

describe('@selfdebug retry', () => {
  it('enqueues the previous request again under a new id, and reacts to the retry comment', async () => {
    const app = await testApp();
    expectInstallationToken();
    expectWriterChecks();
    expectReaction(OWNER, REPO, { commentId: 11 }, 'eyes');
    await deliver(app, 'issue_comment', command('@selfdebug fix `make test` max-attempts=2', 11), {
      id: 'fix-delivery',
    });

    const retry = command('@selfdebug retry', 12);
    retry.sender.login = 'hubot';
    expectConfig(OWNER, REPO, null);
    expectPermission(OWNER, REPO, 'hubot', 'maintain');
    expectReaction(OWNER, REPO, { commentId: 12 }, 'eyes');
    await deliver(app, 'issue_comment', retry, { id: 'retry-delivery' });

    const [first, again] = app.enqueued;
    expect(app.enqueued).toHaveLength(2);
    expect(first?.options).toEqual({ command: 'make test', maxAttempts: 2 });
    expect(again).toEqual({
      ...first,
      id: 'job-2',
      deliveryId: 'retry-delivery',
      dedupeKey: 'retry:codertocat/hello-world:12',
      requestedBy: 'hubot',
      createdAt: NOW.toISOString(),
    });
  });

  it('says so when there is no earlier job to retry', async () => {
    const app = await testApp();
    expectInstallationToken();
    expectWriterChecks();
    const posted = expectComment(OWNER, REPO, 1);
    await deliver(app, 'issue_comment', command('@selfdebug retry', 12));
    expect(posted).toEqual(['There is no earlier job here to retry.']);
    expect(app.enqueued).toEqual([]);
  });

  it('retries once for a retry comment delivered twice', async () => {
    const app = await testApp();
    expectInstallationToken();
    expectWriterChecks();
    expectReaction(OWNER, REPO, { commentId: 11 }, 'eyes');
    await deliver(app, 'issue_comment', command('@selfdebug fix', 11));
    expectWriterChecks();
    expectReaction(OWNER, REPO, { commentId: 12 }, 'eyes');
    await deliver(app, 'issue_comment', command('@selfdebug retry', 12), { id: 'retry-1' });
    expectWriterChecks();
    await deliver(app, 'issue_comment', command('@selfdebug retry', 12), { id: 'retry-1-redelivered' });
    expect(app.enqueued.map((job) => job.id)).toEqual(['job-1', 'job-2']);
  });
});
