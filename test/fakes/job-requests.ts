import type { JobRequest, JobTrigger } from '../../src/queue/job-request.js';

type MentionTrigger = Extract<JobTrigger, { kind: 'mention' }>;

/** `@selfdebug fix` in issue #7, with whatever the test changes. */
export function mentionTrigger(extra: Partial<MentionTrigger> = {}): MentionTrigger {
  return {
    kind: 'mention',
    command: 'fix',
    issueNumber: 7,
    isPullRequest: false,
    commentId: 1,
    text: 'fix it',
    scriptBlocks: [],
    ...extra,
  };
}

/**
 * A job request as a handler builds it: a mention by octocat on octo/repo,
 * id `job-1`, unless `overrides` say otherwise. Tests that enqueue several
 * give each its own `id`, `deliveryId` and `dedupeKey`.
 */
export function jobRequest(overrides: Partial<JobRequest> = {}): JobRequest {
  const id = overrides.id ?? 'job-1';
  return {
    id,
    deliveryId: `delivery-${id}`,
    dedupeKey: `comment:${id}`,
    installationId: 1,
    repository: {
      owner: 'octo',
      name: 'repo',
      cloneUrl: 'https://github.com/octo/repo.git',
      defaultBranch: 'main',
      private: false,
    },
    requestedBy: 'octocat',
    headSha: null,
    baseBranch: 'main',
    trigger: mentionTrigger(),
    options: {},
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}
