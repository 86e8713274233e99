import type { CodeHost } from '../code-host/code-host.js';
import type { ToolchainImageMap } from '../environment/toolchain-images.js';
import { type PreparedTask, type TriggerRegistry, type TriggerRequest, triggers } from '../triggers/index.js';

/**
 * What the model is told and which command proves the fix, as the trigger
 * kind says: the inline or configured command first; an issue's code blocks
 * when there is none; for a failed run, the failing step's script and a log
 * excerpt.
 */
export async function buildTask<T extends { kind: string }>(
  request: TriggerRequest<T>,
  host: CodeHost,
  configured: { command?: string; setup: string[]; toolchainImages?: ToolchainImageMap },
  registry: TriggerRegistry = triggers,
): Promise<PreparedTask> {
  return registry.moduleOf(request.trigger).task(request, host, {
    command: request.options.command ?? configured.command,
    setupCommands: configured.setup,
    toolchainImages: configured.toolchainImages,
  });
}
