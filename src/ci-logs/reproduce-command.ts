import type { RecoveredStep } from './workflow-step.js';

/**
 * A command line that runs a recovered step the way the runner did, for a
 * sandbox that executes commands with `bash -c`. The runner writes the script
 * to a file and runs it with the step's shell: `bash -e {0}` when none is
 * named, `bash --noprofile --norc -eo pipefail {0}` for `shell: bash`, `sh -e
 * {0}`, `python {0}`, `pwsh -command ". '{0}'"`, or a custom `… {0}`. Stopping
 * at the first failing line matters: without `-e`, a failing `pytest` followed
 * by `echo done` exits 0, and the failure would not reproduce.
 */
export interface Reproduction {
  /** Null when the step is an action (`uses:`) and no fallback command was configured. */
  command: string | null;
  /** Why the command is not the step's own script, for the person reading the report. */
  note: string | null;
}

const HEREDOC = 'SELFDEBUG_STEP';

export function reproduce(step: RecoveredStep, fallbackCommand?: string): Reproduction {
  if (step.run === null) {
    const what = step.uses ? `an action (\`uses: ${step.uses}\`)` : 'not a script';
    return fallbackCommand
      ? {
          command: fallbackCommand,
          note: `The failing step is ${what}, which cannot run as a script; using the configured command.`,
        }
      : {
          command: null,
          note: `The failing step is ${what}, which cannot run as a script.`,
        };
  }
  const lines: string[] = [];
  const body = runWithShell(step.run, step.shell);
  if (body.prologue) lines.push(body.prologue);
  if (step.workingDirectory) lines.push(`cd ${JSON.stringify(step.workingDirectory)}`);
  for (const [name, value] of Object.entries(step.env)) {
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) lines.push(`export ${name}=${shellQuote(value)}`);
  }
  lines.push(body.script);
  return {
    command: lines.join('\n'),
    note: step.droppedEnv.length > 0 ? `Left out secret env: ${step.droppedEnv.join(', ')}.` : null,
  };
}

function runWithShell(run: string, shell: string | null): { prologue: string | null; script: string } {
  const name = shell?.trim() ?? '';
  if (name === '') return { prologue: 'set -e', script: run };
  if (name === 'bash') return { prologue: 'set -eo pipefail', script: run };
  if (name === 'sh') return { prologue: null, script: `sh -e -c ${shellQuote(run)}` };
  if (name === 'python') return { prologue: 'set -e', script: heredoc('python3 -', run) };
  if (name === 'pwsh' || name === 'powershell')
    return { prologue: null, script: `pwsh -command ${shellQuote(run)}` };
  if (name.includes('{0}')) {
    const file = '/tmp/selfdebug-step';
    return {
      prologue: 'set -e',
      script: `${heredoc(`cat > ${file}`, run)}\n${name.replaceAll('{0}', file)}`,
    };
  }
  // A bare program name (`perl`, `node`): the runner appends the script file.
  return { prologue: 'set -e', script: heredoc(`${name} /dev/stdin`, run) };
}

function heredoc(command: string, text: string): string {
  return `${command} <<'${HEREDOC}'\n${text.replace(/\n$/, '')}\n${HEREDOC}`;
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
