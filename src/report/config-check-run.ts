import type { CheckConclusion, CheckOutput } from '../code-host/code-host.js';
import { BODY_BUDGET, CHECK_OUTPUT_LIMIT } from './limits.js';
import { MarkdownWriter } from './markdown.js';
import type { Redactor } from './redact.js';

export interface ConfigProblemCheckRun {
  conclusion: CheckConclusion;
  output: CheckOutput;
}

/**
 * A failed workflow run that selfdebug cannot consider because
 * `.github/selfdebug.yml` is invalid. A run has no conversation to answer
 * in, so the problem goes where the people who can fix it look: a check run
 * on the run's head commit, which a pull request's checks list shows too.
 * `action_required` (not `failure`) because nothing was tested: the
 * repository has to change its file. `message` is the App's config message,
 * Markdown that already says what to fix.
 */
export function renderConfigProblemCheckRun(message: string, redactor: Redactor): ConfigProblemCheckRun {
  const md = new MarkdownWriter(redactor);
  return {
    conclusion: 'action_required',
    output: {
      title: 'Fix .github/selfdebug.yml: selfdebug ignores failed runs until it is valid',
      summary: md.body(
        [
          `${message.trim()}\n\n`,
          'Until then selfdebug does not look at failed workflow runs of this repository; ',
          'once the file on the default branch is valid, re-run the failed workflow to have it debugged.\n',
        ],
        BODY_BUDGET,
        CHECK_OUTPUT_LIMIT,
      ),
    },
  };
}
