import type { CiVerdict, CiWorkflow } from '../ci-verdict/ci-verdict.js';
import type { CheckConclusion, CheckOutput } from '../code-host/code-host.js';
import { plural } from './format.js';
import { link, MarkdownWriter } from './markdown.js';
import type { Redactor } from './redact.js';

/*
 * The verdict of a repository's own CI on a fix the App pushed, as the pull
 * request body, the job's status comment and a check run show it. The
 * section sits between two hidden markers so the App can rewrite it later
 * (a second round's verdict) and leave every other word of the text alone.
 */

const START = '<!-- selfdebug:ci-verdict -->';
const END = '<!-- /selfdebug:ci-verdict -->';

/** The most workflows one line names; the rest are counted. */
const NAMED = 5;

/** One line: "Your CI passed", "Your CI failed: Tests", "No CI", or why the verdict is unknown. */
function ciVerdictLine(verdict: CiVerdict, md: MarkdownWriter): string {
  const on = `on ${md.code(verdict.sha.slice(0, 7))}`;
  const named = workflows(verdict.workflows, md);
  if (verdict.verdict === 'passed') return `✅ **Your CI passed** ${on} (${judged(verdict)}).`;
  if (verdict.verdict === 'failed') return `❌ **Your CI failed** ${on}: ${named}.`;
  if (verdict.reason === 'no-ci')
    return `➖ **No CI** ${on}: no workflow or check suite ran on the fix, so only the sandbox's run verified it.`;
  if (verdict.reason === 'timed-out')
    return `❔ **CI verdict unknown** ${on}: ${named} had not finished when selfdebug stopped waiting.`;
  return `❔ **CI verdict unknown** ${on}: ${named} did not run to the end (cancelled).`;
}

/** The section a pull request body or status comment carries: one line per pushed round, oldest first. */
export function ciVerdictSection(verdicts: readonly CiVerdict[], redactor: Redactor): string {
  const md = new MarkdownWriter(redactor);
  const lines =
    verdicts.length === 1
      ? [ciVerdictLine(verdicts[0]!, md)]
      : verdicts.map((verdict, index) => `- Round ${index + 1}: ${ciVerdictLine(verdict, md)}`);
  return `${START}\n#### Your CI\n\n${lines.join('\n')}\n${END}`;
}

/** `body` with its CI section replaced by `section`, or `section` added at its end. */
export function withCiVerdictSection(body: string, section: string): string {
  const start = body.indexOf(START);
  const end = body.indexOf(END, start);
  if (start >= 0 && end > start) return `${body.slice(0, start)}${section}${body.slice(end + END.length)}`;
  return `${body.trimEnd()}\n\n${section}\n`;
}

/** The check run on the fix's commit: success when CI passed, failure when it failed, neutral when unknown. */
export function ciVerdictCheckRun(
  verdict: CiVerdict,
  redactor: Redactor,
): { conclusion: CheckConclusion; output: CheckOutput } {
  const md = new MarkdownWriter(redactor);
  const conclusion = CONCLUSIONS[verdict.verdict];
  const title =
    verdict.verdict === 'unknown' && verdict.reason === 'no-ci' ? 'No CI' : TITLES[verdict.verdict];
  return {
    conclusion,
    output: {
      title,
      summary:
        `${ciVerdictLine(verdict, md)}\n\n` +
        "selfdebug followed this repository's own workflows on the commit it pushed (docs/ci-verdict.md).",
    },
  };
}

const CONCLUSIONS = { passed: 'success', failed: 'failure', unknown: 'neutral' } as const;
const TITLES = { passed: 'Your CI passed', failed: 'Your CI failed', unknown: 'CI verdict unknown' } as const;

/** "2 workflow runs", "1 check suite", or both. */
function judged(verdict: CiVerdict): string {
  const suites = verdict.suites ?? 0;
  const counted = [
    ...(verdict.runs > 0 || suites === 0 ? [plural(verdict.runs, 'workflow run')] : []),
    ...(suites > 0 ? [plural(suites, 'check suite')] : []),
  ];
  return counted.join(' and ');
}

function workflows(list: readonly CiWorkflow[], md: MarkdownWriter): string {
  if (list.length === 0) return 'no workflow';
  const named = list.slice(0, NAMED).map((workflow) => link(md.line(workflow.name, 80), workflow.url));
  const more = list.length > NAMED ? ` and ${list.length - NAMED} more` : '';
  return `${named.join(', ')}${more}`;
}
