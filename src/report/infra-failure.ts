import type { InfraKind } from '../ci-logs/index.js';
import type { InfraFailureNotice, RerunOutcome } from '../triggers/index.js';
import { MarkdownWriter } from './markdown.js';
import { Redactor } from './redact.js';

const KIND_WORDS: Record<InfraKind, { title: string; sentence: string }> = {
  'runner-lost': {
    title: 'the runner was lost',
    sentence: 'the runner running the job stopped or was shut down',
  },
  cancelled: {
    title: 'the runner cancelled the job',
    sentence: 'the runner cancelled the step before it finished',
  },
  network: {
    title: 'a network error fetching dependencies',
    sentence: 'a download failed on the network (a timeout, a reset connection, a name that did not resolve)',
  },
  'rate-limit': {
    title: 'a registry rate limit',
    sentence: 'a registry refused the download for its rate limit',
  },
  'disk-full': { title: 'the runner ran out of disk', sentence: 'the runner ran out of disk space' },
};

const RERUN_WORDS: Record<RerunOutcome, string> = {
  started: 'I re-ran the failed jobs once; if they fail again on the code, I will look at that run.',
  'already-rerun':
    'This run was already re-run, so I did not re-run it again: re-run the failed jobs from the run’s page once the cause is gone.',
  'not-permitted':
    'I may not re-run jobs in this repository (that needs the Actions write permission): re-run the failed jobs from the run’s page.',
  failed: 'GitHub did not accept my re-run of the failed jobs: re-run them from the run’s page.',
};

/**
 * A failed run whose log shows its infrastructure failed, as the App
 * reports it: a check run's title, and a message (the check run's summary,
 * or the comment on the App's own pull request) with the evidence and
 * what happened about the re-run. No model attempt is spent on it.
 */
export function renderInfraFailure(
  notice: InfraFailureNotice,
  redactor: Redactor = Redactor.none,
): { title: string; message: string } {
  const md = new MarkdownWriter(redactor);
  const words = KIND_WORDS[notice.kind];
  const where = [
    notice.job === null ? null : `job ${md.code(notice.job, 100)}`,
    notice.step === null ? null : `step ${md.code(notice.step, 100)}`,
    notice.line === null ? null : `line ${notice.line}`,
  ].filter((part): part is string => part !== null);
  const message = [
    `The workflow ${md.code(notice.workflowName, 100)} failed, but not because of the code: ${words.sentence}.`,
    `The log shows it${where.length > 0 ? ` (${where.join(', ')})` : ''}: ${md.code(notice.evidence, 300)}`,
    `${RERUN_WORDS[notice.rerun]} No model attempt was spent.`,
  ].join('\n\n');
  return { title: `Not the code: ${words.title}`, message };
}
