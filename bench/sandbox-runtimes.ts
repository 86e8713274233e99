import type Docker from 'dockerode';
import { DockerSandboxProvider } from '../src/adapters/docker/docker-sandbox-provider.js';
import { parseSandboxConfig } from '../src/config/load-config.js';
import type { Sandbox } from '../src/sandbox/sandbox.js';
import { timeMs } from './stats.js';

/** Many short processes, as a build forks compilers and shells: 400 forks and execs. */
export const FORK_HEAVY = 'for i in $(seq 400); do /bin/true; done';

export interface RuntimeSamples {
  runtime: string;
  command: number[];
  forkHeavy: number[];
  copyIn: number[];
}

/**
 * gVisor against runc in one run, interleaved round by round so the machine's noise hits both alike: a
 * command through Sandbox.exec, a fork-heavy command, and a 50 MB workspace copied into a new sandbox.
 */
export async function compareRuntimes(
  docker: Docker,
  image: string,
  runtimes: readonly string[],
  folders: { empty: string; tree: string },
  rounds: { commands: number; forks: number; copies: number },
): Promise<RuntimeSamples[]> {
  const all = runtimes.map((runtime) => ({
    runtime,
    provider: new DockerSandboxProvider(parseSandboxConfig({ image, runtime }), docker),
    samples: { runtime, command: [], forkHeavy: [], copyIn: [] } as RuntimeSamples,
  }));
  const boxes: Sandbox[] = [];
  try {
    for (const entry of all)
      boxes.push(await entry.provider.open({ jobId: `bench-${entry.runtime}`, workspace: folders.empty }));
    for (const box of boxes) for (let index = 0; index < 5; index++) await box.exec('true');
    for (let round = 0; round < rounds.commands; round++)
      for (const [index, entry] of all.entries())
        entry.samples.command.push(await timeMs(() => boxes[index]!.exec('echo hello')));
    for (let round = 0; round < rounds.forks; round++)
      for (const [index, entry] of all.entries())
        entry.samples.forkHeavy.push(await timeMs(() => boxes[index]!.exec(FORK_HEAVY)));
  } finally {
    await Promise.all(boxes.map((box) => box.dispose()));
  }
  for (let round = 0; round < rounds.copies; round++)
    for (const entry of all) {
      const box = await entry.provider.open({
        jobId: `bench-${entry.runtime}-copy`,
        workspace: folders.empty,
      });
      try {
        entry.samples.copyIn.push(await timeMs(() => box.copyIn(folders.tree)));
      } finally {
        await box.dispose();
      }
    }
  return all.map((entry) => entry.samples);
}
