import { describe, expect, it } from 'vitest';
import { excerptLog } from '../../src/ci-logs/index.js';
import { texts } from './helpers.js';

/**
 * Each CI system's own log structure, as its documentation describes it: the format is
 * recognised, the step that failed is named with its exit code, the failure is kept, the
 * runner's setup and cleanup are left out, and timestamps and colour codes are gone.
 */
const E = '\u001b';
const setup = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix} ${index}: fetched package ${index} of ${count}`);
const failure = [
  'tests/test_io.py ..F',
  'E       assert 1 == 2',
  'FAILED tests/test_io.py::test_read - assert 1 == 2',
  '========================= 1 failed, 2 passed in 0.12s =========================',
];

describe('GitLab CI', () => {
  const section = (edge: 'start' | 'end', name: string, title = '') =>
    `${E}[0Ksection_${edge}:1732521600:${name}\r${E}[0K${title}`;
  const log = [
    `${E}[0KRunning with gitlab-runner 17.5.0 (2bd9d4f6)${E}[0;m`,
    section('start', 'prepare_executor', `${E}[36;1mPreparing the "docker" executor${E}[0;m`),
    section('end', 'prepare_executor'),
    section('start', 'get_sources', 'Getting source from Git repository'),
    ...setup('Receiving objects', 60),
    section('end', 'get_sources'),
    section('start', 'step_script', 'Executing "step_script" stage of the job script'),
    `${E}[32;1m$ pip install -r requirements.txt${E}[0;m`,
    ...setup('Collecting', 80),
    `${E}[32;1m$ pytest -q${E}[0;m`,
    ...failure,
    section('end', 'step_script'),
    section('start', 'upload_artifacts_on_failure', 'Uploading artifacts for failed job'),
    ...setup('Uploading', 200),
    section('end', 'upload_artifacts_on_failure'),
    section('start', 'cleanup_file_variables', 'Cleaning up project directory and file based variables'),
    section('end', 'cleanup_file_variables'),
    `${E}[31;1mERROR: Job failed: exit code 1${E}[0;m`,
  ].join('\n');

  it('reads sections and echoed commands, and blames the verdict after cleanup on the last command', async () => {
    const excerpt = await excerptLog(log, { maxLines: 40 });
    expect(excerpt.system).toBe('gitlab');
    expect(excerpt.failingStep).toBe('$ pytest -q');
    expect(excerpt.exitCode).toBe(1);
    for (const line of failure) expect(texts(excerpt)).toContain(line);
    expect(texts(excerpt)).toContain('ERROR: Job failed: exit code 1');
    expect(texts(excerpt).some((text) => text.startsWith('Uploading'))).toBe(false);
  });

  it('numbers a section marker and the title after its `\\r` as two lines', async () => {
    const excerpt = await excerptLog(log, { maxLines: 400 });
    const lines = log.split(/\r\n|\n|\r/);
    expect(excerpt.totalLines).toBe(lines.length);
    const command = excerpt.lines.find((line) => line.text === '$ pytest -q');
    expect(command?.n).toBe(lines.findIndex((line) => line.includes('$ pytest -q')) + 1);
  });
});

describe('Travis CI', () => {
  it('reads folds, the command that exited, and the build’s verdict', async () => {
    const fold = (edge: string, name: string) => `travis_fold:${edge}:${name}\r${E}[0K`;
    const log = [
      `${fold('start', 'worker_info')}${E}[33;1mWorker information${E}[0m`,
      'hostname: worker-1',
      fold('end', 'worker_info'),
      `${fold('start', 'install')}travis_time:start:1a\r${E}[0K$ pip install -r requirements.txt`,
      ...setup('Collecting', 80),
      `travis_time:end:1a:start=1,finish=2,duration=1,event=install\r${E}[0K${fold('end', 'install')}`,
      `travis_time:start:2b\r${E}[0K$ pytest -q`,
      ...failure,
      `travis_time:end:2b:start=3,finish=4,duration=1,event=script\r${E}[0K${E}[31;1mThe command "pytest -q" exited with 1.${E}[0m`,
      `${fold('start', 'cache.2')}store build cache`,
      ...setup('uploading', 200),
      fold('end', 'cache.2'),
      '',
      'Done. Your build exited with 1.',
    ].join('\n');
    const excerpt = await excerptLog(log, { maxLines: 40 });
    expect(excerpt.system).toBe('travis');
    expect(excerpt.failingStep).toBe('$ pytest -q');
    expect(excerpt.exitCode).toBe(1);
    for (const line of failure) expect(texts(excerpt)).toContain(line);
    expect(texts(excerpt)).toContain('The command "pytest -q" exited with 1.');
    expect(texts(excerpt).some((text) => text.startsWith('uploading'))).toBe(false);
  });
});

describe('Jenkins pipeline', () => {
  it('names the stage, with timestamper prefixes, and the script’s exit printed at the end', async () => {
    const lines = [
      'Started by user admin',
      '[Pipeline] Start of Pipeline',
      '[Pipeline] stage',
      '[Pipeline] { (Build)',
      '[Pipeline] sh',
      '+ make',
      ...setup('compiled', 80),
      '[Pipeline] }',
      '[Pipeline] // stage',
      '[Pipeline] stage',
      '[Pipeline] { (Test)',
      '[Pipeline] sh',
      '+ pytest -q',
      ...failure,
      '[Pipeline] }',
      '[Pipeline] // stage',
      '[Pipeline] stage',
      '[Pipeline] { (Deploy)',
      'Stage "Deploy" skipped due to earlier failure(s)',
      '[Pipeline] }',
      '[Pipeline] { (Declarative: Post Actions)',
      ...setup('archived', 200),
      '[Pipeline] }',
      '[Pipeline] End of Pipeline',
      'ERROR: script returned exit code 1',
      'Finished: FAILURE',
    ].map((line, index) => `[2024-11-25T08:00:${String(index % 60).padStart(2, '0')}.000Z] ${line}`);
    const excerpt = await excerptLog(lines.join('\n'), { maxLines: 40 });
    expect(excerpt.system).toBe('jenkins');
    expect(excerpt.failingStep).toBe('Test');
    expect(excerpt.exitCode).toBe(1);
    for (const line of failure) expect(texts(excerpt)).toContain(line);
    expect(texts(excerpt)).toContain('ERROR: script returned exit code 1');
    expect(texts(excerpt).some((text) => text.startsWith('archived'))).toBe(false);
  });
});

describe('CircleCI', () => {
  it('names the step by its command after the shebang', async () => {
    const log = [
      'Build-agent version 1.0.253312-6cf6c8b2 (2024-11-20T17:39:16+0000)',
      '#!/bin/bash -eo pipefail',
      'pip install -r requirements.txt',
      ...setup('Collecting', 80),
      '#!/bin/bash -eo pipefail',
      'pytest -q',
      ...failure,
      '',
      'Exited with code exit status 1',
      'Archiving the following test results',
      ...setup('  * reports/junit', 200),
    ].join('\n');
    const excerpt = await excerptLog(log, { maxLines: 40 });
    expect(excerpt.system).toBe('circleci');
    expect(excerpt.failingStep).toBe('pytest -q');
    expect(excerpt.exitCode).toBe(1);
    for (const line of failure) expect(texts(excerpt)).toContain(line);
  });
});

describe('Buildkite', () => {
  it('reads `~~~`, `---` and `+++` groups under the agent’s timestamps, not go test’s `--- FAIL`', async () => {
    const lines = [
      '~~~ Preparing working directory',
      '$ git clone -v -- https://github.com/octo/app.git .',
      ...setup('Receiving', 40),
      '--- :go: Build',
      ...setup('compiled', 80),
      '+++ :test_tube: Test',
      '$ go test ./...',
      '=== RUN   TestDiscount',
      '    price_test.go:10: Discount(100) = 80, want 90',
      '--- FAIL: TestDiscount (0.00s)',
      '--- PASS: TestZero (0.00s)',
      'FAIL\texample.com/shop\t0.022s',
      '🚨 Error: The command exited with status 1',
      '^^^ +++',
      '~~~ Running global pre-exit hook',
      ...setup('Uploading artifact', 200),
    ].map((line, index) => `${E}_bk;t=${1732521600000 + index}\u0007${line}`);
    const excerpt = await excerptLog(lines.join('\n'), { maxLines: 40 });
    expect(excerpt.system).toBe('buildkite');
    expect(excerpt.failingStep).toBe(':test_tube: Test');
    expect(excerpt.exitCode).toBe(1);
    expect(texts(excerpt)).toContain('    price_test.go:10: Discount(100) = 80, want 90');
    expect(texts(excerpt)).toContain('--- FAIL: TestDiscount (0.00s)');
    expect(texts(excerpt)).toContain('🚨 Error: The command exited with status 1');
    expect(texts(excerpt).some((text) => text.startsWith('Uploading artifact'))).toBe(false);
  });
});

describe('Azure Pipelines', () => {
  it('reads `##[section]Starting:` tasks and `exited with code` in quotes', async () => {
    const lines = [
      '##[section]Starting: Initialize job',
      'Agent name: Hosted Agent',
      '##[section]Finishing: Initialize job',
      '##[section]Starting: Install',
      ...setup('added', 80),
      '##[section]Finishing: Install',
      '##[section]Starting: Run tests',
      '[command]/usr/bin/bash /home/vsts/work/_temp/a3c.sh',
      ...failure,
      "##[error]Bash exited with code '1'.",
      '##[section]Finishing: Run tests',
      '##[section]Starting: Post-job: Checkout',
      ...setup('Cleaning', 200),
      '##[section]Finishing: Job',
    ].map((line, index) => `2024-11-25T08:00:${String(index % 60).padStart(2, '0')}.1234567Z ${line}`);
    const excerpt = await excerptLog(lines.join('\n'), { maxLines: 40 });
    expect(excerpt.system).toBe('azure-pipelines');
    expect(excerpt.failingStep).toBe('Run tests');
    expect(excerpt.exitCode).toBe(1);
    for (const line of failure) expect(texts(excerpt)).toContain(line);
    expect(texts(excerpt).some((text) => text.startsWith('Cleaning'))).toBe(false);
  });
});

describe('GitHub Actions', () => {
  it('is recognised by its groups and `##[error]`', async () => {
    const lines = [
      '##[group]Run pytest -q',
      'pytest -q',
      'shell: /usr/bin/bash -e {0}',
      '##[endgroup]',
      ...setup('collected', 200),
      ...failure,
      '##[error]Process completed with exit code 1.',
      'Post job cleanup.',
    ].map((line) => `2024-11-25T08:00:00.1234567Z ${line}`);
    const excerpt = await excerptLog(lines.join('\n'), { maxLines: 40 });
    expect(excerpt.system).toBe('github-actions');
    expect(excerpt.failingStep).toBe('Run pytest -q');
  });
});

describe('plain console output', () => {
  it('falls back to generic, and fills the budget with the end of the log and context', async () => {
    const log = [
      ...setup('[12:00:01] compiled', 300),
      ...failure.map((line) => `[12:00:02] ${line}`),
      ...setup('[12:00:03] note', 5),
    ].join('\n');
    const excerpt = await excerptLog(log, { maxLines: 30 });
    expect(excerpt.system).toBe('generic');
    expect(excerpt.failingStep).toBeNull();
    for (const line of failure) expect(texts(excerpt)).toContain(line);
    expect(excerpt.lines).toHaveLength(30);
    expect(excerpt.lines.at(-1)?.text).toBe('note 4: fetched package 4 of 5');
  });
});

describe('recall first', () => {
  it('keeps what `tail` would, and the failure far above a long epilogue that `tail` loses', async () => {
    const lines = [
      '##[group]Run make check',
      '##[endgroup]',
      ...setup('built', 400),
      "src/buffer.c:9:11: error: 'struct buffer' has no member named 'size'",
      ...setup('built', 100),
      '##[error]Process completed with exit code 2.',
      '##[group]Run actions/upload-artifact@v4',
      '##[endgroup]',
      ...setup('Uploaded bytes', 300),
      'Post job cleanup.',
    ];
    const excerpt = await excerptLog(lines.join('\n'), { maxLines: 150 });
    expect(excerpt.lines).toHaveLength(150);
    expect(texts(excerpt)).toContain("src/buffer.c:9:11: error: 'struct buffer' has no member named 'size'");
    // The end of the failing step, in log order, right up to its exit.
    const exit = excerpt.lines.findIndex((line) => line.text.startsWith('##[error]'));
    expect(excerpt.lines.slice(exit - 20, exit).map((line) => line.n)).toEqual(
      Array.from({ length: 20 }, (_, index) => 484 + index),
    );
    // Context on both sides of the error.
    expect(texts(excerpt)).toContain('built 399: fetched package 399 of 400');
    expect(texts(excerpt)).toContain('built 0: fetched package 0 of 100');
    expect(texts(excerpt).some((text) => text.startsWith('Uploaded bytes'))).toBe(false);
  });
});

describe('timestamps and colours', () => {
  it.each([
    ['Actions and Azure', '2024-11-25T08:00:00.1234567Z '],
    ['GitLab with timestamps', '2024-11-25T08:00:00.123456Z 00O '],
    ['GitLab, a continued line', '2024-11-25T08:00:00.123456Z 01E+ '],
    ['Jenkins timestamper', '[2024-11-25T08:00:00.123Z] '],
    ['Jenkins timestamper, time only', '08:00:00 '],
    ['a bracketed clock', '[08:00:00] '],
    ['logging', '2024-11-25 08:00:00,123 '],
    ['Buildkite', '\u001b_bk;t=1732521600000\u0007'],
  ])('drops %s prefixes before reading a line', async (_, prefix) => {
    const log = [
      ...setup('compiled', 300),
      `${E}[31mFAILED tests/test_io.py::test_read - assert 1 == 2${E}[0m`,
      ...setup('note', 5),
    ].map((line) => `${prefix}${line}`);
    const excerpt = await excerptLog(log.join('\n'), { maxLines: 10 });
    expect(excerpt.lines).toContainEqual({
      n: 301,
      text: 'FAILED tests/test_io.py::test_read - assert 1 == 2',
    });
  });
});

describe('failures the CI system reports', () => {
  it.each([
    ['GitHub Actions', '##[error]The operation was canceled.'],
    ['Travis', 'The job exceeded the maximum time limit for jobs, and has been terminated.'],
    ['CircleCI', 'Too long with no output (exceeded 10m0s): context deadline exceeded'],
    ['Jenkins', 'Timeout has been exceeded'],
    ['Buildkite', '🚨 Error: The command was interrupted by a signal: signal: terminated'],
    ['a shell', 'bash: line 1: 4242 Terminated              ./server'],
  ])('keeps a timeout or cancellation (%s)', async (_, line) => {
    const log = [...setup('running', 300), line, ...setup('cleanup', 60)].join('\n');
    const excerpt = await excerptLog(log, { maxLines: 8 });
    expect(texts(excerpt)).toContain(line);
  });
});

describe('Travis CI, as stored without its `\\r` clears', () => {
  it('runs on after a failing command: every failure is kept, `exited with 0` is none, yarn’s `$` is no step', async () => {
    const log = [
      'travis_fold:start:worker_info',
      'Worker information',
      'travis_fold:end:worker_info',
      'travis_time:start:336cc0cc',
      '$ yarn test:ci',
      'yarn run v1.9.4',
      '$ jest --ci',
      ...setup('PASS src/a.test.js', 200),
      'FAIL src/avatar.test.js',
      '  ● Avatar › renders',
      '    Received value does not match stored snapshot "Avatar renders 1".',
      ...setup('PASS src/b.test.js', 200),
      'Tests:       1 failed, 2412 passed, 2413 total',
      'error Command failed with exit code 1.',
      'travis_time:end:336cc0cc:start=1,finish=2,duration=1',
      '',
      'The command "yarn test:ci" exited with 1.',
      'travis_time:start:255a902c',
      '$ yarn lint',
      'Done in 80.39s.',
      'travis_time:end:255a902c:start=1,finish=2,duration=1',
      'The command "yarn lint" exited with 0.',
      'travis_time:start:239273b6',
      '$ yarn flow check',
      '$ flow check',
      'Error ---------------------------------------- kyoto/components/ui/Avatars.jsx:36:8',
      'null or undefined [1] is incompatible with string [2].',
      'Found 1 error',
      'error Command failed with exit code 2.',
      'travis_time:end:239273b6:start=1,finish=2,duration=1',
      'The command "yarn flow check" exited with 1.',
      'travis_fold:start:cache.2',
      ...setup('cache', 100),
      'travis_fold:end:cache.2',
      'Done. Your build exited with 1.',
    ].join('\n');
    const excerpt = await excerptLog(log, { maxLines: 60 });
    expect(excerpt.system).toBe('travis');
    expect(excerpt.failingStep).toBe('$ yarn flow check');
    expect(excerpt.exitCode).toBe(1);
    for (const line of [
      '  ● Avatar › renders',
      '    Received value does not match stored snapshot "Avatar renders 1".',
      'Tests:       1 failed, 2412 passed, 2413 total',
      'The command "yarn test:ci" exited with 1.',
      'null or undefined [1] is incompatible with string [2].',
      'The command "yarn flow check" exited with 1.',
    ]) {
      expect(texts(excerpt)).toContain(line);
    }
    expect(texts(excerpt)).not.toContain('The command "yarn lint" exited with 0.');
    expect(texts(excerpt).some((text) => text.startsWith('cache'))).toBe(false);
  });
});

describe('GitLab CI, copied from its job page', () => {
  it('is recognised without section markers, and its cleanup is left out', async () => {
    const log = [
      'Running with gitlab-runner 17.5.0 (2bd9d4f6)',
      '  on green-2.saas-linux-small-amd64.runners-manager.gitlab.com/default xS6Vzpvo',
      'Preparing the "docker+machine" executor',
      'Getting source from Git repository',
      ...setup('Receiving objects', 60),
      'Executing "step_script" stage of the job script',
      '$ make -j 2',
      ...setup('[ 37%] Building CXX object', 200),
      'make[2]: *** [src/CMakeFiles/core.dir/build.make:102: src/Account.cpp.o] Error 1',
      'make: *** [Makefile:84: all] Error 2',
      'Cleaning up project directory and file based variables',
      '00:01',
      'ERROR: Job failed: exit code 2',
    ].join('\n');
    const excerpt = await excerptLog(log, { maxLines: 30 });
    expect(excerpt.system).toBe('gitlab');
    expect(excerpt.failingStep).toBe('step_script');
    expect(excerpt.exitCode).toBe(2);
    expect(texts(excerpt)).toContain('make: *** [Makefile:84: all] Error 2');
    expect(texts(excerpt)).toContain('ERROR: Job failed: exit code 2');
    expect(texts(excerpt)).not.toContain('00:01');
  });
});
