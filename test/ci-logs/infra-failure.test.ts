import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyInfraFailure } from '../../src/ci-logs/index.js';
import { actionsLog } from './helpers.js';

/**
 * Infrastructure failures told from the code's on real logs: real tools' own
 * output (npm, pip, git, apt, go, docker) captured in isolated network
 * namespaces and on a full tmpfs, in the GitHub Actions log shape, with the
 * runner's documented messages (test/fixtures/infra-failures/README.md), and
 * the real Actions logs of test/fixtures/gha-logs, all failures of their code.
 */
const fixtures = new URL('../fixtures/infra-failures/logs/', import.meta.url);
const labelled = readdirSync(fixtures)
  .filter((name) => name.endsWith('.log'))
  .map((name) => {
    const label = JSON.parse(readFileSync(new URL(name.replace(/\.log$/, '.json'), fixtures), 'utf8'));
    return { name, expected: label.expected as string | null, why: label.why as string };
  });

const gha = new URL('../fixtures/gha-logs/', import.meta.url);
const realJobs = readdirSync(gha, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

describe('classifyInfraFailure on real tools and runner messages', () => {
  it('covers each kind the issue names, and the code failures beside them', () => {
    const kinds = new Set(labelled.map((fixture) => fixture.expected));
    for (const kind of ['runner-lost', 'cancelled', 'network', 'rate-limit', 'disk-full', null])
      expect(kinds).toContain(kind);
    expect(labelled.length).toBeGreaterThanOrEqual(16);
  });

  it.each(labelled)('$name: $expected ($why)', async ({ name, expected }) => {
    const verdict = await classifyInfraFailure(
      createReadStream(new URL(name, fixtures), { highWaterMark: 997 }),
    );
    expect(verdict?.kind ?? null).toBe(expected);
    if (verdict) {
      expect(verdict.step).toMatch(/^Run /);
      expect(verdict.line).toBeGreaterThan(0);
    }
  });

  it('names the evidence and where it is', async () => {
    const verdict = await classifyInfraFailure(readFileSync(new URL('npm-etimedout.log', fixtures)));
    expect(verdict).toEqual({
      kind: 'network',
      evidence:
        'npm error network request to http://10.200.0.2/left-pad failed, reason: connect ETIMEDOUT 10.200.0.2:80',
      line: 20,
      step: 'Run npm ci',
    });
  });
});

describe('classifyInfraFailure on real failures of the code', () => {
  it.each(realJobs)('%s is the code’s', async (name) => {
    const log = createReadStream(new URL(`${name}/job.log`, gha), { highWaterMark: 64 * 1024 });
    expect(await classifyInfraFailure(log)).toBeNull();
  });
});

describe('where a line counts', () => {
  const step = (command: string, output: string[], end: string[]) => [
    `##[group]Run ${command}`,
    command,
    'shell: /usr/bin/bash -e {0}',
    '##[endgroup]',
    ...output,
    ...end,
  ];
  const exit = ['##[error]Process completed with exit code 1.'];

  it('a .NET test that prints "The operation was canceled." fails as a test; the runner writing it is a cancellation', async () => {
    const output = [
      '  Failed Api.Tests.FetchTests.Reads [12 ms]',
      '  Error Message:',
      'The operation was canceled.',
    ];
    expect(await classifyInfraFailure(actionsLog(step('dotnet test', output, exit)))).toBeNull();
    const cancelled = await classifyInfraFailure(
      actionsLog(step('dotnet test', ['Building...'], ['##[error]The operation was canceled.'])),
    );
    expect(cancelled).toMatchObject({ kind: 'cancelled', step: 'Run dotnet test' });
  });

  it('an error written in the script header is not evidence', async () => {
    const log = actionsLog([
      '##[group]Run echo "No space left on device" > expected.txt && ./check.sh',
      'echo "No space left on device" > expected.txt && ./check.sh',
      '##[endgroup]',
      'check.sh: mismatch in line 3',
      ...exit,
    ]);
    expect(await classifyInfraFailure(log)).toBeNull();
  });

  it('an error the failing step printed long before its end is not its failure', async () => {
    const noise = Array.from({ length: 40 }, (_, index) => `compiling module ${index}`);
    const output = [
      'npm warn retry after ECONNRESET',
      ...noise,
      'src/app.ts(3,7): error TS2322: Type mismatch.',
    ];
    expect(await classifyInfraFailure(actionsLog(step('npm run build', output, exit)))).toBeNull();
  });

  it('a runner lost with no log: the annotation GitHub writes says so', async () => {
    const annotation =
      'The hosted runner: GitHub Actions 12 lost communication with the server. Anything in your workflow that terminates the runner process, starves it for CPU/Memory, or blocks its network access can cause this error.';
    expect(await classifyInfraFailure('')).toBeNull();
    expect(await classifyInfraFailure('', { annotations: [annotation] })).toEqual({
      kind: 'runner-lost',
      evidence: annotation,
      line: null,
      step: null,
    });
  });

  it('plain console output is read as one step', async () => {
    const output =
      'Cloning into lib...\nfatal: unable to access https://git.example.test/lib/: Could not resolve host: git.example.test\n';
    expect(await classifyInfraFailure(output)).toMatchObject({ kind: 'network', step: null, line: 2 });
  });
});
