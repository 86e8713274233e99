import webhookExamples from '@octokit/webhooks-examples/api.github.com/index.json' with { type: 'json' };
import type { Context } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cachedRepoConfig } from '../../src/app/config-cache.js';
import type { RepoConfigResult } from '../../src/app/dependencies.js';
import { assertGitHubMocksDone, blockNetwork } from '../helpers/github-api.js';
import {
  expectConfig,
  expectInstallationToken,
  expectPermission,
  expectReaction,
} from '../helpers/github-handler-mocks.js';
import { deliver, example, testApp } from '../helpers/probot.js';

type CommentPayload = Context<'issue_comment.created'>['payload'];

const OWNER = 'Codertocat';
const REPO = 'Hello-World';
const INVALID: RepoConfigResult = { ok: false, message: 'invalid' };

/** What the loader sees of a context: only `repo()`. */
const contextOf = (owner: string, repo: string) => ({ repo: () => ({ owner, repo }) }) as unknown as Context;

describe('cachedRepoConfig', () => {
  function counting(result: () => Promise<RepoConfigResult> = async () => INVALID) {
    const loads: string[] = [];
    const load = async (context: Context) => {
      loads.push(`${context.repo().owner}/${context.repo().repo}`);
      return result();
    };
    return { loads, load };
  }

  it('reads each repository once a minute, and shares a read in progress', async () => {
    let now = 0;
    const { loads, load } = counting();
    const loader = cachedRepoConfig(load, { now: () => now });
    await Promise.all([
      loader(contextOf('o', 'a')),
      loader(contextOf('O', 'A')),
      loader(contextOf('o', 'b')),
    ]);
    now = 59_999;
    await loader(contextOf('o', 'a'));
    expect(loads).toEqual(['o/a', 'o/b']);
    now = 60_000;
    expect(await loader(contextOf('o', 'a'))).toEqual(INVALID);
    expect(loads).toEqual(['o/a', 'o/b', 'o/a']);
  });

  it('does not keep a failed read', async () => {
    let fail = true;
    const { loads, load } = counting(async () => {
      if (fail) throw new Error('502 from GitHub');
      return INVALID;
    });
    const loader = cachedRepoConfig(load);
    await expect(loader(contextOf('o', 'a'))).rejects.toThrow('502');
    fail = false;
    await expect(loader(contextOf('o', 'a'))).resolves.toEqual(INVALID);
    expect(loads).toHaveLength(2);
  });

  it('forgets one repository, or every repository of an owner, and the oldest past its size', async () => {
    const { loads, load } = counting();
    const loader = cachedRepoConfig(load, { maxEntries: 3 });
    for (const repo of ['a', 'b', 'c']) await loader(contextOf('o', repo));
    await loader(contextOf('other', 'x')); // evicts o/a
    loader.forget('o', 'b');
    await loader(contextOf('o', 'a'));
    await loader(contextOf('o', 'b'));
    expect(loads).toEqual(['o/a', 'o/b', 'o/c', 'other/x', 'o/a', 'o/b']);
    loader.forget('O');
    await loader(contextOf('other', 'x'));
    await loader(contextOf('o', 'c'));
    expect(loads.slice(6)).toEqual(['o/c']);
  });
});

describe('the configuration cache in the App', () => {
  beforeEach(() => blockNetwork());
  afterEach(() => assertGitHubMocksDone());

  const mention = (id: number) => {
    const payload = example<CommentPayload>('issue_comment', 'created');
    payload.comment.body = '@selfdebug fix';
    payload.comment.id = id;
    return payload;
  };

  /** GitHub's push example to Codertocat/Hello-World's default branch, with `files` modified. */
  function push(files: string[], ref = 'refs/heads/master'): object {
    const pushes = (
      webhookExamples as unknown as { name: string; examples: Record<string, unknown>[] }[]
    ).find((entry) => entry.name === 'push')!.examples;
    const payload = structuredClone(pushes.find((entry) => entry.ref === 'refs/heads/master')!) as {
      commits: { added: string[]; modified: string[]; removed: string[] }[];
    };
    const [commit] = payload.commits;
    return { ...payload, ref, commits: [{ ...commit, added: [], modified: files, removed: [] }] };
  }

  function expectMention(id: number) {
    expectPermission(OWNER, REPO, 'Codertocat', 'write');
    expectReaction(OWNER, REPO, { commentId: id }, 'eyes');
  }

  it('reads the configuration once for a burst of mentions, and again after a push changes it', async () => {
    const app = await testApp({ cacheConfig: true });
    expectInstallationToken();
    expectConfig(OWNER, REPO, null);
    for (const id of [1, 2, 3]) expectMention(id);
    for (const id of [1, 2, 3]) await deliver(app, 'issue_comment', mention(id));
    assertGitHubMocksDone();

    // Pushes elsewhere, and pushes that leave the file alone, keep it.
    await deliver(app, 'push', push(['README.md']));
    await deliver(app, 'push', push(['.github/selfdebug.yml'], 'refs/heads/feature'));
    expectMention(4);
    await deliver(app, 'issue_comment', mention(4));
    assertGitHubMocksDone();

    await deliver(app, 'push', push(['.github/selfdebug.yml']));
    // Read again (the mock must be used), then the mention goes on as before.
    expectConfig(OWNER, REPO, 'max_attempts: 2\n');
    expectMention(5);
    await deliver(app, 'issue_comment', mention(5));
    expect(app.enqueued).toHaveLength(5);
  });
});
