import type { Context, Probot } from 'probot';
import type { AppDependencies } from './dependencies.js';
import { handleMention } from './handle-mention.js';
import { handlePush } from './handle-push.js';
import { handleReview } from './handle-review.js';
import { handleWorkflowRun } from './handle-workflow-run.js';

/**
 * Wires each webhook to its handler. A failing handler is logged with the
 * delivery id and rethrown, so Probot answers GitHub with an error and the
 * delivery can be redelivered.
 */
export function registerHandlers(app: Probot, dependencies: AppDependencies): void {
  const guarded =
    <C extends Context>(
      name: string,
      handler: (context: C, dependencies: AppDependencies) => Promise<void>,
    ) =>
    async (context: C) => {
      try {
        await handler(context, dependencies);
      } catch (error) {
        context.log.error(
          { delivery: context.id, event: name, error: String(error) },
          'webhook handler failed',
        );
        throw error;
      }
    };
  app.on('issue_comment.created', guarded('issue_comment.created', handleMention));
  app.on('issues.opened', guarded('issues.opened', handleMention));
  app.on('workflow_run.completed', guarded('workflow_run.completed', handleWorkflowRun));
  app.on('pull_request_review.submitted', guarded('pull_request_review.submitted', handleReview));
  app.on('push', guarded('push', handlePush));
}
