import { JobRefusedError } from '../errors/index.js';
import { workspacePath } from '../sandbox/workspace-path.js';
import { type PreparedTask, type TriggerRegistry, type TriggerRequest, triggers } from '../triggers/index.js';
import { writeInside } from '../workspace/copy-back.js';
import { ROUND_TRAILER } from '../workspace/selfdebug-branches.js';
import type { Workspace } from '../workspace/workspace.js';
import type { JobTarget } from './resolve-target.js';

/**
 * What a fresh checkout needs before the sandbox copies it: the round cap
 * on the App's own branch for a trigger whose pushes are automatic rounds
 * (checked here, where the commits are), and the scripts written
 * into it.
 */
export async function prepareCheckout<T extends { kind: string }>(
  checkout: Workspace,
  job: {
    request: TriggerRequest<T>;
    target: JobTarget;
    prepared: PreparedTask;
    maxRounds: number;
    handle: string;
  },
  registry: TriggerRegistry = triggers,
): Promise<void> {
  const { request, target, prepared, maxRounds, handle } = job;
  if (registry.moduleOf(request.trigger).automatic && target.ownBranch) {
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
