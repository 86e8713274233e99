import type { Context } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertGitHubMocksDone, blockNetwork } from '../helpers/github-api.js';
import {
  expectComment,
  expectConfig,
  expectInstallationToken,
  expectPermission,
  expectReaction,
} from '../helpers/github-handler-mocks.js';
import { deliver, example, testApp } from '../helpers/probot.js';

type CommentPayload = Context<'issue_comment.created'>['payload'];

const OWNER = 'Codertocat';
const REPO = 'Hello-World';
const COMMENT_ID = 492700400;

/** GitHub's issue_comment.created example, edited: the comment body, and the sender where given. */
function fixComment(sender: Partial<CommentPayload['sender']> = {}): CommentPayload {
  const payload = example<CommentPayload>('issue_comment', 'created');
  payload.comment.body = '@selfdebug fix';
  Object.assign(payload.sender, sender);
  return payload;
}

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe('who may start a job (collaborator permission API)', () => {
  // [what GitHub says in `permission` (legacy), in `role_name`]
  it.each([
    ['admin', 'admin', 'admin'],
    ['maintain', 'write', 'maintain'],
    ['write', 'write', 'write'],
    ['a custom role based on write', 'write', 'release-manager'],
  ])('%s: enqueued, with 👀', async (_who, permission, roleName) => {
    const app = await testApp();
    expectInstallationToken();
    expectConfig(OWNER, REPO, null);
    expectPermission(OWNER, REPO, 'Codertocat', permission, roleName);
    expectReaction(OWNER, REPO, { commentId: COMMENT_ID }, 'eyes');
    await deliver(app, 'issue_comment', fixComment());
    expect(app.enqueued).toHaveLength(1);
    expect(app.enqueued[0]?.requestedBy).toBe('Codertocat');
  });

  it.each([
    ['triage', 'read', 'triage'],
    ['read', 'read', 'read'],
    ['none', 'none', 'none'], // 404: not a collaborator
  ])(
    '%s: one polite comment naming the permission, nothing enqueued',
    async (shown, permission, roleName) => {
      const app = await testApp();
      expectInstallationToken();
      expectConfig(OWNER, REPO, null);
      expectPermission(OWNER, REPO, 'Codertocat', permission, roleName);
      const posted = expectComment(OWNER, REPO, 1);
      await deliver(app, 'issue_comment', fixComment());
      expect(posted).toEqual([
        'Sorry @Codertocat, only people with write access to this repository can start selfdebug ' +
          `(yours is \`${shown}\`). Ask a maintainer to mention me instead.`,
      ]);
      expect(app.enqueued).toEqual([]);
    },
  );

  it.each([
    ['a Bot account', { login: 'dependabot[bot]', type: 'Bot' as const }],
    ['the App itself', { login: 'selfdebug[bot]', type: 'Bot' as const }],
    ['a user named like the handle', { login: 'selfdebug', type: 'User' as const }],
  ])('%s: ignored without a single request to GitHub', async (_who, sender) => {
    const app = await testApp();
    // No mock at all: any request, even for the installation token, would fail the test.
    await deliver(app, 'issue_comment', fixComment(sender));
    expect(app.enqueued).toEqual([]);
  });

  it('refuses an admin left out of allowed_users in .github/selfdebug.yml', async () => {
    const app = await testApp();
    expectInstallationToken();
    expectConfig(OWNER, REPO, 'allowed_users: [mona, "@hubot"]\n');
    expectPermission(OWNER, REPO, 'Codertocat', 'admin');
    const posted = expectComment(OWNER, REPO, 1);
    await deliver(app, 'issue_comment', fixComment());
    expect(posted).toEqual([
      'Sorry @Codertocat, this repository lets only the people listed in `allowed_users` of ' +
        '`.github/selfdebug.yml` start selfdebug. A maintainer can add you there.',
    ]);
    expect(app.enqueued).toEqual([]);
  });

  it('lets a writer listed in allowed_users in, whatever the case of the login', async () => {
    const app = await testApp();
    expectInstallationToken();
    expectConfig(OWNER, REPO, 'allowed_users:\n  - mona\n  - "@codertocat"\n');
    expectPermission(OWNER, REPO, 'Codertocat', 'write');
    expectReaction(OWNER, REPO, { commentId: COMMENT_ID }, 'eyes');
    await deliver(app, 'issue_comment', fixComment());
    expect(app.enqueued).toHaveLength(1);
  });

  it('still needs write access when listed in allowed_users', async () => {
    const app = await testApp();
    expectInstallationToken();
    expectConfig(OWNER, REPO, 'allowed_users: [Codertocat]\n');
    expectPermission(OWNER, REPO, 'Codertocat', 'read');
    const posted = expectComment(OWNER, REPO, 1);
    await deliver(app, 'issue_comment', fixComment());
    expect(posted).toHaveLength(1);
    expect(posted[0]).toContain('(yours is `read`)');
    expect(app.enqueued).toEqual([]);
  });
});
