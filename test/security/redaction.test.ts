import { lintSource } from '@secretlint/core';
import { describe, expect, it } from 'vitest';
import { renderAttemptComment } from '../../src/report/attempt-comment.js';
import { renderCheckRunResult } from '../../src/report/check-run.js';
import { renderCommitMessage } from '../../src/report/commit-message.js';
import { renderPullRequestBody } from '../../src/report/pull-request.js';
import { REDACTED, Redactor } from '../../src/report/redact.js';
import { redactingLogger } from '../../src/report/redacting-logger.js';
import { secretlintRanges, secretlintRules } from '../../src/report/secretlint-scan.js';
import { OutputRecorder } from '../../src/sandbox/output-recorder.js';
import { EventList } from '../report/fixtures/event-list.js';
import { exec } from '../report/fixtures/exec-results.js';
import { REFLECTION } from '../report/fixtures/reflection.js';
import { CHUNKS, CONFIGURED, PLANTED } from './planted-secrets.js';

const redactor = new Redactor(Object.values(CONFIGURED));
const everything = PLANTED.map((planted) => planted.text).join('\n');

/** Output as the sandbox records it: streamed chunks joined before anything sees them. */
function recorded(chunks: readonly string[]): string {
  const recorder = new OutputRecorder();
  for (const chunk of chunks) recorder.write('stdout', Buffer.from(chunk));
  return recorder.result().output;
}

function run(): EventList {
  const output = `${everything}\n${recorded(CHUNKS)}\n`;
  return new EventList('./deploy.sh', 1)
    .started([])
    .reproduced('failing', [exec(1, output, 300)])
    .attempt(1)
    .proposal(1, `The output shows ${everything}`, [{ path: 'deploy.sh', search: 'a', replace: 'b' }])
    .applied(1, 'diff --git a/deploy.sh b/deploy.sh\n', ['deploy.sh'])
    .executed(1, exec(0, output, 300))
    .reflected({ ...REFLECTION, rootCause: everything, changes: everything, risks: [everything] })
    .finished('fixed', 'the command passes', 'diff --git a/deploy.sh b/deploy.sh\n');
}

/** Every place a planted secret could reach, rendered through the code that posts or writes it. */
function places(): Record<string, (text: string) => string> {
  const view = run().view();
  const comment = renderAttemptComment(view, 1, redactor);
  const check = renderCheckRunResult(view, redactor).output;
  const checkText = [check.title, check.summary, check.text ?? ''].join('\n');
  const pullRequest = renderPullRequestBody(view, redactor);
  const lines: string[] = [];
  const logger = redactingLogger(
    {
      debug: () => {},
      info: (fields, message) => lines.push(JSON.stringify(fields), message),
      warn: () => {},
      error: () => {},
    },
    redactor,
  );
  return {
    'comment body': () => comment,
    'check run output': () => checkText,
    'pull request body': () => pullRequest,
    'commit message': (text) =>
      renderCommitMessage(`fix: ${text}`, ['Selfdebug-Job: 1'], redactor, 'selfdebug: '),
    'log line': (text) => {
      lines.length = 0;
      logger.info({ job: '1', environment: text, nested: { error: text } }, `setup said ${text}`);
      return lines.join('\n');
    },
  };
}

describe('planted secrets', () => {
  const shown = places();

  it('plants more than 23 kinds', () => {
    expect(PLANTED.length).toBeGreaterThanOrEqual(23);
  });

  for (const [place, render] of Object.entries(shown)) {
    it.each(PLANTED)(`hides $kind from the ${place}`, ({ text, hidden }) => {
      const body = render(text);
      expect(body).toContain(REDACTED);
      for (const part of hidden) expect(body).not.toContain(part);
    });

    it(`hides a configured value streamed in two chunks from the ${place}`, () => {
      const body = render(recorded(CHUNKS));
      expect(body).not.toContain(CONFIGURED.chunked.slice(0, 17));
      expect(body).not.toContain(CONFIGURED.chunked.slice(17));
    });
  }
});

describe('the redactor', () => {
  it('keeps ordinary output readable', () => {
    const text = 'tokenizer = AutoTokenizer()\nmax_tokens: 1024\nhttps://github.com/acme/app\nok 12 tests';
    expect(redactor.redact(text)).toBe(text);
  });

  it('cannot be switched off by a secretlint-disable comment in the output', () => {
    const ghp = PLANTED.find((planted) => planted.kind === 'GitHub ghp_')!.hidden[0]!;
    const text = `// secretlint-disable\n${ghp}\n// secretlint-enable`;
    expect(Redactor.none.redact(text)).not.toContain(ghp);
  });

  it('never shows half of a credential the sandbox cut to fit its output budget', () => {
    const ghp = PLANTED.find((planted) => planted.kind === 'GitHub ghp_')!.hidden[0]!;
    const recorder = new OutputRecorder(200);
    // The head budget (100 bytes) ends in the middle of the token.
    recorder.write('stdout', Buffer.from(`${'x'.repeat(80)}\n${ghp}\n${'y\n'.repeat(500)}`));
    const output = Redactor.none.redact(recorder.result().output);
    expect(output).not.toContain(ghp.slice(0, 12));
  });
});

describe('driving secretlint synchronously', () => {
  it('finds what secretlint’s own async lintSource finds', async () => {
    const result = await lintSource({
      source: { filePath: 'output.txt', content: everything, contentType: 'text' },
      options: { config: { rules: secretlintRules() }, noPhysicFilePath: true },
    });
    const theirs = result.messages.map((message) => `${message.range[0]}-${message.range[1]}`).sort();
    const ours = secretlintRanges(everything, { narrow: false })
      .map(([start, end]) => `${start}-${end}`)
      .sort();
    expect(theirs.length).toBeGreaterThan(10);
    expect(ours).toEqual(theirs);
  });
});
