import { describe, expect, it } from 'vitest';
import { reportChannel, reportTargetOf } from '../../src/jobs/report-target.js';
import { jobRequest, mentionTrigger } from '../fakes/job-requests.js';

const SHA = 'a'.repeat(40);

describe('reportTargetOf and reportChannel', () => {
  it('answers in the conversation that asked, whatever commit is known', () => {
    const target = reportTargetOf(jobRequest({ trigger: mentionTrigger({ issueNumber: 12 }), headSha: SHA }));
    expect(target).toEqual({ issueNumber: 12, headSha: SHA });
    expect(reportChannel(target)).toEqual({ kind: 'comment', issueNumber: 12 });
  });

  it("puts a check run on a failed run's commit when there is no conversation, and says nothing without one", () => {
    expect(reportChannel({ issueNumber: null, headSha: SHA })).toEqual({ kind: 'check-run', headSha: SHA });
    expect(reportChannel({ issueNumber: null, headSha: null })).toEqual({ kind: 'none' });
  });
});
