import { networkFailure } from './network-failure.js';

/**
 * Tells an environment failure from a code failure by the structure of the
 * output: a shell that cannot find a program, an interpreter that cannot
 * find a third-party package the manifest lists, a host the setup proxy
 * refused. Only then is the job stopped before the model: a missing module
 * the project never declared is a code problem and goes to the model.
 */
type EnvironmentProblemKind =
  | 'command-not-found'
  | 'module-missing'
  | 'host-refused'
  | 'toolchain-missing'
  | 'network-needed'
  | 'setup-failed';

export interface EnvironmentProblem {
  kind: EnvironmentProblemKind;
  subject: string;
  message: string;
  fix: string;
  evidence: string;
}

export interface FailureContext {
  command: string;
  exitCode: number;
  output: string;
  setupCommands: string[];
  image: string;
  workspaceFiles?: string[];
  manifests?: Record<string, string>;
  refusedHosts?: string[];
}

/** Toolchain programs and an official image that has them. */
const TOOLCHAINS: Record<string, string> = {
  node: 'node:22-bookworm',
  npm: 'node:22-bookworm',
  npx: 'node:22-bookworm',
  yarn: 'node:22-bookworm',
  pnpm: 'node:22-bookworm',
  python: 'python:3.12-bookworm',
  python3: 'python:3.12-bookworm',
  pip: 'python:3.12-bookworm',
  pip3: 'python:3.12-bookworm',
  pytest: 'python:3.12-bookworm',
  go: 'golang:1.23-bookworm',
  cargo: 'rust:1-bookworm',
  rustc: 'rust:1-bookworm',
  java: 'eclipse-temurin:21-jdk',
  javac: 'eclipse-temurin:21-jdk',
  mvn: 'maven:3-eclipse-temurin-21',
  gradle: 'gradle:8-jdk21',
  ruby: 'ruby:3.3-bookworm',
  bundle: 'ruby:3.3-bookworm',
  dotnet: 'mcr.microsoft.com/dotnet/sdk:8.0',
  gcc: 'gcc:14',
  make: 'gcc:14',
};

/** Import names whose distribution is named otherwise. */
const PYTHON_DISTRIBUTIONS: Record<string, string> = {
  yaml: 'pyyaml',
  sklearn: 'scikit-learn',
  pil: 'pillow',
  cv2: 'opencv-python',
  bs4: 'beautifulsoup4',
  dateutil: 'python-dateutil',
  dotenv: 'python-dotenv',
  jwt: 'pyjwt',
  google: 'protobuf',
};

const NOT_FOUND = [
  /(?:^|\n)(?:[^\n:]*: )?(?:line \d+: )?([\w.+-]+): (?:command not found|not found)\s*$/m,
  /env: '?([\w.+-]+)'?: No such file or directory/,
  /exec: "?([\w.+-]+)"?: executable file not found/,
];

export function classifyFailure(context: FailureContext): EnvironmentProblem | null {
  return hostRefused(context) ?? commandNotFound(context) ?? moduleMissing(context) ?? networkNeeded(context);
}

/** A run that failed for want of the network (see network-failure.ts for when that is the run's failure). */
export function networkNeeded(context: Pick<FailureContext, 'command' | 'exitCode' | 'output'>) {
  const failure = networkFailure(context.command, context.exitCode, context.output);
  return failure ? ({ kind: 'network-needed', ...failure } satisfies EnvironmentProblem) : null;
}

function commandNotFound(context: FailureContext): EnvironmentProblem | null {
  if (context.exitCode !== 127 && context.exitCode !== 126 && !/not found/.test(context.output)) return null;
  for (const pattern of NOT_FOUND) {
    const match = pattern.exec(context.output);
    const name = match?.[1];
    // A path (./run.sh) is the project's own file: missing it is the code's business.
    if (!name || name.includes('/') || name.startsWith('.')) continue;
    const evidence = match[0].trim();
    const image = TOOLCHAINS[name];
    if (image)
      return {
        kind: 'toolchain-missing',
        subject: name,
        message: `\`${name}\` is not installed in the image ${context.image || 'used'}.`,
        fix: `Set \`sandbox.image\` in .github/selfdebug.yml to an image with it (for example \`${image}\`), or install it in \`setup\`.`,
        evidence,
      };
    return {
      kind: 'command-not-found',
      subject: name,
      message: `The command \`${name}\` is not installed in the image ${context.image || 'used'}.`,
      fix: 'Install it in `setup` in .github/selfdebug.yml, or pick a `sandbox.image` that has it.',
      evidence,
    };
  }
  return null;
}

/** The module an output says is missing (Python, Node or Go), or null. */
function missingModule(output: string): { name: string; distribution: string; evidence: string } | null {
  return missingPythonModule(output) ?? missingNodeModule(output) ?? missingGoModule(output);
}

/**
 * Whether the classification reads the project's manifests: only to tell a
 * listed but uninstalled module from a bad import. Reading them costs a
 * sandbox command each, so they are read only for such an output.
 */
export function needsManifests(output: string): boolean {
  return missingModule(output) !== null;
}

function moduleMissing(context: FailureContext): EnvironmentProblem | null {
  const found = missingModule(context.output);
  if (!found) return null;
  const manifests = context.manifests ?? {};
  const listed = Object.values(manifests).some((text) => lists(text, found.distribution));
  if (!listed) return null;
  const installed = context.setupCommands.length > 0;
  return {
    kind: 'module-missing',
    subject: found.name,
    message: `\`${found.name}\` is listed in the project's manifest but is not installed${installed ? ' (setup ran, but did not install it)' : ''}.`,
    fix: installed
      ? "Check that the `setup` commands install the manifest's dependencies, and that their hosts are allowed (`sandbox.allowed_hosts`)."
      : 'Add the install command to `setup` in .github/selfdebug.yml (for example `pip install -r requirements.txt` or `npm ci`).',
    evidence: found.evidence,
  };
}

function missingPythonModule(
  output: string,
): { name: string; distribution: string; evidence: string } | null {
  const match = /(?:ModuleNotFoundError|ImportError): No module named '([\w.]+)'/.exec(output);
  if (!match) return null;
  const top = match[1]!.split('.')[0]!;
  return { name: top, distribution: PYTHON_DISTRIBUTIONS[top.toLowerCase()] ?? top, evidence: match[0] };
}

function missingNodeModule(output: string): { name: string; distribution: string; evidence: string } | null {
  const match = /Cannot find (?:module|package) '([^']+)'/.exec(output);
  if (!match || match[1]!.startsWith('.') || match[1]!.startsWith('/')) return null;
  const parts = match[1]!.split('/');
  const name = match[1]!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return { name, distribution: name, evidence: match[0] };
}

function missingGoModule(output: string): { name: string; distribution: string; evidence: string } | null {
  const match =
    /no required module provides package ([\w./-]+)|missing go\.sum entry for module providing package ([\w./-]+)/.exec(
      output,
    );
  if (!match) return null;
  const name = (match[1] ?? match[2])!;
  return { name, distribution: name.split('/').slice(0, 3).join('/'), evidence: match[0] };
}

/** Whether a manifest names the distribution, with `-`, `_` and `.` and case taken as equal. */
function lists(manifest: string, distribution: string): boolean {
  const fold = (text: string) => text.toLowerCase().replace(/[-_.]+/g, '-');
  const wanted = fold(distribution).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new RegExp(`(^|[^\\w-])${wanted}($|[^\\w-])`, 'm').test(fold(manifest));
}

function hostRefused(context: FailureContext): EnvironmentProblem | null {
  const refused = context.refusedHosts ?? [];
  if (refused.length === 0) return null;
  const evidence =
    /(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|Could not resolve host|Temporary failure in name resolution|Failed to establish a new connection|ProxyError|Tunnel connection failed|403 Forbidden|getaddrinfo)[^\n]*/.exec(
      context.output,
    );
  if (!evidence) return null;
  return {
    kind: 'host-refused',
    subject: refused.join(', '),
    message: `Setup was refused ${refused.join(', ')}, and the command fails for want of the network.`,
    fix: `Add ${refused.length === 1 ? 'that host' : 'those hosts'} to \`sandbox.allowed_hosts\` in .github/selfdebug.yml so setup can fetch what the command needs.`,
    evidence: evidence[0].slice(0, 300),
  };
}

export function classifySetupFailure(
  step: string,
  exitCode: number,
  output: string,
  refusedHosts: string[],
): EnvironmentProblem {
  const refused = hostRefused({
    command: step,
    exitCode,
    output,
    setupCommands: [],
    image: '',
    refusedHosts,
  });
  if (refused) return refused;
  return {
    kind: 'setup-failed',
    subject: step,
    message: `The setup step \`${step}\` failed with exit code ${exitCode}.`,
    fix: 'Fix the step (`setup` in .github/selfdebug.yml, or the workflow step it came from), or choose a `sandbox.image` that has what it needs.',
    evidence: output.trim().split('\n').slice(-1)[0] ?? '',
  };
}

/**
 * The paragraph shown to people: what is missing, the evidence, the change
 * to make. `stage` names the run that failed: the reproduction (no attempt
 * spent), or an attempt's run (no further attempt spent).
 */
export function describeProblem(
  problem: EnvironmentProblem,
  stage: { attempt: number } | null = null,
): string {
  const which = stage ? `The run of attempt ${stage.attempt}` : 'The reproduction';
  const spent = stage ? 'No further model attempt was spent.' : 'No model attempt was spent.';
  return `${which} failed because of the environment, not the code: ${problem.message} (\`${problem.evidence.replaceAll('`', "'")}\`) Change: ${problem.fix} ${spent}`;
}
