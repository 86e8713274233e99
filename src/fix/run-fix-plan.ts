import { runLoop } from '../loop/run-loop.js';
import { readOnce } from '../sandbox/read-once.js';
import type { OpenSandboxRequest } from '../sandbox/sandbox.js';
import { withSandbox } from '../sandbox/with-sandbox.js';
import { type CopyBackReport, copyBack } from '../workspace/copy-back.js';
import type { FixPlan, FixPorts } from './fix-plan.js';

const NOTHING_COPIED: CopyBackReport = { written: [], refused: [] };

/**
 * The one way a fix runs, whichever door planned it: a sandbox opens on the
 * plan's workspace and environment, the loop runs in it, the changed files
 * come back as the plan says, and the door's delivery runs while the
 * sandbox is still open (a push is quicker than a container's removal);
 * the sandbox is removed however it ends.
 */
export async function runFixPlan<Delivered>(plan: FixPlan, ports: FixPorts<Delivered>): Promise<Delivered> {
  const { signal } = ports;
  const opening: OpenSandboxRequest = {
    jobId: plan.jobId,
    workspace: plan.workspace,
    ...(plan.environment === undefined ? {} : { environment: plan.environment }),
    ...(ports.onProgress ? { onProgress: ports.onProgress } : {}),
    ...(signal ? { signal } : {}),
  };
  return withSandbox(ports.sandboxes, opening, async (sandbox) => {
    const loop = await runLoop({
      task: plan.task,
      limits: plan.limits,
      model: ports.model,
      sandbox,
      prices: plan.prices,
      ...(ports.emit ? { emit: ports.emit } : {}),
      ...(signal ? { signal } : {}),
      ...(plan.mode ? { mode: plan.mode } : {}),
    });
    const wanted = plan.copyBack === 'always' || (plan.copyBack === 'when-fixed' && loop.outcome === 'fixed');
    // Only the files the loop edited come back, never .git, build output or anything else the command wrote.
    const files = readOnce(sandbox);
    const copied = wanted
      ? await copyBack(files, loop.changedFiles, await copyBackFolder(plan))
      : NOTHING_COPIED;
    return ports.deliver({ loop, sandbox, copied, files });
  });
}

/** The folder the changed files come back into: the plan's own choice, else the workspace copied in. */
async function copyBackFolder(plan: FixPlan): Promise<string> {
  return plan.copyBackInto ? plan.copyBackInto() : plan.workspace;
}
