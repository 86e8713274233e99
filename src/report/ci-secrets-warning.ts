import type { BranchEvent, SecretReadingWorkflow } from '../ci-logs/index.js';
import type { CheckOutput } from '../code-host/code-host.js';
import { CHECK_OUTPUT_LIMIT, hardLimit } from './limits.js';
import { MarkdownWriter } from './markdown.js';
import type { Redactor } from './redact.js';

/** What keeps each kind of trigger's run away from the secrets (docs/ci-secrets.md says why). */
const ADVICE: Record<BranchEvent, string> = {
  push: "add `branches-ignore: ['selfdebug/**']` to its `push:` trigger",
  pull_request:
    'skip its secret-reading jobs with `if: "!startsWith(github.head_ref, \'selfdebug/\')"` (quoted: YAML reads a leading ! as a tag) ' +
    "(a pull request's `branches` filters its base, not selfdebug's branch)",
  pull_request_target:
    "it runs the default branch's workflow with the secrets: never check out or run the pull request's head in it",
  workflow_run:
    "it runs after selfdebug's branch's run with the secrets: never run that run's artifacts or code in it, " +
    "or add `branches-ignore: ['selfdebug/**']` under `workflow_run:`",
};

/** Enough to act on; a repository with more is told how many more. */
const MAX_LISTED = 15;

const TITLE = "Your CI would run selfdebug's fixes with secrets.";

/**
 * The warning `selfdebug config check` prints and the App's first check run
 * on a repository carries: the workflows that would run the App's fixes,
 * code a model wrote, and the secrets they can read. Null when there is
 * nothing to warn about. Names come from the repository's files, so they go
 * through the writer like any text the App did not write.
 */
export function renderCiSecretsWarning(
  found: readonly SecretReadingWorkflow[],
  redactor: Redactor,
  format: 'markdown' | 'text' = 'markdown',
): string | null {
  if (found.length === 0) return null;
  const md = new MarkdownWriter(redactor);
  // Plain text (a terminal) shows names as they are, and the template's code spans lose their backticks.
  const markdown = format === 'markdown';
  const code = markdown ? (text: string) => md.code(text) : (text: string) => md.redact(text);
  const ours = markdown ? (text: string) => text : (text: string) => text.replace(/`/g, '');
  const lines = [
    `${markdown ? `**${TITLE}**` : TITLE} ` +
      ours('When selfdebug pushes a fix branch (`selfdebug/…`) or opens its pull request, ') +
      'these workflows run code a model wrote, and can read these secrets:',
    '',
  ];
  for (const workflow of found.slice(0, MAX_LISTED)) {
    const events = workflow.triggers.map((trigger) => trigger.event);
    const where = `${code(workflow.name)} (${code(workflow.path)}), on ${events.join(', ')}`;
    lines.push(`- ${where}: ${reads(workflow, code)}`);
    for (const event of new Set(events))
      lines.push(`  - to keep ${event} runs away from them: ${ours(ADVICE[event])}`);
  }
  if (found.length > MAX_LISTED) lines.push(`- and ${found.length - MAX_LISTED} more workflows`);
  lines.push(
    '',
    ours(
      'Or move the secrets into an environment with required reviewers: a job that uses it waits for a person. ' +
        '`ci_verdict: off` in `.github/selfdebug.yml` keeps selfdebug from waiting on your CI; it does not stop ' +
        'your CI from running on its branches. See docs/ci-secrets.md.',
    ),
  );
  return lines.join('\n');
}

function reads(workflow: SecretReadingWorkflow, code: (text: string) => string): string {
  const parts: string[] = [];
  if (workflow.secrets.length > 0) parts.push(`secrets ${workflow.secrets.map(code).join(', ')}`);
  for (const all of workflow.allSecrets) parts.push(`every secret (${code(all)})`);
  for (const environment of workflow.environments) {
    parts.push(`the secrets of environment ${code(environment)} (unless it requires a reviewer)`);
  }
  return parts.join('; ');
}

/** A check run's output with notices (already rendered Markdown) first, where a cut never reaches them. */
export function withNotices(output: CheckOutput, notices: readonly string[]): CheckOutput {
  if (notices.length === 0) return output;
  const summary = [...notices, output.summary].join('\n\n---\n\n');
  return { ...output, summary: hardLimit(summary, CHECK_OUTPUT_LIMIT) };
}
