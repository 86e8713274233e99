import { describe, expect, it } from 'vitest';
import { ConfigError, JobCancelledError, JobRefusedError } from '../../src/errors/index.js';
import { closeJob, type JobOutcome } from '../../src/jobs/job-ending.js';
import type { JobEnding, JobEventSink } from '../../src/jobs/job-events.js';
import type { JobTarget } from '../../src/jobs/resolve-target.js';
import { jobView } from '../../src/report/index.js';
import { type Logger, silentLogger } from '../../src/util/logger.js';
import { context } from '../report/fixtures/job-context.js';

const target: JobTarget = {
  headSha: 'b'.repeat(40),
  ref: 'main',
  workBranch: 'selfdebug/fix-1',
  ownBranch: false,
  baseBranch: 'main',
  existingPull: null,
  reportTo: 7,
};
const requestSha = 'a'.repeat(40);
/** The view the report answers with; closeJob hands back whatever the report resolves to. */
const view = jobView(context(), []);

/** Closes a job whose run came out as `outcome`, keeping what the report heard and what was logged. */
async function close(outcome: JobOutcome) {
  const heard: JobEnding[] = [];
  const errors: string[] = [];
  const report: JobEventSink = async (event) => {
    if (event.type === 'job-ended') heard.push(event.ending);
    return view;
  };
  const logger: Logger = { ...silentLogger, error: (_fields, message) => errors.push(message) };
  const result = closeJob(outcome, report, { request: { id: 'job-1', headSha: requestSha }, logger });
  return { result, heard, errors };
}

describe('closeJob: how a job ended is a value the report hears, then the history keeps', () => {
  it('tells a delivery as such and keeps no problem', async () => {
    const delivered = { pullRequestUrl: 'https://example.test/pull/2', deliveryError: null, fixSha: 'c1' };
    const { result, heard, errors } = await close({ delivered });
    expect(await result).toEqual({ view, problem: null });
    expect(heard).toEqual([{ kind: 'delivered', delivery: delivered }]);
    expect(errors).toEqual([]);
  });

  it("tells a refusal on the target's commit, or the request's while the target is unknown", async () => {
    const refused = await close({ stopped: new JobRefusedError('closed pull request'), target });
    expect(await refused.result).toEqual({
      view,
      problem: { kind: 'refused', message: 'closed pull request' },
    });
    expect(refused.heard).toEqual([
      { kind: 'refused', message: 'closed pull request', headSha: target.headSha },
    ]);
    const early = await close({ stopped: new JobRefusedError('no command'), target: null });
    expect(early.heard).toEqual([{ kind: 'refused', message: 'no command', headSha: requestSha }]);
  });

  it('tells a cancellation once the target is known, and a failure to start before', async () => {
    const cancelled = await close({ stopped: new JobCancelledError('stopped by @octocat'), target });
    expect(await cancelled.result).toEqual({ view, problem: null });
    expect(cancelled.heard).toEqual([{ kind: 'cancelled', reason: 'stopped by @octocat' }]);
    const early = await close({ stopped: new JobCancelledError('stopped by @octocat'), target: null });
    expect(await early.result).toEqual({ view, problem: { kind: 'failed', message: 'stopped by @octocat' } });
    expect(early.heard.map((ending) => ending.kind)).toEqual(['failed']);
    expect(early.errors).toEqual(['job failed']);
  });

  it('reports an error of its own kind as a failure, and one of no kind, then throws it on', async () => {
    const failed = await close({ stopped: new ConfigError('the model settings', 'bad url'), target });
    const { problem } = await failed.result;
    expect(problem?.kind).toBe('failed');
    expect(failed.heard[0]).toMatchObject({ kind: 'failed', headSha: target.headSha });
    const bug = new TypeError('undefined is not a function');
    const unexpected = await close({ stopped: bug, target });
    await expect(unexpected.result).rejects.toBe(bug);
    expect(unexpected.heard).toEqual([
      {
        kind: 'failed',
        message: 'Unexpected error: TypeError: undefined is not a function',
        shown: 'Unexpected error: TypeError: undefined is not a function',
        headSha: target.headSha,
      },
    ]);
    expect(unexpected.errors).toEqual(['job failed']);
  });
});
