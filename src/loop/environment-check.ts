import { classifyFailure, describeProblem, needsManifests } from '../environment/classify-failure.js';
import type { PreparationReport } from '../sandbox/environment.js';
import type { ExecResult, Sandbox } from '../sandbox/sandbox.js';

/** Manifests whose content tells a missing dependency (listed, not installed) from a bad import. */
const MANIFESTS = [
  'package.json',
  'requirements.txt',
  'requirements-dev.txt',
  'pyproject.toml',
  'setup.cfg',
  'Pipfile',
  'go.mod',
  'Cargo.toml',
  'Gemfile',
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
];
const MAX_MANIFEST_BYTES = 256 * 1024;

/**
 * Whether a failed reproduction is the environment's fault (a missing
 * tool, an uninstalled dependency, a refused host) rather than the code's.
 * Returns the paragraph that tells the user what to change, or null.
 */
export async function environmentProblem(
  sandbox: Sandbox,
  command: string,
  setupCommands: readonly string[],
  result: ExecResult,
  preparation: PreparationReport | null,
): Promise<string | null> {
  const manifests = needsManifests(result.output) ? await readManifests(sandbox) : {};
  const problem = classifyFailure({
    command,
    exitCode: result.exitCode,
    output: result.output,
    setupCommands: [...setupCommands],
    image: preparation?.image ?? '',
    workspaceFiles: Object.keys(manifests),
    manifests,
    refusedHosts: (preparation?.egress ?? [])
      .filter((target) => !target.allowed)
      .map((target) => target.target),
  });
  return problem ? describeProblem(problem) : null;
}

/**
 * The manifests the workspace has. One after another, not side by side:
 * each read is a command in the sandbox, and a tight pids limit (8 is
 * allowed) would fail some of a dozen at once.
 */
async function readManifests(sandbox: Sandbox): Promise<Record<string, string>> {
  const manifests: Record<string, string> = {};
  for (const name of MANIFESTS) {
    const file = await sandbox.readFile(name).catch(() => null);
    if (file && file.content.length <= MAX_MANIFEST_BYTES) manifests[name] = file.content.toString('utf8');
  }
  return manifests;
}
