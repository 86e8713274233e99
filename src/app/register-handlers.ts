import type { Context, Probot } from 'probot';
import type { AppDependencies } from './dependencies.js';
import { handleMention } from './handle-mention.js';
import { handlePush } from './handle-push.js';
import { handleReview } from './handle-review.js';
import { handleWorkflowRun } from './handle-workflow-run.js';
import { InFlight } from './in-flight.js';

export interface RegisterOptions {
  /**
   * `first` (the default): Probot answers GitHub as soon as the delivery is
   * verified, and the handler runs after. `after-handlers` is Probot's own
   * behaviour (answer when every handler is done); bench/webhook.ts measures both.
   */
  acknowledge?: 'first' | 'after-handlers';
}

const activity = new WeakMap<Probot, InFlight>();

/** The handlers still running for deliveries `app` has already acknowledged. */
export function handlersInFlight(app: Probot): InFlight | undefined {
  return activity.get(app);
}

/**
 * Wires each webhook to its handler. A failing handler is logged with the
 * delivery id; since the answer has gone out, the log line is where an
 * operator finds the delivery to redeliver.
 */
export function registerHandlers(
  app: Probot,
  dependencies: AppDependencies,
  options: RegisterOptions = {},
): InFlight {
  const inFlight = new InFlight();
  activity.set(app, inFlight);
  const guarded =
    <C extends Context>(
      name: string,
      handler: (context: C, dependencies: AppDependencies) => Promise<void>,
    ) =>
    async (context: C) => {
      const logFailure = (error: unknown) =>
        context.log.error(
          { delivery: context.id, event: name, error: String(error) },
          'webhook handler failed',
        );
      if (options.acknowledge === 'after-handlers') {
        try {
          await handler(context, dependencies);
        } catch (error) {
          logFailure(error);
          throw error;
        }
        return;
      }
      inFlight.start(() => handler(context, dependencies), logFailure);
    };
  app.on('issue_comment.created', guarded('issue_comment.created', handleMention));
  app.on('issues.opened', guarded('issues.opened', handleMention));
  app.on('workflow_run.completed', guarded('workflow_run.completed', handleWorkflowRun));
  app.on('pull_request_review.submitted', guarded('pull_request_review.submitted', handleReview));
  app.on('push', guarded('push', handlePush));
  return inFlight;
}
