import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import { LocalSandboxProvider } from '../../src/adapters/local/local-sandbox-provider.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import type { LoopEvent } from '../../src/loop/events.js';
import type { Reflection } from '../../src/loop/schemas.js';
import { type LoopLimits, type LoopLimitsInput, loopLimitsSchema } from '../../src/loop/task.js';
import { type ScriptedAnswer, ScriptedModel } from '../../src/model/scripted-model.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import type { Timers } from '../../src/util/timers.js';
import { useTempDirs } from './temp-dir.js';

/**
 * Local sandboxes over temporary workspaces, disposed after each test; `timers`
 * decides when a command's time limit passes (the real scheduler by default).
 */
export function useLocalSandboxes(): (files: Record<string, string>, timers?: Timers) => Promise<Sandbox> {
  const tempDir = useTempDirs();
  const open: Sandbox[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((sandbox) => sandbox.dispose()));
  });
  const config = parseSandboxConfig({ kind: 'local' });
  return async (files, timers) => {
    const provider = new LocalSandboxProvider(config, {
      host: process.env,
      warn: () => {},
      ...(timers ? { timers } : {}),
    });
    const workspace = await tempDir();
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(workspace, path)), { recursive: true });
      await writeFile(join(workspace, path), content);
    }
    const sandbox = await provider.open({ jobId: 'loop-test', workspace });
    open.push(sandbox);
    return sandbox;
  };
}

export function limits(overrides: LoopLimitsInput = {}): LoopLimits {
  return loopLimitsSchema.parse({ commandTimeoutSeconds: 20, ...overrides });
}

export const reflection: Reflection = {
  summary: 'Fixed the script',
  rootCause: 'A name was used before it was defined',
  changes: 'Defined it',
  confidence: 'high',
  risks: [],
};

export function fix(
  analysis: string,
  edits: { path: string; search: string; replace: string }[],
): ScriptedAnswer {
  return ScriptedModel.json({ analysis, edits });
}

export function decide(retry: boolean, reason: string): ScriptedAnswer {
  return ScriptedModel.json({ retry, reason });
}

export const reflect = (): ScriptedAnswer => ScriptedModel.json(reflection);

export function types(events: LoopEvent[]): string[] {
  return events.map((event) => (event.type === 'model-responded' ? `model:${event.purpose}` : event.type));
}

export function eventsOf<T extends LoopEvent['type']>(
  events: LoopEvent[],
  type: T,
): Extract<LoopEvent, { type: T }>[] {
  return events.filter((event): event is Extract<LoopEvent, { type: T }> => event.type === type);
}
