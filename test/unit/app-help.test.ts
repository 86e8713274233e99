import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import nock from 'nock';
import { type Context, Probot, ProbotOctokit } from 'probot';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { COMMAND_DESCRIPTIONS, helpText } from '../../src/app/help-text.js';
import { ConfigError } from '../../src/errors/config-errors.js';
import selfdebugApp from '../../src/index.js';
import { settleHandlers } from '../helpers/probot.js';

type WebhookEvent = Parameters<Probot['receive']>[0];

/** Delivers as GitHub does, then waits for the handler, which runs after Probot's answer. */
async function receive(app: Probot, event: { id: string; name: string; payload: object }): Promise<void> {
  await app.receive(event as unknown as WebhookEvent);
  await settleHandlers(app);
}

type IssueCommentCreatedPayload = Context<'issue_comment.created'>['payload'];

// Our own fixture, typed once here; each test edits a fresh copy.
const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/webhooks/issue-comment-created.json', import.meta.url), 'utf8'),
) as IssueCommentCreatedPayload;

const installationId = fixture.installation!.id;
const commentsPath = '/repos/octo-org/flaky-scripts/issues/7/comments';

function payloadWith(body: string, sender: Partial<IssueCommentCreatedPayload['sender']> = {}) {
  const payload = structuredClone(fixture);
  payload.comment.body = body;
  Object.assign(payload.sender, sender);
  return payload;
}

/**
 * Retries and throttling would hide a failed request or slow a test down.
 * The function form matters: Probot adds its own throttle options when it
 * builds the client, and they would override a plain defaults object,
 * leaving writes spaced a second apart by the throttling plugin.
 */
const TestOctokit = ProbotOctokit.defaults((instanceOptions: object) => ({
  ...instanceOptions,
  retry: { enabled: false },
  throttle: { enabled: false },
}));

function createProbot(privateKey: string): Probot {
  return new Probot({ appId: 123, privateKey, logLevel: 'fatal', Octokit: TestOctokit });
}

describe('the help reply', () => {
  let privateKey: string;
  let probot: Probot;
  let unmatched: string[];
  const recordUnmatched = (request: { method?: string; path?: string }) =>
    unmatched.push(`${request.method} ${request.path}`);

  beforeAll(() => {
    privateKey = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    }).privateKey;
  });

  beforeEach(async () => {
    nock.disableNetConnect();
    unmatched = [];
    nock.emitter.on('no match', recordUnmatched);
    // The in-memory queue: these tests are about replies, and leave no queue file behind.
    vi.stubEnv('SELFDEBUG_QUEUE', 'memory');
    probot = createProbot(privateKey);
    // No server here: Probot's own addHandler refuses, and the App runs on without its HTTP pages.
    await probot.load(selfdebugApp);
  });

  afterEach(() => {
    nock.emitter.removeListener('no match', recordUnmatched);
    vi.unstubAllEnvs();
    try {
      expect(unmatched).toEqual([]);
      expect(nock.pendingMocks()).toEqual([]);
      expect(nock.isDone()).toBe(true);
    } finally {
      nock.cleanAll();
      nock.enableNetConnect();
    }
  });

  function expectTokenRequest() {
    return nock('https://api.github.com')
      .post(`/app/installations/${installationId}/access_tokens`)
      .matchHeader('authorization', /^bearer \S+\.\S+\.\S+$/i)
      .reply(201, {
        token: 'ghs_test',
        expires_at: '2099-01-01T00:00:00Z',
        permissions: { issues: 'write' },
      });
  }

  it('replies to "@selfdebug help" with the command list, as the installation', async () => {
    const token = expectTokenRequest();
    const posted: unknown[] = [];
    const comment = nock('https://api.github.com')
      .post(commentsPath, (body) => posted.push(body) > 0)
      .matchHeader('authorization', 'token ghs_test')
      .reply(201, { id: 1 });

    await receive(probot, {
      id: 'delivery-1',
      name: 'issue_comment',
      payload: payloadWith('@selfdebug help'),
    });

    expect(token.isDone()).toBe(true);
    expect(comment.isDone()).toBe(true);
    expect(posted).toEqual([{ body: helpText('selfdebug') }]);
    const body = helpText('selfdebug');
    for (const command of COMMAND_DESCRIPTIONS) expect(body).toContain(`\`@selfdebug ${command.name}`);
    expect(body).toMatch(/`@selfdebug help` \| Show this list\. \|/);
    expect(body).toMatch(/`@selfdebug fix \[command\]` \| Reproduce the failure/);
    expect(body).toContain('`max-attempts=N`');
  });

  it('replies to a bare mention', async () => {
    expectTokenRequest();
    const comment = nock('https://api.github.com')
      .post(commentsPath, { body: helpText('selfdebug') })
      .reply(201, { id: 1 });

    await receive(probot, {
      id: 'delivery-2',
      name: 'issue_comment',
      payload: payloadWith('Not sure what to type here, @SelfDebug?'),
    });

    expect(comment.isDone()).toBe(true);
  });

  /** With net connect off and no mocks, any request the handler makes fails it. */
  async function expectNoRequest(payload: IssueCommentCreatedPayload) {
    await expect(
      receive(probot, { id: 'delivery-none', name: 'issue_comment', payload }),
    ).resolves.toBeUndefined();
    expect(unmatched).toEqual([]);
  }

  it('makes no request for a comment from a bot', async () => {
    await expectNoRequest(payloadWith('@selfdebug help', { login: 'dependabot[bot]', type: 'Bot' }));
  });

  it('makes no request for a comment from the App itself', async () => {
    await expectNoRequest(payloadWith('@selfdebug help', { login: 'selfdebug[bot]', type: 'User' }));
  });

  it.each([
    'Thanks, looks good to me.',
    'Type `@selfdebug help` for the list.',
    '> @selfdebug help',
    '```\n@selfdebug help\n```',
    '@selfdebugger help',
  ])('makes no request for %j', async (body) => {
    await expectNoRequest(payloadWith(body));
  });

  it('answers to the handle set in SELFDEBUG_HANDLE', async () => {
    vi.stubEnv('SELFDEBUG_HANDLE', 'fixbot');
    const custom = createProbot(privateKey);
    await custom.load(selfdebugApp);
    expectTokenRequest();
    const comment = nock('https://api.github.com')
      .post(commentsPath, (body: { body: string }) => body.body === helpText('fixbot'))
      .reply(201, { id: 1 });

    await receive(custom, { id: 'delivery-6', name: 'issue_comment', payload: payloadWith('@fixbot help') });
    await receive(custom, {
      id: 'delivery-7',
      name: 'issue_comment',
      payload: payloadWith('@selfdebug help'),
    });

    expect(comment.isDone()).toBe(true);
    expect(helpText('fixbot')).toContain('`@fixbot fix [command]`');
  });

  it('refuses to load with an invalid SELFDEBUG_HANDLE', async () => {
    vi.stubEnv('SELFDEBUG_HANDLE', 'not a login');
    await expect(probot.load(selfdebugApp)).rejects.toBeInstanceOf(ConfigError);
  });
});
