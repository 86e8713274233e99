import type { Context, Probot } from 'probot';
import type { z } from 'zod';
import type { AppDependencies } from './dependencies.js';
import { handleCheckSuite } from './handle-check-suite.js';
import { handleMention } from './handle-mention.js';
import { handlePush } from './handle-push.js';
import { handleReview } from './handle-review.js';
import { handleWorkflowRun } from './handle-workflow-run.js';
import { InFlight } from './in-flight.js';
import * as payloads from './payload-schemas.js';
import { rejectNonObjectBodies } from './reject-non-object-bodies.js';

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
  rejectNonObjectBodies(app.webhooks);
  const guarded = guardWith(inFlight, dependencies, options);
  app.on(
    'issue_comment.created',
    guarded('issue_comment.created', payloads.issueCommentCreated, handleMention),
  );
  app.on('issues.opened', guarded('issues.opened', payloads.issuesOpened, handleMention));
  app.on(
    'workflow_run.completed',
    guarded('workflow_run.completed', payloads.workflowRunCompleted, handleWorkflowRun),
  );
  app.on(
    'check_suite.completed',
    guarded('check_suite.completed', payloads.checkSuiteCompleted, handleCheckSuite),
  );
  app.on(
    'pull_request_review.submitted',
    guarded('pull_request_review.submitted', payloads.pullRequestReviewSubmitted, handleReview),
  );
  app.on('push', guarded('push', payloads.push, handlePush));
  return inFlight;
}

/**
 * Wraps handlers: a malformed payload is dropped, a failure is logged with
 * the delivery id, and the handler runs after GitHub's answer unless
 * `acknowledge` is `after-handlers`.
 */
function guardWith(inFlight: InFlight, dependencies: AppDependencies, options: RegisterOptions) {
  return <C extends Context>(
    name: string,
    schema: z.ZodType,
    handler: (context: C, dependencies: AppDependencies) => Promise<void>,
  ) =>
    async (context: C) => {
      // A malformed payload is dropped here, answered 200 like any delivery we do not act on: GitHub would only redeliver it.
      const checked = schema.safeParse(context.payload);
      if (!checked.success) {
        context.log.warn(
          { delivery: context.id, event: name, problem: payloads.firstProblem(checked.error) },
          'webhook payload ignored: malformed',
        );
        return;
      }
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
}
