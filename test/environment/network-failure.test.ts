import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { classifyFailure, describeProblem } from '../../src/environment/classify-failure.js';

interface Captured {
  command: string;
  exitCode: number;
  output: string;
}

const folder = fileURLToPath(new URL('../fixtures/network-failures/', import.meta.url));
const fixture = (name: string): Captured => JSON.parse(readFileSync(join(folder, `${name}.json`), 'utf8'));
const classify = (captured: Captured) => classifyFailure({ ...captured, setupCommands: [], image: 'test' });

const NEEDS_NETWORK = [
  'npm-install-unreachable',
  'node-fetch',
  'node-connect-unreachable',
  'python-urllib',
  'pip-no-index',
  'git-clone-unreachable',
  'go-mod-download-proxy-off',
  'curl-unresolved',
];
const TESTS_OF_THEIR_OWN = ['node-test-asserts-network-error', 'python-unittest-asserts-network-error'];

describe('a command that needs the network, from real tools’ output', () => {
  it('every captured output is classified one way or the other', () => {
    const names = readdirSync(folder)
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.replace(/\.json$/, ''));
    expect(names.sort()).toEqual([...NEEDS_NETWORK, ...TESTS_OF_THEIR_OWN, 'npm-posttest-audit'].sort());
  });

  it.each(NEEDS_NETWORK)('%s is an environment problem', (name) => {
    const captured = fixture(name);
    const problem = classify(captured);
    expect(problem, captured.output).toMatchObject({ kind: 'network-needed', subject: captured.command });
    expect(problem!.fix).toMatch(/setup/);
    expect(describeProblem(problem!)).toMatch(/No model attempt was spent/);
  });

  it('a posttest hook that needs the network says to run the tests without it', () => {
    const problem = classify(fixture('npm-posttest-audit'));
    expect(problem).toMatchObject({ kind: 'network-needed', subject: 'posttest' });
    expect(problem!.message).toContain('`npm audit --omit=dev`');
    expect(problem!.evidence).toContain('getaddrinfo EAI_AGAIN registry.unreachable.test');
    expect(problem!.fix).toContain('npm run tests-only');
    expect(problem!.fix).toContain('npm test --ignore-scripts');
    expect(problem!.fix).toContain('`setup`');
  });

  it.each(TESTS_OF_THEIR_OWN)(
    '%s (a test asserting on a network error) stays the code’s business',
    (name) => {
      const captured = fixture(name);
      expect(captured.output).toMatch(/EAI_AGAIN|Temporary failure in name resolution/);
      expect(classify(captured)).toBeNull();
    },
  );

  it('a refused connection to a local service is not the network’s', async () => {
    // Nothing listens on this port of the loopback: the project's own service is not running.
    const script = "require('net').connect(9, '127.0.0.1').on('connect', () => process.exit(0))";
    const failed = await promisify(execFile)(process.execPath, ['-e', script]).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed.stderr).toContain('connect ECONNREFUSED 127.0.0.1:9');
    const output = failed.stdout + failed.stderr;
    expect(classify({ command: 'node server-test.js', exitCode: failed.code, output })).toBeNull();
  });

  it('a network error early in a run that then failed otherwise is not the run’s failure', () => {
    const warning = fixture('pip-no-index').output;
    const later = Array.from({ length: 60 }, (_, index) => `compiling module ${index}`).join('\n');
    const output = `${warning}${later}\nerror: expected ';' before '}' token\n`;
    expect(classify({ command: 'make', exitCode: 2, output })).toBeNull();
  });
});
