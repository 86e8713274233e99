import { describe, expect, it } from 'vitest';
import { setupFailureMarkdown } from '../../src/report/environment-summary.js';
import { NO_PREPARATION } from '../../src/sandbox/environment.js';
import { EnvironmentSetupError } from '../../src/sandbox/setup-error.js';

describe('setupFailureMarkdown', () => {
  it('shows the summary, the last lines in a block nothing can break out of, and the hosts', () => {
    const report = {
      ...NO_PREPARATION,
      egress: [
        { target: 'mirror.example.test:443', allowed: true, reason: null, bytes: 10 },
        { target: 'packages.refused.test:443', allowed: false, reason: 'not allowed', bytes: 0 },
      ],
    };
    const result = {
      exitCode: 1,
      end: 'exited',
      reason: null,
      durationMs: 5,
      stdout: '',
      stderr: '',
      output: '',
      truncated: false,
    } as const;
    const error = new EnvironmentSetupError({ command: 'npm ci' }, result, report, {
      lastLines: ['npm error 403 Forbidden', '```', '@someone look'],
    });
    const markdown = setupFailureMarkdown(error);

    expect(markdown).toContain('The setup step `npm ci` failed (exit code 1).');
    expect(markdown).toContain('````text\nnpm error 403 Forbidden\n```\n@someone look\n````');
    expect(markdown).toMatch(/\n\nSetup reached 1 host; refused [^\n]*packages\.refused\.test:443/);
    expect(error.message).toContain(
      'Hosts setup reached: mirror.example.test:443; refused: packages.refused.test:443.',
    );
  });
});
