import { describe, expect, it } from 'vitest';
import { commitLink, commitUrl } from '../../src/report/commit.js';
import { MarkdownWriter } from '../../src/report/markdown.js';
import { Redactor } from '../../src/report/redact.js';

const SHA = '3484a3fb816e0859fd6e1cea078d76385ff50625';
const md = new MarkdownWriter(Redactor.none);

describe('the tested commit', () => {
  it('links a clone URL’s commit page, on github.com and on GitHub Enterprise', () => {
    expect(commitUrl('https://github.com/octo-org/octo-repo.git', SHA)).toBe(
      `https://github.com/octo-org/octo-repo/commit/${SHA}`,
    );
    expect(commitUrl('https://ghe.example.com/team/app', SHA)).toBe(
      `https://ghe.example.com/team/app/commit/${SHA}`,
    );
  });

  it('gives no URL for anything unexpected', () => {
    expect(commitUrl('git@github.com:octo-org/octo-repo.git', SHA)).toBeNull();
    expect(commitUrl('https://github.com/octo-org/octo-repo.git', 'main')).toBeNull();
  });

  it('shows seven characters, linked when it can be', () => {
    expect(commitLink({ sha: SHA, url: commitUrl('https://github.com/o/r.git', SHA) }, md)).toBe(
      `commit [\`3484a3f\`](https://github.com/o/r/commit/${SHA})`,
    );
    expect(commitLink({ sha: SHA, url: null }, md)).toBe('commit `3484a3f`');
  });
});
