import { JobRefusedError } from '../errors/index.js';
import type { JobRequest } from '../queue/job-request.js';
import { workspacePath } from '../sandbox/workspace-path.js';
import { writeInside } from '../workspace/copy-back.js';
import { ROUND_TRAILER } from '../workspace/selfdebug-branches.js';
import type { Workspace } from '../workspace/workspace.js';
import type { PreparedTask } from './build-task.js';
import type { JobTarget } from './resolve-target.js';

/**
 * What a fresh checkout needs before the sandbox copies it: the round cap
 * on the App's own branch (checked here, where the commits are), and the
 * issue's scripts written into it.
 */
export async function prepareCheckout(
  checkout: Workspace,
  job: { request: JobRequest; target: JobTarget; prepared: PreparedTask; maxRounds: number; handle: string },
): Promise<void> {
  const { request, target, prepared, maxRounds, handle } = job;
  if (request.trigger.kind === 'workflow-run' && target.ownBranch) {
    const rounds = await checkout.countCommits(ROUND_TRAILER);
    if (rounds >= maxRounds) {
      throw new JobRefusedError(
        `selfdebug already pushed ${rounds} automatic ${rounds === 1 ? 'fix' : 'fixes'} to this branch after failed runs ` +
          `(the limit is ${maxRounds}, \`triggers.workflow_runs.max_rounds\`); it stops here so it can never loop. ` +
          `Mention @${handle} to continue by hand.`,
      );
    }
  }
  for (const script of prepared.scripts) {
    // The repository may hold a link where the scripts go: never written through.
    await writeInside(checkout.dir, workspacePath(script.path), Buffer.from(script.content), 0o644);
  }
}
