import type { Context } from 'probot';
import type { CodeHost, Reaction } from '../code-host/code-host.js';
import { type JobMatch, type JobRequest, repositoryKey } from '../queue/job-request.js';
import { authorize, isAutomated, refusalText } from './authorize.js';
import { jobRequest } from './build-request.js';
import type { AppDependencies } from './dependencies.js';
import { helpText } from './help-text.js';
import { scriptBlocks, stripHiddenText } from './issue-text.js';
import { type ParsedCommand, parseCommand } from './parse-command.js';
import { parseMention } from './parse-mention.js';

export type MentionContext = Context<'issue_comment.created'> | Context<'issues.opened'>;

/** Where the 👀 goes once a job is queued: the comment that asked, or the issue itself. */
type ReactTarget = Parameters<CodeHost['react']>[0];

/**
 * What a mention comes to, decided before anything is written: nothing, a
 * reply, stopping the jobs here, retrying the latest one, or a new job.
 */
export type MentionDecision =
  | { kind: 'ignore' }
  | { kind: 'reply'; body: string }
  | { kind: 'stop'; match: JobMatch; reason: string; where: 'issue' | 'pull request' }
  | {
      kind: 'retry';
      match: JobMatch;
      /** What the repeated request takes from this delivery rather than the earlier one. */
      again: Pick<JobRequest, 'deliveryId' | 'dedupeKey' | 'requestedBy'>;
      reactTo: ReactTarget;
      reaction: Reaction;
    }
  | { kind: 'enqueue'; job: JobRequest; reactTo: ReactTarget; reaction: Reaction };

/**
 * Validates and authorizes a mention: reads the repository's configuration
 * and the sender's permission (the only calls it makes), and says what to do.
 */
export async function decideMention(
  context: MentionContext,
  host: CodeHost,
  dependencies: AppDependencies,
): Promise<MentionDecision> {
  const { payload } = context;
  const comment = 'comment' in payload ? payload.comment : null;
  const mention = parseMention(comment ? comment.body : (payload.issue.body ?? ''), dependencies.handle);
  if (!mention || isAutomated(payload.sender, dependencies.handle)) return { kind: 'ignore' };
  const parsed = parseCommand(mention);
  if (parsed.kind === 'help') return { kind: 'reply', body: helpText(dependencies.handle) };
  if (parsed.kind === 'invalid')
    return { kind: 'reply', body: `Nothing ran: ${parsed.problem}.\n\n${helpText(dependencies.handle)}` };

  const config = await dependencies.repoConfigFor(context);
  const allowedUsers = config.ok ? config.config.allowedUsers : [];
  const authorization = await authorize(host, payload.sender, dependencies.handle, allowedUsers);
  if (!authorization.allowed) {
    if (authorization.reason === 'automated') return { kind: 'ignore' };
    return { kind: 'reply', body: refusalText(payload.sender.login, authorization) };
  }
  const match = {
    repository: repositoryKey({ owner: payload.repository.owner.login, name: payload.repository.name }),
    issueNumber: payload.issue.number,
  };
  if (parsed.kind === 'stop') {
    const where = payload.issue.pull_request ? 'pull request' : 'issue';
    return { kind: 'stop', match, reason: `stopped by @${payload.sender.login}`, where };
  }
  if (config.ok && !config.config.mentions) {
    return {
      kind: 'reply',
      body: 'Mentions are turned off for this repository (`triggers.mentions` in `.github/selfdebug.yml`).',
    };
  }
  // An invalid .github/selfdebug.yml gets one comment quoting the problem; nothing runs.
  if (!config.ok) return { kind: 'reply', body: config.message };
  return jobDecision(context, dependencies, parsed, match);
}

/** A retry of the latest job here, or a new job from the issue's text and the command. */
function jobDecision(
  context: MentionContext,
  dependencies: AppDependencies,
  parsed: Extract<ParsedCommand, { kind: 'retry' | 'job' }>,
  match: JobMatch,
): MentionDecision {
  const { payload } = context;
  const comment = 'comment' in payload ? payload.comment : null;
  const reactTo = comment ? { commentId: comment.id } : { issueNumber: match.issueNumber };
  if (parsed.kind === 'retry') {
    const dedupeKey = `retry:${match.repository}:${comment?.id ?? context.id}`;
    const again = { deliveryId: context.id, dedupeKey, requestedBy: payload.sender.login };
    return { kind: 'retry', match, again, reactTo, reaction: 'eyes' };
  }
  const issueText = stripHiddenText(payload.issue.body ?? '');
  const request = comment ? stripHiddenText(comment.body) : '';
  const job = jobRequest(context, dependencies, {
    repository: payload.repository,
    requestedBy: payload.sender.login,
    headSha: null,
    baseBranch: payload.repository.default_branch,
    trigger: {
      kind: 'mention',
      command: parsed.command,
      issueNumber: match.issueNumber,
      isPullRequest: Boolean(payload.issue.pull_request),
      commentId: comment?.id ?? null,
      text: comment ? `${issueText}\n\n---\nRequest from @${payload.sender.login}:\n${request}` : issueText,
      scriptBlocks: scriptBlocks(`${issueText}\n${request}`),
    },
    options: parsed.options,
    dedupeKey: comment
      ? `comment:${match.repository}:${comment.id}`
      : `issue:${match.repository}:${match.issueNumber}`,
  });
  return { kind: 'enqueue', job, reactTo, reaction: 'eyes' };
}
