import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertGitHubMocksDone, blockNetwork, githubApi } from '../helpers/github-api.js';
import { expectInstallationToken, expectReaction } from '../helpers/github-handler-mocks.js';
import { example } from '../helpers/probot.js';
import { type HttpApp, httpApp, post } from './webhook-app.js';

type Payload = Record<string, unknown>;

/** Every example GitHub documents, as `[event, payload]`. */
function allExamples(): [string, Payload][] {
  const index = JSON.parse(
    readFileSync(
      new URL('../../node_modules/@octokit/webhooks-examples/api.github.com/index.json', import.meta.url),
      'utf8',
    ),
  ) as { name: string; examples: Payload[] }[];
  return index.flatMap((entry) => entry.examples.map((payload): [string, Payload] => [entry.name, payload]));
}

const OWNER = 'Codertocat';
const REPO = 'Hello-World';

function mention(): Payload & { comment: { body: string }; sender: Payload; issue: Payload } {
  const payload = example<Payload & { comment: { body: string }; sender: Payload; issue: Payload }>(
    'issue_comment',
    'created',
  );
  payload.comment.body = '@selfdebug fix';
  return payload;
}

/** Push examples have no `action`; the first one will do. */
function pushExample(): Payload {
  return structuredClone(allExamples().find(([event]) => event === 'push')![1]);
}

let app: HttpApp;
beforeEach(async () => {
  blockNetwork();
  app = await httpApp();
});
afterEach(async () => {
  await app.close();
  assertGitHubMocksDone();
});

describe('GitHub’s example payloads', () => {
  it('answers every one 200 and enqueues nothing (none mentions the App)', async () => {
    const examples = allExamples();
    expect(examples.length).toBeGreaterThan(100);
    for (const [event, payload] of examples) {
      expect(await post(app, event, JSON.stringify(payload)), `${event}.${String(payload.action)}`).toBe(200);
    }
    expect(app.enqueued).toEqual([]);
  });

  it('enqueues one job for a mention, the intended case', async () => {
    expectInstallationToken();
    githubApi()
      .get(`/repos/${OWNER}/${REPO}/collaborators/Codertocat/permission`)
      .reply(200, { permission: 'write', role_name: 'write', user: { login: 'Codertocat' } });
    expectReaction(OWNER, REPO, { commentId: 492700400 }, 'eyes');

    expect(await post(app, 'issue_comment', JSON.stringify(mention()))).toBe(200);
    await app.close();
    expect(app.enqueued).toHaveLength(1);
  });
});

describe('hostile deliveries', () => {
  it.each([
    ['null', 'null'],
    ['a string', '"x"'],
    ['an array', '[{"action":"created"}]'],
    ['a number', '1'],
    ['not JSON', '{"action":'],
    ['empty', ''],
  ])('answers a body that is %s 400', async (_name, body) => {
    expect(await post(app, 'issue_comment', body)).toBe(400);
    expect(app.enqueued).toEqual([]);
  });

  it('answers a bad or missing signature 400 and runs nothing', async () => {
    const body = JSON.stringify(mention());
    expect(await post(app, 'issue_comment', body, { signature: `sha256=${'0'.repeat(64)}` })).toBe(400);
    expect(await post(app, 'issue_comment', body, { signature: 'sha1=abc' })).toBe(400);
    expect(await post(app, 'issue_comment', body, { signature: null })).toBe(400);
    expect(await post(app, 'null', 'null', { signature: null })).toBe(400);
    expect(app.enqueued).toEqual([]);
  });

  const malformed: [string, (payload: ReturnType<typeof mention>) => void][] = [
    ['no sender', (payload) => delete (payload as Payload).sender],
    ['a sender without a login', (payload) => delete payload.sender.login],
    ['a numeric login', (payload) => (payload.sender.login = 42)],
    ['a null repository', (payload) => (payload.repository = null)],
    ['a repository that is a string', (payload) => (payload.repository = 'Codertocat/Hello-World')],
    ['an issue number that is a string', (payload) => (payload.issue.number = '7')],
    ['no comment', (payload) => delete (payload as Payload).comment],
    [
      'a comment body that is an object',
      (payload) => (payload.comment.body = { text: '@selfdebug fix' } as never),
    ],
    ['a 1 MB comment', (payload) => (payload.comment.body = `@selfdebug fix ${'x'.repeat(1_000_000)}`)],
    ['a 1 MB login', (payload) => (payload.sender.login = 'x'.repeat(1_000_000))],
  ];

  it.each(malformed)(
    'ignores a mention with %s: 200, a log line, no job, no GitHub call',
    async (name, mutate) => {
      const payload = mention();
      mutate(payload);
      expect(await post(app, 'issue_comment', JSON.stringify(payload)), name).toBe(200);
      expect(app.enqueued).toEqual([]);
      expect(app.warnings.map((line) => line.msg)).toContain('webhook payload ignored: malformed');
    },
  );

  it('ignores malformed payloads of every handled event', async () => {
    const cases: [string, Payload][] = [
      ['issues', { ...example<Payload>('issues', 'opened'), sender: null }],
      ['workflow_run', { ...example<Payload>('workflow_run', 'completed'), workflow_run: 'x' }],
      ['pull_request_review', { ...example<Payload>('pull_request_review', 'submitted'), review: [] }],
      ['push', { ...pushExample(), commits: null }],
    ];
    for (const [event, payload] of cases)
      expect(await post(app, event, JSON.stringify(payload)), event).toBe(200);
    expect(app.enqueued).toEqual([]);
    expect(app.warnings.filter((line) => line.msg === 'webhook payload ignored: malformed')).toHaveLength(4);
  });

  it('survives deep nesting in a field no handler reads', async () => {
    let nested: Payload = {};
    for (let depth = 0; depth < 2000; depth++) nested = { nested };
    const payload = { ...mention(), extra: nested };
    payload.comment.body = 'no mention here';
    expect(await post(app, 'issue_comment', JSON.stringify(payload))).toBe(200);
    expect(app.enqueued).toEqual([]);
  });

  it('answers unknown events 200 and does nothing', async () => {
    expect(await post(app, 'made_up_event', JSON.stringify({ action: 'exploded', sender: 1 }))).toBe(200);
    expect(await post(app, 'issue_comment', JSON.stringify({ action: 'made_up_action' }))).toBe(200);
    expect(app.enqueued).toEqual([]);
  });

  it('enqueues a delivery GitHub sends twice only once', async () => {
    expectInstallationToken();
    githubApi()
      .get(`/repos/${OWNER}/${REPO}/collaborators/Codertocat/permission`)
      .times(2)
      .reply(200, { permission: 'write', role_name: 'write', user: { login: 'Codertocat' } });
    expectReaction(OWNER, REPO, { commentId: 492700400 }, 'eyes');

    const body = JSON.stringify(mention());
    expect(await post(app, 'issue_comment', body, { id: 'twice' })).toBe(200);
    expect(await post(app, 'issue_comment', body, { id: 'twice' })).toBe(200);
    await app.close();
    expect(app.enqueued).toHaveLength(1);
  });
});
