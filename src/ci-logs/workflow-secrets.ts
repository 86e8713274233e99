import { expressionBodies } from './workflow-matrix.js';
import { type BranchPush, type BranchTrigger, branchTriggers } from './workflow-triggers.js';
import { isRecord, safeParse } from './workflow-yaml.js';

export interface WorkflowFile {
  /** `.github/workflows/ci.yml` */
  path: string;
  text: string;
}

/** What a workflow that would run for the App's branch can read of the repository's secrets. */
export interface SecretReadingWorkflow {
  path: string;
  /** Its `name:`, or its path as GitHub shows a workflow without one. */
  name: string;
  triggers: BranchTrigger[];
  /** Secrets named in its expressions (`${{ secrets.NPM_TOKEN }}`), GITHUB_TOKEN left out. */
  secrets: string[];
  /** Ways it reaches every secret at once: `secrets: inherit` (by job), `toJSON(secrets)`, `secrets[expr]`. */
  allSecrets: string[];
  /** Environments its jobs deploy to: their secrets too, unless the environment waits for a reviewer. */
  environments: string[];
}

/** A workflow file as the analysis reads it. */
interface Parsed {
  file: WorkflowFile;
  document: Record<string, unknown>;
  name: string;
  direct: BranchTrigger[];
}

/**
 * The workflows that would run for a push of the App's branch or its pull
 * request and that read secrets (or an environment's). Pure: the caller
 * reads the files. A `workflow_run` workflow counts when a workflow it
 * follows runs for the branch (its chain followed to the end).
 */
export function workflowsReadingSecrets(
  files: readonly WorkflowFile[],
  push: BranchPush,
): SecretReadingWorkflow[] {
  const parsed = files.flatMap((file): Parsed[] => {
    const document = safeParse(file.text);
    if (!isRecord(document)) return [];
    const name = typeof document.name === 'string' ? document.name : file.path;
    return [{ file, document, name, direct: branchTriggers(document, push) }];
  });
  const running = runningTriggers(parsed);
  return parsed.flatMap(({ file, document, name }) => {
    const triggers = running.get(file.path) ?? [];
    if (triggers.length === 0) return [];
    const reads = secretsRead(
      document,
      triggers.map((trigger) => trigger.event),
    );
    const reading = reads.secrets.length + reads.allSecrets.length + reads.environments.length > 0;
    return reading ? [{ path: file.path, name, triggers, ...reads }] : [];
  });
}

/** Each workflow's triggers that really fire: `workflow_run` only after a workflow that runs. */
function runningTriggers(parsed: readonly Parsed[]): Map<string, BranchTrigger[]> {
  const running = new Map<string, BranchTrigger[]>();
  for (const entry of parsed) {
    const direct = entry.direct.filter((trigger) => trigger.event !== 'workflow_run');
    if (direct.length > 0) running.set(entry.file.path, direct);
  }
  // Chains of workflow_run: repeat until nothing new starts (each round adds a workflow, so this ends).
  for (let changed = true; changed; ) {
    changed = false;
    const names = new Set(
      parsed.filter((e) => running.has(e.file.path)).flatMap((e) => [e.name, e.file.path]),
    );
    for (const entry of parsed) {
      const follows = entry.direct.filter(
        (trigger) => trigger.event === 'workflow_run' && trigger.after.some((name) => names.has(name)),
      );
      const known = running.get(entry.file.path) ?? [];
      if (follows.length === 0 || known.some((trigger) => trigger.event === 'workflow_run')) continue;
      running.set(entry.file.path, [...known, ...follows]);
      changed = true;
    }
  }
  return running;
}

/** What a workflow's jobs that run for the branch can read (`on:` only declares secrets; it reads none). */
function secretsRead(
  document: Record<string, unknown>,
  events: readonly string[],
): Omit<SecretReadingWorkflow, 'path' | 'name' | 'triggers'> {
  const reads = {
    secrets: new Set<string>(),
    allSecrets: new Set<string>(),
    environments: new Set<string>(),
  };
  const { on: _declared, jobs: _jobs, ...shared } = document;
  const jobs = isRecord(document.jobs) ? document.jobs : {};
  const running = Object.entries(jobs).filter(
    (entry): entry is [string, Record<string, unknown>] => isRecord(entry[1]) && mayRun(entry[1].if, events),
  );
  // Workflow-wide env and defaults reach every job: they count when any job runs.
  const scanned = running.length > 0 ? [shared, ...running.map(([, job]) => job)] : [];
  for (const body of stringsIn(scanned).flatMap(expressionBodies)) addExpression(body, reads);
  for (const [id, job] of running) {
    if (job.secrets === 'inherit') reads.allSecrets.add(`secrets: inherit (job ${id})`);
    const environment = isRecord(job.environment) ? job.environment.name : job.environment;
    if (typeof environment === 'string') reads.environments.add(environment);
  }
  const sorted = (set: Set<string>) => [...set].sort();
  return {
    secrets: sorted(reads.secrets),
    allSecrets: sorted(reads.allSecrets),
    environments: sorted(reads.environments),
  };
}

function addExpression(body: string, reads: { secrets: Set<string>; allSecrets: Set<string> }): void {
  for (const match of body.matchAll(
    /(?<![.\w-])secrets(?![\w-])\s*(?:\.\s*([A-Za-z_][\w-]*)|\[\s*'([^']+)'\s*\]|(\[))?/g,
  )) {
    const named = match[1] ?? match[2];
    if (named !== undefined) {
      if (named.toUpperCase() !== 'GITHUB_TOKEN') reads.secrets.add(named);
    } else reads.allSecrets.add(match[3] ? 'secrets[…] (a secret chosen at run time)' : body.trim());
  }
}

/**
 * Whether a job's `if:` can hold for the App's branch. Only conditions that
 * are plainly false are read: a conjunction (no `||`, no `!`) with a part
 * `github.event_name == 'release'` naming another event, `github.ref ==
 * 'refs/heads/main'` naming another branch, or `startsWith(github.ref,
 * 'refs/tags/')`. Anything else may run.
 */
function mayRun(condition: unknown, events: readonly string[]): boolean {
  if (typeof condition !== 'string') return true;
  const text = condition.replace(/^\s*\$\{\{|\}\}\s*$/g, '').trim();
  if (/\|\||!/.test(text.replace(/!=/g, ''))) return true;
  return !text.split('&&').some((part) => {
    const event = /^\(?\s*github\.event_name\s*==\s*'([^']+)'\s*\)?$/.exec(part.trim());
    if (event) return !events.includes(event[1]!);
    const ref = /^\(?\s*github\.ref\s*==\s*'refs\/heads\/([^']+)'\s*\)?$/.exec(part.trim());
    if (ref) return !ref[1]!.startsWith('selfdebug/');
    return /^startsWith\(\s*github\.ref\s*,\s*'refs\/tags\/?'\s*\)$/.test(part.trim());
  });
}

/** Every string value in a parsed YAML tree (keys are names, not expressions). */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  return isRecord(value) ? Object.values(value).flatMap(stringsIn) : [];
}
