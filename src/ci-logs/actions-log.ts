/**
 * The GitHub Actions parts of a job log: the runner's `##[command]` markers,
 * where steps begin, and how a step reports that it failed. Other CI systems'
 * logs have none of these, and are read as one step.
 */
export type ActionsMarker =
  /** `##[group]Run <first line of the script or the action>`: a step begins; its header follows. */
  | { kind: 'step'; title: string }
  /** `##[group]…` inside a step (an action's own grouping) or `##[endgroup]`. */
  | { kind: 'group' }
  | { kind: 'endgroup' }
  /** `##[error]`, and problem-matcher annotations; `exitCode` when it reports a process exit. */
  | { kind: 'error'; message: string; exitCode: number | null }
  | { kind: 'warning'; message: string }
  | { kind: 'quiet' };

const MARKER = /^##\[([a-z]+)\](.*)$/;
// `::error file=app.js,line=1::Missing semicolon`, as other tools echo workflow commands.
const WORKFLOW_COMMAND = /^::(error|warning|notice)(?: [^:]*)?::(.*)$/;
const EXIT_CODE = /(?:exit code|exited with code|exit status) (-?\d+)/;

/** The marker at the start of a stripped line, or null when the line is ordinary output. */
export function actionsMarker(text: string): ActionsMarker | null {
  const first = text.charCodeAt(0);
  if (first === 35 /* # */) {
    const match = MARKER.exec(text);
    if (!match) return null;
    const [, command = '', message = ''] = match;
    switch (command) {
      case 'group':
        return message.startsWith('Run ') ? { kind: 'step', title: message.trim() } : { kind: 'group' };
      case 'section':
        // Azure Pipelines writes `##[section]Starting: <task>` where Actions writes a group.
        return message.startsWith('Starting: ')
          ? { kind: 'step', title: message.slice(10).trim() }
          : { kind: 'group' };
      case 'endgroup':
        return { kind: 'endgroup' };
      case 'error':
        return { kind: 'error', message, exitCode: exitCodeOf(message) };
      case 'warning':
        return { kind: 'warning', message };
      default:
        return { kind: 'quiet' };
    }
  }
  if (first === 58 /* : */) {
    const match = WORKFLOW_COMMAND.exec(text);
    if (!match) return null;
    return match[1] === 'error'
      ? { kind: 'error', message: match[2] ?? '', exitCode: null }
      : { kind: 'warning', message: match[2] ?? '' };
  }
  return null;
}

export function exitCodeOf(message: string): number | null {
  const match = EXIT_CODE.exec(message);
  return match ? Number.parseInt(match[1] ?? '', 10) : null;
}

/** The runner's own lines after the last step: post-step cleanup and the job's end. */
export function isJobEpilogue(text: string): boolean {
  return text === 'Post job cleanup.' || text.startsWith('Cleaning up orphan processes');
}

/** A step's header echoes its script, then `shell:` and `env:` lines, until `##[endgroup]`. */
const SHELL_LINE = /^shell: (.+)$/;

export function shellOf(text: string): string | null {
  const match = SHELL_LINE.exec(text);
  return match ? (match[1] ?? null) : null;
}
