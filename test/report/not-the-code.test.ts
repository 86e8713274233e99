import { describe, expect, it } from 'vitest';
import { renderCheckRunResult } from '../../src/report/check-run.js';
import { renderInfraFailure } from '../../src/report/infra-failure.js';
import { Redactor } from '../../src/report/redact.js';
import { cannotReproduceRun, flakyRun } from './fixtures/outcomes.js';

/** A failed run of the repository's CI, as the App's workflow-run job answers it. */
const FAILED_RUN = {
  kind: 'workflow-run' as const,
  runId: 9,
  runAttempt: 1,
  workflowName: 'CI',
  workflowPath: '.github/workflows/ci.yml',
  branch: 'main',
  ownPullRequest: null,
};

describe('a failure that did not reproduce', () => {
  it('on a failed run with no conversation, the check run says to re-run the failed jobs', () => {
    const view = cannotReproduceRun().view({ trigger: FAILED_RUN, statusCommentUrl: null });
    const { conclusion, output } = renderCheckRunResult(view, Redactor.none);
    expect(conclusion).toBe('neutral');
    expect(output.summary).toContain('The failure did not reproduce here. Re-run the failed jobs');
    // The loop reproduced it three times and spent no attempt: only its reflection looked at it.
    expect(view.attempts).toHaveLength(0);
  });

  it('asked for by hand (a mention), there is no run to re-run; and a flaky run gets its own advice', () => {
    const mention = cannotReproduceRun().view({ statusCommentUrl: null });
    expect(renderCheckRunResult(mention, Redactor.none).output.summary).not.toContain(
      'Re-run the failed jobs',
    );
    const flaky = flakyRun().view({ trigger: FAILED_RUN, statusCommentUrl: null });
    expect(renderCheckRunResult(flaky, Redactor.none).output.summary).not.toContain('did not reproduce');
  });
});

describe('renderInfraFailure', () => {
  const notice = {
    kind: 'network' as const,
    evidence:
      'npm error network request to http://10.200.0.2/left-pad failed, reason: connect ETIMEDOUT 10.200.0.2:80',
    line: 20,
    step: 'Run npm ci',
    job: 'test (20.x)',
    workflowName: 'CI',
    rerun: 'started' as const,
  };

  it('names the kind, the evidence and where it is, and that nothing was spent', () => {
    const { title, message } = renderInfraFailure(notice);
    expect(title).toBe('Not the code: a network error fetching dependencies');
    expect(message).toBe(
      [
        'The workflow `CI` failed, but not because of the code: a download failed on the network (a timeout, a reset connection, a name that did not resolve).',
        'The log shows it (job `test (20.x)`, step `Run npm ci`, line 20): `npm error network request to http://10.200.0.2/left-pad failed, reason: connect ETIMEDOUT 10.200.0.2:80`',
        'I re-ran the failed jobs once; if they fail again on the code, I will look at that run. No model attempt was spent.',
      ].join('\n\n'),
    );
  });

  it('keeps what a log line could smuggle in: secrets redacted, the line kept inside its code span', () => {
    const secret = 'ghp_0123456789abcdefghijklmnopqrstuvwxyz';
    const { message } = renderInfraFailure(
      {
        ...notice,
        evidence: `fatal: unable to access 'https://x:${secret}@git.example.test/': \`@team\` ETIMEDOUT`,
      },
      new Redactor([secret]),
    );
    expect(message).not.toContain(secret);
    // A span fenced by two backticks keeps the line's own backticks (and the mention in them) literal.
    expect(message).toContain(
      "``fatal: unable to access 'https://[REDACTED]@git.example.test/': `@team` ETIMEDOUT``",
    );
  });
});
