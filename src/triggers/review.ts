import type { CodeHost } from '../code-host/code-host.js';
import { JobRefusedError } from '../errors/index.js';
import type { PreparedTask, TaskSettings, TriggerModule, TriggerRequest } from './trigger-module.js';

/** A review asking for changes on a pull request the App opened. */
export interface ReviewTrigger {
  kind: 'review';
  pullNumber: number;
  reviewId: number | null;
  commentId: number | null;
  branch: string;
  text: string;
  comments: ReviewComment[];
}

interface ReviewComment {
  path: string | null;
  line: number | null;
  body: string;
}

export const review: TriggerModule<ReviewTrigger> = {
  kind: 'review',
  issueNumber: (trigger) => trigger.pullNumber,
  serialKey: (trigger) => `branch:${trigger.branch}`,
  branch: (trigger) => trigger.branch,
  // Its command usually passes before the requested changes, and must after.
  loopMode: () => 'revise',
  // The App's own branch: the changes go on top of its pull request.
  target: async (request, host) => ({
    headSha: request.headSha ?? (await host.branchHead(request.trigger.branch)),
    ref: request.trigger.branch,
    workBranch: request.trigger.branch,
    ownBranch: true,
    baseBranch: request.baseBranch,
    existingPull: request.trigger.pullNumber,
  }),
  task: reviewTask,
  automatic: false,
  describe: (trigger, requestedBy, md) =>
    `Review by ${md.line(`@${requestedBy}`, 60)} on pull request #${trigger.pullNumber}`,
  issueToClose: () => null,
};

/** The review and its comments on the code, verified by the configured command. */
async function reviewTask(
  request: TriggerRequest<ReviewTrigger>,
  host: CodeHost,
  settings: TaskSettings,
): Promise<PreparedTask> {
  const { trigger } = request;
  const comments = trigger.reviewId ? await host.reviewComments(trigger.pullNumber, trigger.reviewId) : [];
  const lines = comments.map(
    (comment) => `- ${comment.path}${comment.line ? `:${comment.line}` : ''}: ${comment.body}`,
  );
  const description = [
    'A reviewer asked for changes to this fix.',
    trigger.text ? `Review:\n${trigger.text}` : '',
    lines.length > 0 ? `Comments on the code:\n${lines.join('\n')}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  if (!settings.command) {
    throw new JobRefusedError(
      'Set `command` in `.github/selfdebug.yml` so I can verify changes asked for in a review.',
    );
  }
  const { command, setupCommands } = settings;
  return { task: { description, command, setupCommands }, scripts: [] };
}
