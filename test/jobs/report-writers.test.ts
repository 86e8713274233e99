import { describe, expect, it } from 'vitest';
import { CheckRunWriter } from '../../src/jobs/check-run-writer.js';
import { CommentWriter } from '../../src/jobs/comment-writer.js';
import { loggedWrite } from '../../src/jobs/logged-write.js';
import {
  renderAttemptComment,
  renderCheckRunProgress,
  renderCheckRunResult,
  renderFinalComment,
  renderStatusComment,
} from '../../src/report/index.js';
import { attemptMarker, finalMarker, statusMarker } from '../../src/report/markers.js';
import { Redactor } from '../../src/report/redact.js';
import { type Logger, silentLogger } from '../../src/util/logger.js';
import { FakeCodeHost } from '../fakes/fake-code-host.js';
import { fixedRun, midRun } from '../report/fixtures/attempts.js';
import { context, HEAD_SHA, JOB_ID } from '../report/fixtures/job-context.js';
import { notFixedRun } from '../report/fixtures/outcomes.js';

const redactor = new Redactor(['s3cret-value']);

function writers(host = new FakeCodeHost('acme/reports')) {
  const warnings: string[] = [];
  const logger: Logger = { ...silentLogger, warn: (_fields, message) => warnings.push(message) };
  const write = loggedWrite(logger, JOB_ID);
  return {
    host,
    warnings,
    comments: new CommentWriter(host, JOB_ID, redactor, write),
    checkRuns: new CheckRunWriter(host, redactor, write),
  };
}

describe('CommentWriter', () => {
  it('posts each comment as rendered from the view, under its marker, and returns where it went', async () => {
    const { host, comments } = writers();
    const view = notFixedRun().view(context());

    const status = await comments.status(12, view);
    const attempt = await comments.attempt(12, view, 1);
    await comments.final(12, view);

    expect(host.comments.map((comment) => comment.body)).toEqual([
      renderStatusComment(view, redactor),
      renderAttemptComment(view, 1, redactor),
      renderFinalComment(view, redactor),
    ]);
    expect(host.comments[0]?.body).toContain(statusMarker(JOB_ID));
    expect(host.comments[1]?.body).toContain(attemptMarker(JOB_ID, 1));
    expect(host.comments[2]?.body).toContain(finalMarker(JOB_ID));
    expect(status).toBe(`https://github.com/acme/reports/issues/12#issuecomment-${host.comments[0]?.id}`);
    expect(attempt).toBe(`https://github.com/acme/reports/issues/12#issuecomment-${host.comments[1]?.id}`);
  });

  it('posts no final comment for an outcome whose status comment says it all', async () => {
    const { host, comments } = writers();
    await comments.final(12, fixedRun().view(context()));
    expect(host.comments).toEqual([]);
  });

  it('edits the status comment in place', async () => {
    const { host, comments } = writers();
    await comments.status(12, midRun().view(context()));
    await comments.status(12, fixedRun().view(context()));
    expect(host.comments).toHaveLength(1);
    expect(host.comments[0]?.body).toBe(renderStatusComment(fixedRun().view(context()), redactor));
  });

  it('logs a refused write and returns null, without throwing', async () => {
    const { host, comments, warnings } = writers();
    host.withheld.set('upsertComment', 'issues=write');
    expect(await comments.status(12, fixedRun().view(context()))).toBeNull();
    expect(warnings).toEqual(['could not update the status comment']);
  });
});

describe('CheckRunWriter', () => {
  it('opens, updates and completes the check run from the view, with the annotations on the fix', async () => {
    const { host, checkRuns } = writers();
    const checkRun = await checkRuns.open(HEAD_SHA);
    expect(checkRun).toEqual({ id: host.checkRuns[0]?.id, url: expect.stringContaining('/runs/') });
    if (!checkRun) return;
    const during = midRun().view(context());
    await checkRuns.progress(checkRun, during);
    const done = fixedRun().view(context());
    await checkRuns.complete(checkRun, done, 'f1x5ha');

    const result = renderCheckRunResult(done, redactor);
    const { annotations, ...withoutAnnotations } = result.output;
    expect(annotations?.length).toBeGreaterThan(0);
    expect(host.checkRunUpdates).toEqual([
      {
        id: checkRun.id,
        update: { status: 'in_progress', output: renderCheckRunProgress(during, redactor) },
      },
      {
        id: checkRun.id,
        update: { status: 'completed', conclusion: result.conclusion, output: withoutAnnotations },
      },
    ]);
    expect(host.checkRuns[1]).toMatchObject({
      headSha: 'f1x5ha',
      status: 'completed',
      conclusion: result.conclusion,
      output: result.output,
    });
  });

  it('says why a job could not run on a new check run when none was open and there is no conversation', async () => {
    const { host, checkRuns } = writers();
    await checkRuns.refuse(null, { kind: 'check-run', headSha: HEAD_SHA }, 'no such branch');
    await checkRuns.refuse(null, { kind: 'comment', issueNumber: 12 }, 'no such branch');
    expect(host.checkRuns).toEqual([
      expect.objectContaining({
        headSha: HEAD_SHA,
        status: 'completed',
        conclusion: 'neutral',
        output: expect.objectContaining({ title: 'selfdebug could not run', summary: 'no such branch' }),
      }),
    ]);
  });
});
