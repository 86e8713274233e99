import { afterEach, describe, expect, it } from 'vitest';
import {
  planSuggestionReview,
  postSuggestionReview,
  type SuggestionReviewInput,
  type SuggestionReviewPlan,
} from '../../src/action/suggestion-review.js';
import { GitHubCodeHost } from '../../src/adapters/github/index.js';
import { unifiedDiff } from '../../src/loop/unified-diff.js';
import { Redactor } from '../../src/report/redact.js';
import { assertGitHubMocksDone, documentedReply, githubApi, testOctokit } from '../helpers/github-api.js';

const BEFORE = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'].join('\n');
const DIFF = unifiedDiff('src/x.txt', `${BEFORE}\n`, `${BEFORE.replace('b', 'B').replace('k', 'K')}\n`);
const RUN_URL = 'https://github.com/octo-org/app/actions/runs/7';
const SECRET = 'hunter2-correct-horse-battery';

function input(overrides: Partial<SuggestionReviewInput> = {}): SuggestionReviewInput {
  return {
    diff: DIFF,
    pull: { number: 12, headSha: 'h'.repeat(40) },
    // The pull request's hunk covers new lines 1–6: the fix's first hunk (lines 1–5), not its second (8–12).
    files: [{ filename: 'src/x.txt', patch: '@@ -1,4 +1,6 @@\n a\n+new\n+new\n b\n c\n d' }],
    texts: null,
    summary: 'Capitalised b and k.',
    runUrl: RUN_URL,
    redactor: Redactor.none,
    ...overrides,
  };
}

describe('planSuggestionReview', () => {
  it("places the hunks inside the pull request's diff and writes the rest into the body", () => {
    const plan = planSuggestionReview(input());
    expect(plan.pullNumber).toBe(12);
    expect(plan.commitId).toBe('h'.repeat(40));
    expect(plan.comments).toEqual([
      {
        path: 'src/x.txt',
        line: 5,
        side: 'RIGHT',
        start_line: 1,
        start_side: 'RIGHT',
        body: '```suggestion\na\nB\nc\nd\ne\n```',
      },
    ]);
    expect(plan.leftOver).toEqual(['src/x.txt, lines 8–12, becomes:\n```suggestion\nh\ni\nj\nK\nl\n```']);
    expect(plan.body).toBe(
      `selfdebug found a fix for the failure of ${RUN_URL}: Capitalised b and k.\n\n` +
        `Outside the lines this pull request changes, so not suggestions:\n\n${plan.leftOver[0]}`,
    );
  });

  it('writes nothing more than the intro when every hunk is placed', () => {
    const files = [{ filename: 'src/x.txt', patch: '@@ -1,12 +1,12 @@' }];
    const plan = planSuggestionReview(input({ files }));
    expect(plan.comments.map((comment) => [comment.start_line, comment.line])).toEqual([
      [1, 5],
      [8, 12],
    ]);
    expect(plan.leftOver).toEqual([]);
    expect(plan.body).toBe(`selfdebug found a fix for the failure of ${RUN_URL}: Capitalised b and k.`);
  });

  it('names only the line of a one-line suggestion', () => {
    const diff = unifiedDiff('one.txt', 'old\n', 'new\n');
    const plan = planSuggestionReview(
      input({ diff, files: [{ filename: 'one.txt', patch: '@@ -1 +1 @@' }] }),
    );
    expect(plan.comments).toEqual([
      { path: 'one.txt', line: 1, side: 'RIGHT', body: '```suggestion\nnew\n```' },
    ]);
  });

  it('keeps the whole patch for the fallback review', () => {
    const plan = planSuggestionReview(input());
    expect(plan.fallbackBody).toBe(
      `selfdebug found a fix for the failure of ${RUN_URL}: Capitalised b and k.\n\n\`\`\`diff\n${DIFF}\n\`\`\``,
    );
  });

  it("moves the fix's lines from the checked-out merge to the head's", () => {
    // The merge checked out two lines the base added at the top; the head has not got them.
    const checkedOut = `x\ny\n${BEFORE}\n`;
    const diff = unifiedDiff('src/x.txt', checkedOut, checkedOut.replace('j', 'J'));
    const texts = new Map([['src/x.txt', { head: `${BEFORE}\n`, checkedOut }]]);
    const files = [{ filename: 'src/x.txt', patch: '@@ -1,12 +1,12 @@' }];
    const plan = planSuggestionReview(input({ diff, texts, files }));
    // Lines 9–14 of the merge (j is its 12th) are lines 7–12 of the head.
    expect(plan.comments.map((comment) => [comment.start_line, comment.line])).toEqual([[7, 12]]);
    expect(plan.leftOver).toEqual([]);
  });

  it('redacts the secrets in every text it plans', () => {
    const diff = unifiedDiff('one.txt', 'old\n', `${SECRET}\n`);
    const plan = planSuggestionReview(
      input({
        diff,
        files: [],
        summary: `Put ${SECRET} in one.txt.`,
        redactor: new Redactor([SECRET]),
      }),
    );
    expect(plan.leftOver).toHaveLength(1);
    expect(JSON.stringify(plan)).not.toContain(SECRET.slice(0, 12));
    const placed = planSuggestionReview(
      input({
        diff,
        files: [{ filename: 'one.txt', patch: '@@ -1 +1 @@' }],
        redactor: new Redactor([SECRET]),
      }),
    );
    expect(placed.comments[0]!.body).toBe('```suggestion\n[REDACTED]\n```');
  });
});

describe('postSuggestionReview', () => {
  afterEach(() => assertGitHubMocksDone());

  const plan: SuggestionReviewPlan = {
    pullNumber: 12,
    commitId: 'h'.repeat(40),
    comments: [{ path: 'src/x.txt', line: 5, side: 'RIGHT', body: '```suggestion\nB\n```' }],
    leftOver: [],
    body: 'the body',
    fallbackBody: 'the whole patch',
  };
  const reviews = '/repos/octo-org/app/pulls/12/reviews';
  const review = { html_url: 'https://github.com/octo-org/app/pull/12#pullrequestreview-1' };
  const common = { commit_id: plan.commitId, event: 'COMMENT' };

  it('posts one review with the inline suggestions', async () => {
    githubApi()
      .post(reviews, {
        ...common,
        body: 'the body',
        comments: plan.comments.map((comment) => ({ ...comment })),
      })
      .reply(200, review);
    await expect(
      postSuggestionReview(new GitHubCodeHost(testOctokit(), { owner: 'octo-org', repo: 'app' }), plan),
    ).resolves.toEqual({
      url: review.html_url,
      notes: [],
    });
  });

  it('posts the fallback review when GitHub refuses the inline comments', async () => {
    githubApi()
      .post(reviews, {
        ...common,
        body: 'the body',
        comments: plan.comments.map((comment) => ({ ...comment })),
      })
      .reply(
        documentedReply(422, {
          message: 'Unprocessable Entity',
          errors: ['Line could not be resolved'],
          documentation_url: 'https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request',
        }),
      )
      .post(reviews, { ...common, body: 'the whole patch' })
      .reply(200, review);
    await expect(
      postSuggestionReview(new GitHubCodeHost(testOctokit(), { owner: 'octo-org', repo: 'app' }), plan),
    ).resolves.toEqual({
      url: review.html_url,
      notes: ['GitHub refused inline suggestions (lines outside the diff); the review holds the patch.'],
    });
  });

  it('passes on any other failure', async () => {
    githubApi()
      .post(reviews, {
        ...common,
        body: 'the body',
        comments: plan.comments.map((comment) => ({ ...comment })),
      })
      .reply(403, { message: 'Resource not accessible by integration' });
    await expect(
      postSuggestionReview(new GitHubCodeHost(testOctokit(), { owner: 'octo-org', repo: 'app' }), plan),
    ).rejects.toMatchObject({ status: 403 });
  });
});
