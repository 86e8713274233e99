import type { Context } from 'probot';
import { repositoryKey } from '../queue/job-request.js';
import { authorize, isAutomated, refusalText } from './authorize.js';
import { jobRequest } from './build-request.js';
import type { AppDependencies } from './dependencies.js';
import { helpText } from './help-text.js';
import { scriptBlocks, stripHiddenText } from './issue-text.js';
import { parseCommand } from './parse-command.js';
import { parseMention } from './parse-mention.js';

type MentionContext = Context<'issue_comment.created'> | Context<'issues.opened'>;

/**
 * `@selfdebug <command>` in a new issue or a comment. Validates, authorizes
 * and enqueues; the job itself runs later in a worker.
 */
export async function handleMention(context: MentionContext, dependencies: AppDependencies): Promise<void> {
  const { payload } = context;
  const comment = 'comment' in payload ? payload.comment : null;
  const body = comment ? comment.body : (payload.issue.body ?? '');
  const mention = parseMention(body, dependencies.handle);
  if (!mention || isAutomated(payload.sender, dependencies.handle)) return;

  const host = dependencies.codeHostFor(context);
  const issueNumber = payload.issue.number;
  const parsed = parseCommand(mention);
  if (parsed.kind === 'help') {
    await host.createComment(issueNumber, helpText(dependencies.handle));
    return;
  }
  if (parsed.kind === 'invalid') {
    await host.createComment(
      issueNumber,
      `Nothing ran: ${parsed.problem}.\n\n${helpText(dependencies.handle)}`,
    );
    return;
  }

  const config = await dependencies.repoConfigFor(context);
  const allowedUsers = config.ok ? config.config.allowedUsers : [];
  const authorization = await authorize(host, payload.sender, dependencies.handle, allowedUsers);
  if (!authorization.allowed) {
    if (authorization.reason !== 'automated') {
      await host.createComment(issueNumber, refusalText(payload.sender.login, authorization));
    }
    return;
  }

  const reactTo = comment ? { commentId: comment.id } : { issueNumber };
  const match = {
    repository: repositoryKey({ owner: payload.repository.owner.login, name: payload.repository.name }),
    issueNumber,
  };
  if (parsed.kind === 'stop') {
    const stopped = await dependencies.queue.cancel(match, `stopped by @${payload.sender.login}`);
    await host.createComment(
      issueNumber,
      stopped > 0
        ? `Stopping ${stopped === 1 ? 'the job' : `${stopped} jobs`} for this ${kind(context)}.`
        : 'Nothing is running here.',
    );
    return;
  }
  if (config.ok && !config.config.mentions) {
    await host.createComment(
      issueNumber,
      'Mentions are turned off for this repository (`triggers.mentions` in `.github/selfdebug.yml`).',
    );
    return;
  }
  if (!config.ok) {
    // An invalid .github/selfdebug.yml gets one comment quoting the problem; nothing runs.
    await host.createComment(issueNumber, config.message);
    return;
  }
  if (parsed.kind === 'retry') {
    const previous = await dependencies.queue.latest(match);
    if (!previous) {
      await host.createComment(issueNumber, 'There is no earlier job here to retry.');
      return;
    }
    const again = {
      ...previous,
      id: dependencies.newJobId(),
      deliveryId: context.id,
      dedupeKey: `retry:${match.repository}:${comment?.id ?? context.id}`,
      requestedBy: payload.sender.login,
      createdAt: dependencies.now().toISOString(),
    };
    if ((await dependencies.queue.enqueue(again)).accepted) await host.react(reactTo, 'eyes');
    return;
  }

  const issueText = stripHiddenText(payload.issue.body ?? '');
  const request = comment ? stripHiddenText(comment.body) : '';
  const text = comment
    ? `${issueText}\n\n---\nRequest from @${payload.sender.login}:\n${request}`
    : issueText;
  const job = jobRequest(context, dependencies, {
    repository: payload.repository,
    requestedBy: payload.sender.login,
    headSha: null,
    baseBranch: payload.repository.default_branch,
    trigger: {
      kind: 'mention',
      command: parsed.command,
      issueNumber,
      isPullRequest: Boolean(payload.issue.pull_request),
      commentId: comment?.id ?? null,
      text,
      scriptBlocks: scriptBlocks(`${issueText}\n${request}`),
    },
    options: parsed.options,
    dedupeKey: comment
      ? `comment:${match.repository}:${comment.id}`
      : `issue:${match.repository}:${issueNumber}`,
  });
  if ((await dependencies.queue.enqueue(job)).accepted) await host.react(reactTo, 'eyes');
}

function kind(context: MentionContext): string {
  return context.payload.issue.pull_request ? 'pull request' : 'issue';
}
