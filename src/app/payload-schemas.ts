import { z } from 'zod';

/**
 * What each handler reads from a delivery, checked before it runs. A
 * signed delivery can still be malformed (a GitHub change, a replayed or
 * hand-made request from someone holding the secret), and a handler that
 * read `payload.sender.login` from it would throw after the answer went out.
 * Objects are loose: GitHub adds fields all the time, and only the ones we
 * read must hold. Strings are capped so a huge field is refused, not copied
 * into a job.
 */
const LONG_TEXT = 262_144;
const text = (max = 1024) => z.string().max(max);
const id = z.number().int().nonnegative();
const login = z.object({ login: text(256) }).loose();
const sender = z.object({ login: text(256), type: text(64).optional() }).loose();

const repository = z
  .object({
    // The numeric id scopes the prepared-environment cache: a renamed or re-created repository is another tenant.
    id: id.optional(),
    name: text(256),
    full_name: text(512),
    owner: login,
    clone_url: text(2048),
    default_branch: text(512),
    private: z.boolean(),
  })
  .loose();

const installation = z.object({ id }).loose().optional();

const issue = z
  .object({
    number: id,
    body: text(LONG_TEXT).nullable().optional(),
    pull_request: z.object({}).loose().nullable().optional(),
  })
  .loose();

export const issueCommentCreated = z
  .object({
    issue,
    comment: z.object({ id, body: text(LONG_TEXT) }).loose(),
    repository,
    sender,
    installation,
  })
  .loose();

export const issuesOpened = z.object({ issue, repository, sender, installation }).loose();

export const workflowRunCompleted = z
  .object({
    workflow_run: z
      .object({
        id,
        name: text().nullable().optional(),
        path: text().nullable().optional(),
        conclusion: text(64).nullable(),
        head_branch: text(512).nullable(),
        head_sha: text(64),
        run_attempt: id.optional(),
        actor: login.nullable().optional(),
        head_repository: z
          .object({ full_name: text(512) })
          .loose()
          .nullable()
          .optional(),
        pull_requests: z.array(z.object({ number: id }).loose()).max(1000),
      })
      .loose(),
    workflow: z.object({ path: text().optional() }).loose().nullable().optional(),
    repository,
    sender,
    installation,
  })
  .loose();

export const checkSuiteCompleted = z
  .object({
    check_suite: z
      .object({
        head_branch: text(512).nullable(),
        head_sha: text(64),
        conclusion: text(64).nullable(),
        app: z
          .object({ slug: text(256).optional() })
          .loose()
          .nullable()
          .optional(),
      })
      .loose(),
    repository,
    installation,
  })
  .loose();

export const pullRequestReviewSubmitted = z
  .object({
    pull_request: z
      .object({
        number: id,
        head: z
          .object({
            ref: text(512),
            sha: text(64),
            repo: z
              .object({ full_name: text(512) })
              .loose()
              .nullable(),
          })
          .loose(),
        base: z.object({ ref: text(512) }).loose(),
      })
      .loose(),
    review: z.object({ id, state: text(64), body: text(LONG_TEXT).nullable().optional() }).loose(),
    repository,
    sender,
    installation,
  })
  .loose();

const paths = z.array(text(4096)).max(10_000).optional();

export const push = z
  .object({
    ref: text(1024),
    after: text(64),
    deleted: z.boolean().optional(),
    commits: z.array(z.object({ added: paths, modified: paths, removed: paths }).loose()).max(10_000),
    repository: z.object({ full_name: text(512), default_branch: text(512) }).loose(),
    sender: z
      .object({ login: text(256) })
      .loose()
      .nullable()
      .optional(),
    installation,
  })
  .loose();

/** Where a malformed payload first goes wrong, for the log line: a path, never the value. */
export function firstProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || '(payload)'}: ${issue.code}` : 'invalid';
}
