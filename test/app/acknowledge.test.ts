import type { Context, Probot } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handlersInFlight } from '../../src/app/register-handlers.js';
import { assertGitHubMocksDone, blockNetwork, githubApi } from '../helpers/github-api.js';
import { expectConfig, expectInstallationToken, expectReaction } from '../helpers/github-handler-mocks.js';
import { example, settleHandlers, testApp } from '../helpers/probot.js';

type CommentPayload = Context<'issue_comment.created'>['payload'];
type WebhookEvent = Parameters<Probot['receive']>[0];

const OWNER = 'Codertocat';
const REPO = 'Hello-World';
const PERMISSION_PATH = `/repos/${OWNER}/${REPO}/collaborators/Codertocat/permission`;

function mention(): WebhookEvent {
  const payload = example<CommentPayload>('issue_comment', 'created');
  payload.comment.body = '@selfdebug fix';
  return { id: 'ack-1', name: 'issue_comment', payload } as unknown as WebhookEvent;
}

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe('acknowledging a delivery', () => {
  it('answers GitHub before the handler’s own GitHub calls return, and enqueues after', async () => {
    const app = await testApp();
    expectInstallationToken();
    expectConfig(OWNER, REPO, null);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked = false;
    githubApi()
      .get(PERMISSION_PATH)
      .reply(async () => {
        asked = true;
        await held;
        return [200, { permission: 'write', role_name: 'write', user: { login: 'Codertocat' } }];
      });
    expectReaction(OWNER, REPO, { commentId: 492700400 }, 'eyes');

    await app.probot.receive(mention());
    // Probot's receive is what its middleware awaits before writing `200 ok`.
    expect(handlersInFlight(app.probot)?.size).toBe(1);
    expect(app.enqueued).toEqual([]);

    release();
    await settleHandlers(app.probot);
    await app.queue.idle();
    expect(asked).toBe(true);
    expect(app.enqueued.map((request) => request.deliveryId)).toEqual(['ack-1']);
    expect(handlersInFlight(app.probot)?.size).toBe(0);
  });

  it('keeps a handler’s failure for the log and for whoever waits, without failing the answer', async () => {
    const app = await testApp();
    expectInstallationToken();
    expectConfig(OWNER, REPO, null);
    githubApi().get(PERMISSION_PATH).reply(500, { message: 'Server Error' });

    await expect(app.probot.receive(mention())).resolves.toBeUndefined();
    await expect(settleHandlers(app.probot)).rejects.toThrow();
    expect(app.enqueued).toEqual([]);
    // Taken once: the next wait sees no old failure.
    await expect(settleHandlers(app.probot)).resolves.toBeUndefined();
  });
});
