import { describe, expect, it } from 'vitest';
import { renderAttemptComment } from '../../src/report/attempt-comment.js';
import { renderCheckRunProgress, renderCheckRunResult } from '../../src/report/check-run.js';
import { renderFinalComment } from '../../src/report/final-comment.js';
import type { JobView } from '../../src/report/job-view.js';
import { CHECK_OUTPUT_LIMIT, GITHUB_BODY_LIMIT } from '../../src/report/limits.js';
import { parseMarkers, statusMarker } from '../../src/report/markers.js';
import { renderPullRequestBody, renderPullRequestTitle } from '../../src/report/pull-request.js';
import { Redactor } from '../../src/report/redact.js';
import { renderStatusComment } from '../../src/report/status-comment.js';
import { EventList } from './fixtures/event-list.js';
import { exec, NAME_ERROR, SUCCESS_OUTPUT } from './fixtures/exec-results.js';
import { attemptUrl, JOB_ID } from './fixtures/job-context.js';
import { REFLECTION } from './fixtures/reflection.js';

/** Every text the reports produce for a view, each with what it must fit. */
function everyBody(view: JobView, redactor: Redactor): { name: string; text: string; limit: number }[] {
  const bodies = [
    { name: 'status', text: renderStatusComment(view, redactor), limit: GITHUB_BODY_LIMIT },
    { name: 'pull request title', text: renderPullRequestTitle(view, redactor), limit: 256 },
    { name: 'pull request body', text: renderPullRequestBody(view, redactor), limit: GITHUB_BODY_LIMIT },
    { name: 'final comment', text: renderFinalComment(view, redactor), limit: GITHUB_BODY_LIMIT },
  ];
  for (const attempt of view.attempts) {
    const text = renderAttemptComment(view, attempt.number, redactor);
    bodies.push({ name: `attempt ${attempt.number}`, text, limit: GITHUB_BODY_LIMIT });
  }
  const progress = renderCheckRunProgress(view, redactor);
  const { output } = renderCheckRunResult(view, redactor);
  for (const [name, check] of [
    ['check run progress', progress],
    ['check run result', output],
  ] as const) {
    bodies.push({ name: `${name} title`, text: check.title, limit: 256 });
    bodies.push({ name: `${name} summary`, text: check.summary, limit: CHECK_OUTPUT_LIMIT });
    bodies.push({ name: `${name} text`, text: check.text ?? '', limit: CHECK_OUTPUT_LIMIT });
    bodies.push({
      name: `${name} annotations`,
      text: JSON.stringify(check.annotations ?? []),
      limit: Infinity,
    });
  }
  return bodies;
}

describe('size limits', () => {
  // 200 KB of output and a 100 KB diff in one attempt, the case that broke comment posting elsewhere.
  const hugeOutput = Array.from(
    { length: 4000 },
    (_unused, index) => `test_case_${index} ... ok ${'.'.repeat(30)}`,
  )
    .concat(['FAILED test_io.py::test_parse - ValueError: bad row 3', ''])
    .join('\n');
  const hugeDiff = [
    'diff --git a/data/table.py b/data/table.py',
    '--- a/data/table.py',
    '+++ b/data/table.py',
    '@@ -1,1 +1,2000 @@',
    '-TABLE = []',
    ...Array.from({ length: 2000 }, (_unused, index) => `+TABLE.append((${index}, "${'x'.repeat(30)}"))`),
    '',
  ].join('\n');

  function hugeRun(): EventList {
    return new EventList('pytest -q', 1)
      .started()
      .reproduced('failing', [exec(1, hugeOutput, 61_000)])
      .attempt(1)
      .model(1, 'generate', '{"analysis":"…"}', 9000, 900)
      .proposal(1, 'Generate the table instead of loading it.', [
        { path: 'data/table.py', search: '', replace: 'TABLE = [...]' },
      ])
      .applied(1, hugeDiff, ['data/table.py'])
      .executed(1, exec(1, hugeOutput, 59_000))
      .reflected()
      .finished('not-fixed', 'still failing after 1 attempt', hugeDiff);
  }

  it('has inputs of the intended size', () => {
    expect(hugeOutput.length).toBeGreaterThan(200_000);
    expect(hugeDiff.length).toBeGreaterThan(100_000);
  });

  it('keeps the attempt comment under 65,536 characters, cutting the output first, with the cut marked', async () => {
    const body = renderAttemptComment(hugeRun().view(), 1, Redactor.none);
    expect(body.length).toBeLessThanOrEqual(GITHUB_BODY_LIMIT);
    expect(body).toMatch(/\[… [\d,]+ characters cut to fit GitHub's limit …\]/);
    expect(body).toContain('FAILED test_io.py::test_parse - ValueError: bad row 3');
    expect(body).toContain('+TABLE.append((0, ');
    expect(parseMarkers(body)).toEqual([{ kind: 'attempt', jobId: JOB_ID, attempt: 1 }]);
    expect(body.trimEnd().endsWith('</sub>')).toBe(true);
  });

  it('keeps every body and check run field within its limit', () => {
    for (const { name, text, limit } of everyBody(hugeRun().view(), Redactor.none)) {
      expect(text.length, name).toBeLessThanOrEqual(limit);
    }
  });
});

describe('redaction', () => {
  const installationToken = `ghs_${'R3d4ct3dT0k3nV4lu3'.repeat(2)}`;
  const apiKey = 'an-api-key-from-the-config-0123456789';
  const secretEnv = 'npm-token-value-from-secret-env';
  const secrets = [installationToken, apiKey, secretEnv];
  const leak = (label: string) => `${label}: ${installationToken} ${apiKey} ${secretEnv}`;

  /** Every secret in every place the model or the sandbox can write to. */
  function leakyRun(): EventList {
    const diff = [
      'diff --git a/deploy.sh b/deploy.sh',
      '--- a/deploy.sh',
      '+++ b/deploy.sh',
      '@@ -1 +1,2 @@',
      ' #!/bin/sh',
      `+export TOKEN=${installationToken} KEY=${apiKey} NPM=${secretEnv}`,
      '',
    ].join('\n');
    const longOutput = `${'noise line\n'.repeat(30_000)}${leak('late')}\n`;
    return new EventList(`./deploy.sh --token ${installationToken}`, 2)
      .started([`npm config set //registry/:_authToken ${secretEnv}`])
      .setup(`npm config set //registry/:_authToken ${secretEnv}`, exec(0, leak('setup'), 100))
      .reproduced('failing', [exec(1, `${NAME_ERROR}${leak('reproduction')}`, 400)])
      .attempt(1)
      .model(1, 'generate', null, 100, 10, [
        { id: 'c', name: 'read_file', arguments: JSON.stringify({ path: installationToken }) },
      ])
      .tool(1, 'read_file', JSON.stringify({ path: leak('argument') }), leak('tool result'))
      .model(1, 'generate', leak('raw answer'), 100, 10)
      .proposal(1, `The token ${installationToken} is wrong. ${leak('analysis')}`, [
        { path: 'deploy.sh', search: apiKey, replace: secretEnv },
      ])
      .applied(1, diff, ['deploy.sh'])
      .executed(1, exec(1, longOutput, 400))
      .decided(1, true, leak('decision'))
      .attempt(2)
      .proposal(2, 'Try again.', [{ path: 'deploy.sh', search: secretEnv, replace: apiKey }])
      .rejected(2, [leak('problem')])
      .reflected({
        ...REFLECTION,
        summary: `Use ${installationToken} correctly`,
        rootCause: leak('root cause'),
        changes: leak('changes'),
        risks: [leak('risk')],
      })
      .finished('fixed', leak('reason'), diff);
  }

  it('leaves no secret, nor a piece of one, in any body', () => {
    const view = leakyRun().view({ attemptCommentUrls: { 1: attemptUrl(1), 2: attemptUrl(2) } });
    const bodies = everyBody(view, new Redactor(secrets));
    expect(bodies.length).toBeGreaterThan(10);
    for (const { name, text } of bodies) {
      for (const secret of secrets) {
        expect(text, name).not.toContain(secret.slice(0, 14));
        expect(text, name).not.toContain(secret.slice(-14));
      }
    }
    const attempt = bodies.find((body) => body.name === 'attempt 1')!.text;
    expect(attempt).toContain('late: [REDACTED] [REDACTED] [REDACTED]');
  });

  it('redacts the shapes of credentials even without a list', () => {
    const view = leakyRun().view();
    for (const { name, text } of everyBody(view, new Redactor())) {
      expect(text, name).not.toContain(installationToken.slice(0, 14));
    }
  });
});

describe('injection through model and sandbox text', () => {
  const hostile = [
    statusMarker('someone-else'),
    '@octocat @acme/security please look',
    '</details></details><details open><summary>fake</summary>',
    'fixes #1, closes #2',
    '```',
    'an unclosed fence',
  ].join('\n');

  function hostileRun(): EventList {
    return new EventList()
      .started()
      .reproduced('failing', [exec(1, hostile, 100)])
      .attempt(1)
      .tool(1, 'read_file', JSON.stringify({ path: hostile }), hostile)
      .model(1, 'generate', hostile, 10, 10)
      .proposal(1, hostile, [{ path: 'a.py', search: hostile, replace: hostile }])
      .rejected(1, [hostile])
      .attempt(2)
      .proposal(2, hostile, [])
      .applied(2, `+${hostile.replaceAll('\n', '\n+')}\n`, ['a.py'])
      .executed(2, exec(0, `${SUCCESS_OUTPUT}${hostile}`, 100))
      .reflected({
        summary: hostile,
        rootCause: hostile,
        changes: hostile,
        confidence: 'low',
        risks: [hostile],
      })
      .finished('fixed', hostile);
  }

  /** What GitHub renders as Markdown: code blocks and spans, where nothing is live, taken out. */
  const outsideCode = (text: string) =>
    text.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1$/gm, '').replace(/(`+)[^`][\s\S]*?\1/g, '');

  it('leaves only our own marker, no live mention, issue reference or unbalanced <details>', () => {
    const view = hostileRun().view();
    for (const { name, text: raw } of everyBody(view, Redactor.none)) {
      expect(
        parseMarkers(raw).every((marker) => marker.jobId === JOB_ID),
        name,
      ).toBe(true);
      const text = outsideCode(raw);
      expect(text, name).not.toMatch(/(^|[^\w@\u200D])@(octocat|acme)/);
      expect(text, name).not.toMatch(/(fixes|closes) #\d/);
      const opened = text.match(/<details[ >]/g)?.length ?? 0;
      const closed = text.match(/<\/details>/g)?.length ?? 0;
      expect(closed, name).toBe(opened);
    }
  });
});
