import type { AppDependencies } from './dependencies.js';
import { enqueueWithinCeiling } from './enqueue-within-ceiling.js';
import { decideMention, type MentionContext } from './mention-decision.js';

/**
 * `@selfdebug <command>` in a new issue or a comment: decideMention says
 * what it comes to, and this carries it out (the queue and one comment or
 * reaction); the job itself runs later in a worker.
 */
export async function handleMention(context: MentionContext, dependencies: AppDependencies): Promise<void> {
  const host = dependencies.codeHostFor(context);
  const issueNumber = context.payload.issue.number;
  const decision = await decideMention(context, host, dependencies);
  switch (decision.kind) {
    case 'ignore':
      return;
    case 'reply':
      await host.createComment(issueNumber, decision.body);
      return;
    case 'stop': {
      const stopped = await dependencies.queue.cancel(decision.match, decision.reason);
      const jobs = stopped === 1 ? 'the job' : `${stopped} jobs`;
      await host.createComment(
        issueNumber,
        stopped > 0 ? `Stopping ${jobs} for this ${decision.where}.` : 'Nothing is running here.',
      );
      return;
    }
    case 'retry': {
      const previous = await dependencies.queue.latest(decision.match);
      if (!previous) {
        await host.createComment(issueNumber, 'There is no earlier job here to retry.');
        return;
      }
      const again = { ...previous, id: dependencies.newJobId(), ...decision.again };
      const job = { ...again, createdAt: dependencies.now().toISOString() };
      if (await enqueueWithinCeiling(dependencies, host, job))
        await host.react(decision.reactTo, decision.reaction);
      return;
    }
    case 'enqueue':
      if (await enqueueWithinCeiling(dependencies, host, decision.job))
        await host.react(decision.reactTo, decision.reaction);
  }
}
