import { describe, expect, it } from 'vitest';
import { excerptLog } from '../../src/ci-logs/index.js';
import { actionsLog, texts } from './helpers.js';

const noise = (count: number, what: string) =>
  Array.from({ length: count }, (_, index) => `${what} ${index}`);

describe('an Actions job log', () => {
  it('drops the timestamp prefix and keeps each line’s number', async () => {
    const excerpt = await excerptLog(actionsLog(['hello', 'world']));
    expect(excerpt.lines).toEqual([
      { n: 1, text: 'hello' },
      { n: 2, text: 'world' },
    ]);
  });

  it('names the step whose process failed, from `##[group]Run`, with its exit code', async () => {
    const log = actionsLog([
      '##[group]Run npm ci',
      'shell: /usr/bin/bash -e {0}',
      '##[endgroup]',
      ...noise(200, 'added package'),
      '##[group]Run npm test',
      '\u001b[36;1mnpm test -- --ci\u001b[0m',
      '\u001b[36;1mecho done\u001b[0m',
      'shell: /usr/bin/bash --noprofile --norc -e -o pipefail {0}',
      'env:',
      '  CI: true',
      '##[endgroup]',
      ...noise(200, 'test passed'),
      'Error: expected 200, got 500',
      '##[error]Process completed with exit code 3.',
    ]);
    const excerpt = await excerptLog(log);
    expect(excerpt.failingStep).toBe('Run npm test');
    expect(excerpt.exitCode).toBe(3);
    expect(excerpt.stepScript).toEqual({
      run: 'npm test -- --ci\necho done',
      shell: '/usr/bin/bash --noprofile --norc -e -o pipefail {0}',
    });
    expect(excerpt.lines).toContainEqual({ n: 204, text: '##[group]Run npm test' });
    expect(texts(excerpt)).toContain('Error: expected 200, got 500');
    expect(texts(excerpt)).toContain('##[error]Process completed with exit code 3.');
  });

  it('finds the failure when later steps, summaries and post-job cleanup follow it', async () => {
    const log = actionsLog([
      '##[group]Run pytest',
      '##[endgroup]',
      ...noise(100, 'collected'),
      'FAILED tests/test_api.py::test_status - assert 500 == 200',
      '##[error]Process completed with exit code 1.',
      '##[group]Run actions/upload-artifact@v4',
      'with:',
      '  name: reports',
      '##[endgroup]',
      'Error: No files were found with the provided path: reports/. No artifacts will be uploaded.',
      ...noise(60, 'uploading'),
      'Post job cleanup.',
      '[command]/usr/bin/git config --local --unset-all http.https://github.com/.extraheader',
      'error: could not lock config file .git/config: File exists',
      ...noise(40, 'cleanup'),
      'Cleaning up orphan processes',
    ]);
    const excerpt = await excerptLog(log, { maxLines: 10 });
    expect(excerpt.failingStep).toBe('Run pytest');
    expect(excerpt.exitCode).toBe(1);
    expect(texts(excerpt)).toContain('FAILED tests/test_api.py::test_status - assert 500 == 200');
    expect(texts(excerpt)).not.toContain('error: could not lock config file .git/config: File exists');
  });

  it('ranks errors of steps that passed far below the failing step’s', async () => {
    const log = actionsLog([
      '##[group]Run ./configure',
      '##[endgroup]',
      'checking for error.h... error: not found, using fallback',
      ...noise(300, 'checking'),
      '##[group]Run make',
      '##[endgroup]',
      ...noise(300, 'cc -c'),
      'src/main.c:12:5: error: expected ‘;’ before ‘}’ token',
      '##[error]Process completed with exit code 2.',
    ]);
    const excerpt = await excerptLog(log);
    expect(texts(excerpt)).toContain('src/main.c:12:5: error: expected ‘;’ before ‘}’ token');
    expect(texts(excerpt)).not.toContain('checking for error.h... error: not found, using fallback');
  });

  it('keeps problem-matcher annotations inside the step, which goes on after them', async () => {
    const log = actionsLog([
      '##[group]Run npx tsc && npm test',
      '##[endgroup]',
      ...noise(100, 'emit'),
      "##[error]src/app.ts(4,26): error TS2307: Cannot find module 'lib' or its corresponding type declarations.",
      ...noise(100, 'running'),
      '##[warning]The `set-output` command is deprecated',
      'Tests: 1 failed, 9 passed',
      '##[error]Process completed with exit code 1.',
    ]);
    const excerpt = await excerptLog(log);
    expect(excerpt.failingStep).toBe('Run npx tsc && npm test');
    expect(texts(excerpt)).toContain(
      "##[error]src/app.ts(4,26): error TS2307: Cannot find module 'lib' or its corresponding type declarations.",
    );
    expect(texts(excerpt)).toContain('Tests: 1 failed, 9 passed');
  });

  it('names an action step that failed through its own `##[error]`, with no exit-code line', async () => {
    const log = actionsLog([
      '##[group]Run gradle/gradle-build-action@v2',
      'with:',
      '  arguments: build',
      '##[endgroup]',
      ...noise(100, '> Task :compileJava'),
      'FAILURE: Build failed with an exception.',
      '##[error]Gradle build failed: https://gradle.com/s/abc',
      'Post job cleanup.',
    ]);
    const excerpt = await excerptLog(log);
    expect(excerpt.failingStep).toBe('Run gradle/gradle-build-action@v2');
    expect(excerpt.exitCode).toBeNull();
    expect(excerpt.stepScript).toBeNull();
    expect(texts(excerpt)).toContain('##[error]Gradle build failed: https://gradle.com/s/abc');
  });

  it('reads the exit code of an action that reports the process it ran', async () => {
    const log = actionsLog([
      '##[group]Run GabrielBB/xvfb-action@v1',
      '##[endgroup]',
      ...noise(200, 'PASS'),
      "##[error]The process '/usr/bin/xvfb-run' failed with exit code 2",
    ]);
    expect((await excerptLog(log)).exitCode).toBe(2);
  });

  it('names no failing step in a job that passed', async () => {
    const log = actionsLog([
      '##[group]Run npm test',
      '##[endgroup]',
      ...noise(300, 'ok'),
      'Tests: 40 passed',
    ]);
    const excerpt = await excerptLog(log);
    expect(excerpt.failingStep).toBeNull();
    expect(excerpt.exitCode).toBeNull();
  });
});

describe('a log from elsewhere', () => {
  it('gets an excerpt from plain text without steps or timestamps', async () => {
    const log = [
      ...noise(400, 'Compiling crate'),
      'error[E0425]: cannot find value `count` in this scope',
      ' --> src/main.rs:4:20',
      ...noise(50, 'note'),
      'Build finished',
    ].join('\n');
    const excerpt = await excerptLog(log, { maxLines: 20 });
    expect(excerpt.failingStep).toBeNull();
    expect(excerpt.exitCode).toBeNull();
    expect(excerpt.lines).toContainEqual({
      n: 401,
      text: 'error[E0425]: cannot find value `count` in this scope',
    });
    expect(texts(excerpt)).toContain(' --> src/main.rs:4:20');
    // The rest of the budget goes to the end of the log and to the lines around the error.
    expect(excerpt.lines.length).toBe(20);
    expect(excerpt.lines.at(-1)).toEqual({ n: 453, text: 'Build finished' });
    expect(texts(excerpt)).toContain('Compiling crate 399');
  });

  it('falls back to the last lines when nothing looks like a failure', async () => {
    const excerpt = await excerptLog(noise(500, 'line').join('\n'), { maxLines: 10 });
    expect(excerpt.lines.at(-1)).toEqual({ n: 500, text: 'line 499' });
    expect(excerpt.lines.length).toBe(10);
  });

  it('shows a log that fits the budget whole', async () => {
    const excerpt = await excerptLog('one\ntwo\nthree\n', { maxLines: 3 });
    expect(excerpt.lines.map((line) => line.n)).toEqual([1, 2, 3]);
    expect(excerpt.truncated).toBe(false);
  });
});

describe('the budget', () => {
  it('keeps the strongest lines and says when it had to leave some out', async () => {
    const failures = Array.from(
      { length: 40 },
      (_, index) => `FAILED tests/test_many.py::test_${index} - assert False`,
    );
    const log = actionsLog([
      '##[group]Run pytest',
      '##[endgroup]',
      ...noise(100, 'x'),
      ...failures,
      '##[error]Process completed with exit code 1.',
    ]);
    const excerpt = await excerptLog(log, { maxLines: 12 });
    expect(excerpt.lines.length).toBe(12);
    expect(excerpt.truncated).toBe(true);
    expect(texts(excerpt)).toContain('##[error]Process completed with exit code 1.');
    // The last twelve lines are all failure lines: a tail keeps them, so the excerpt does, and the
    // step's header gives way (the failing step is still named).
    expect(texts(excerpt)).toContain('FAILED tests/test_many.py::test_29 - assert False');
    expect(excerpt.failingStep).toBe('Run pytest');
  });

  it('also caps the characters, for a prompt', async () => {
    const failures = Array.from(
      { length: 60 },
      (_, index) => `FAILED tests/test_many.py::test_${index} - ${'x'.repeat(80)}`,
    );
    const log = actionsLog([
      '##[group]Run pytest',
      '##[endgroup]',
      ...failures,
      '##[error]Process completed with exit code 1.',
    ]);
    const excerpt = await excerptLog(log, { maxCharacters: 2000 });
    const characters = excerpt.lines.reduce((sum, line) => sum + line.text.length, 0);
    expect(characters).toBeLessThanOrEqual(2000);
    expect(excerpt.lines.length).toBeGreaterThan(5);
    expect(excerpt.truncated).toBe(true);
  });

  it('keeps the repository’s own stack frames before a library’s', async () => {
    const log = actionsLog([
      '##[group]Run mvn test',
      '##[endgroup]',
      ...noise(100, '[INFO] Building'),
      'java.lang.IllegalStateException: cache closed',
      '\tat org.junit.platform.engine.support.hierarchical.NodeTestTask.execute(NodeTestTask.java:151)',
      '\tat org.junit.platform.engine.support.hierarchical.NodeTestTask.executeRecursively(NodeTestTask.java:141)',
      '\tat java.base/java.util.ArrayList.forEach(ArrayList.java:1541)',
      '\tat com.example.cache.Cache.get(Cache.java:88)',
      '\tat com.example.cache.CacheTest.readsAfterClose(CacheTest.java:31)',
      ...noise(100, '[INFO] Done'),
      '##[error]Process completed with exit code 1.',
    ]);
    const excerpt = await excerptLog(log, { maxLines: 6 });
    expect(texts(excerpt)).toContain('java.lang.IllegalStateException: cache closed');
    expect(texts(excerpt)).toContain('\tat com.example.cache.Cache.get(Cache.java:88)');
    expect(texts(excerpt)).toContain('\tat com.example.cache.CacheTest.readsAfterClose(CacheTest.java:31)');
    expect(texts(excerpt)).not.toContain('\tat java.base/java.util.ArrayList.forEach(ArrayList.java:1541)');
  });
});
