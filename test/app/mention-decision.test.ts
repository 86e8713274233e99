import type { Context } from 'probot';
import { describe, expect, it } from 'vitest';
import type { HandlerRepoConfig, RepoConfigResult } from '../../src/app/dependencies.js';
import { decideMention, type MentionContext } from '../../src/app/mention-decision.js';
import type { CodeHost, Permission } from '../../src/code-host/code-host.js';
import type { JobQueue } from '../../src/queue/job-request.js';
import { FakeCodeHost } from '../fakes/fake-code-host.js';
import { example, NOW } from '../helpers/probot.js';

type CommentPayload = Context<'issue_comment.created'>['payload'];

const CONFIG: HandlerRepoConfig = {
  allowedUsers: [],
  mentions: true,
  reviews: true,
  workflowRuns: { enabled: true, workflows: [], branches: [], maxRounds: 3 },
};

/** The calls a decision made on the code host, by method name: deciding must only read. */
function recording(host: FakeCodeHost): { host: CodeHost; calls: string[] } {
  const calls: string[] = [];
  const proxy = new Proxy(host, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(key));
        return value.apply(target, args);
      };
    },
  });
  return { host: proxy, calls };
}

/** Deciding never touches the queue: every use of it fails the test. */
const untouchedQueue = new Proxy({} as JobQueue, {
  get(_target, key) {
    throw new Error(`decideMention used the queue (${String(key)})`);
  },
});

function decide(
  body: string,
  options: {
    permission?: Permission;
    config?: RepoConfigResult;
    sender?: { login: string; type: string };
  } = {},
) {
  const payload = example<CommentPayload>('issue_comment', 'created');
  payload.comment.body = body;
  if (options.sender) Object.assign(payload.sender, options.sender);
  const fake = new FakeCodeHost('Codertocat/Hello-World');
  fake.permissions.set(payload.sender.login, options.permission ?? 'write');
  const { host, calls } = recording(fake);
  const context = { id: 'delivery-1', payload } as unknown as MentionContext;
  const decision = decideMention(context, host, {
    handle: 'selfdebug',
    queue: untouchedQueue,
    codeHostFor: () => host,
    repoConfigFor: async () => options.config ?? { ok: true, config: CONFIG },
    newJobId: () => 'job-1',
    now: () => NOW,
  });
  return { decision, calls, fake };
}

describe('decideMention', () => {
  it('ignores a comment without a mention, asking nothing of GitHub', async () => {
    const { decision, calls } = decide('thanks, looks good');
    expect(await decision).toEqual({ kind: 'ignore' });
    expect(calls).toEqual([]);
  });

  it('ignores bots before reading anything, so two bots cannot drive each other', async () => {
    const { decision, calls } = decide('@selfdebug fix', { sender: { login: 'other[bot]', type: 'Bot' } });
    expect(await decision).toEqual({ kind: 'ignore' });
    expect(calls).toEqual([]);
  });

  it('answers help and invalid commands with a reply, without a permission check', async () => {
    const help = decide('@selfdebug help');
    expect(await help.decision).toMatchObject({
      kind: 'reply',
      body: expect.stringContaining('@selfdebug fix'),
    });
    const invalid = decide('@selfdebug fix --attempts lots');
    expect(await invalid.decision).toMatchObject({
      kind: 'reply',
      body: expect.stringMatching(/^Nothing ran: /),
    });
    expect([...help.calls, ...invalid.calls]).toEqual([]);
  });

  it('refuses a reader with the reason, having only read their permission', async () => {
    const { decision, calls } = decide('@selfdebug fix', { permission: 'read' });
    expect(await decision).toMatchObject({ kind: 'reply', body: expect.stringContaining('yours is `read`') });
    expect(calls).toEqual(['permissionOf']);
  });

  it('quotes an invalid configuration instead of starting a job', async () => {
    const config: RepoConfigResult = { ok: false, message: 'selfdebug.yml: `max_attempts` must be a number' };
    const { decision } = decide('@selfdebug fix', { config });
    expect(await decision).toEqual({ kind: 'reply', body: config.message });
  });

  it('says mentions are off when the repository turned them off, but still obeys stop', async () => {
    const config: RepoConfigResult = { ok: true, config: { ...CONFIG, mentions: false } };
    expect(await decide('@selfdebug fix', { config }).decision).toMatchObject({
      kind: 'reply',
      body: expect.stringContaining('`triggers.mentions`'),
    });
    expect(await decide('@selfdebug stop', { config }).decision).toMatchObject({
      kind: 'stop',
      match: { repository: 'codertocat/hello-world', issueNumber: 1 },
      reason: 'stopped by @Codertocat',
      where: 'issue',
    });
  });

  it('decides a new job for a writer with the comment as the request, and writes nothing', async () => {
    const { decision, calls, fake } = decide('@selfdebug fix\nplease');
    const decided = await decision;
    expect(decided).toMatchObject({
      kind: 'enqueue',
      reaction: 'eyes',
      job: { id: 'job-1', deliveryId: 'delivery-1', trigger: { kind: 'mention', command: 'fix' } },
    });
    expect(calls).toEqual(['permissionOf']);
    expect(fake.comments).toEqual([]);
    expect(fake.reactions).toEqual([]);
  });

  it('decides a retry keyed by the comment, carrying this delivery', async () => {
    const { decision } = decide('@selfdebug retry');
    const decided = await decision;
    expect(decided).toMatchObject({
      kind: 'retry',
      match: { repository: 'codertocat/hello-world', issueNumber: 1 },
      again: { deliveryId: 'delivery-1', requestedBy: 'Codertocat' },
    });
    expect(decided.kind === 'retry' && decided.again.dedupeKey).toMatch(
      /^retry:codertocat\/hello-world:\d+$/,
    );
  });
});
