import type { Context } from 'probot';
import { helpText } from './help-text.js';
import { parseMention } from './parse-mention.js';

export interface HelpOptions {
  /** The login people mention, without `@`. */
  handle: string;
}

interface Sender {
  login: string;
  type: string;
}

/** Replies to `@handle help` (or a bare `@handle`) with the list of commands. */
export async function handleHelp(
  context: Context<'issue_comment.created'>,
  options: HelpOptions,
): Promise<void> {
  const { comment, sender } = context.payload;
  if (isAutomated(sender, options.handle)) return;
  const mention = parseMention(comment.body ?? '', options.handle);
  if (mention?.kind !== 'command' || mention.command !== 'help') return;
  await context.octokit.rest.issues.createComment(context.issue({ body: helpText(options.handle) }));
  context.log.info({ commentId: comment.id }, 'replied with help');
}

/**
 * Bots never get an answer, so two Apps cannot talk to each other forever.
 * The login check also covers our own comments should GitHub ever report
 * the App as something other than a Bot.
 */
function isAutomated(sender: Sender, handle: string): boolean {
  return sender.type === 'Bot' || sender.login.toLowerCase() === `${handle.toLowerCase()}[bot]`;
}
