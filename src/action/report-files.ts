import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobView, Redactor } from '../report/index.js';
import { renderAttemptComment, renderStatusComment } from '../report/index.js';

/** GitHub shows at most 1 MiB of one step's summary; past it the whole summary is dropped. */
const SUMMARY_LIMIT = 1_000_000;

/** The status, then every attempt's transcript, rendered as the App's comments are: one redactor, applied last. */
export function transcriptMarkdown(view: JobView, redactor: Redactor): string {
  const parts = [renderStatusComment(view, redactor)];
  for (const attempt of view.attempts) parts.push(renderAttemptComment(view, attempt.number, redactor));
  return `${parts.join('\n\n---\n\n')}\n`;
}

/** The run stopped on its budget: what ran out, and the inputs that move the limit, above the transcript. */
export function budgetNote(reason: string, redactor: Redactor): string {
  return (
    `> [!NOTE]\n> selfdebug stopped: ${redactor.redact(reason)}. Raise the \`budget-usd\` input ` +
    '(or `budget` in .github/selfdebug.yml) to let it go on.\n\n'
  );
}

export async function appendSummary(path: string | undefined, markdown: string): Promise<void> {
  if (path === undefined) return;
  const text =
    markdown.length <= SUMMARY_LIMIT
      ? markdown
      : `${markdown.slice(0, SUMMARY_LIMIT - 200)}\n\n…(cut to fit the job summary; the artifact has it all)\n`;
  await appendFile(path, text);
}

/** The patch and the transcript in one folder, for actions/upload-artifact. Returns the folder. */
export async function writeArtifact(
  parent: string,
  files: { patch: string; transcript: string },
): Promise<string> {
  const dir = join(parent, 'selfdebug');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'selfdebug.patch'), files.patch);
  await writeFile(join(dir, 'transcript.md'), files.transcript);
  return dir;
}

/** `name=value` lines in $GITHUB_OUTPUT, for later steps (`steps.<id>.outputs.<name>`). */
export async function writeOutputs(path: string | undefined, outputs: Record<string, string>): Promise<void> {
  if (path === undefined) return;
  const lines = Object.entries(outputs).map(([name, value]) => `${name}=${value.replace(/\n/g, ' ')}\n`);
  await appendFile(path, lines.join(''));
}
