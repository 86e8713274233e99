/**
 * Tells a run that failed for want of the network from one whose tests
 * merely mention a network error. Commands in the loop never have a network
 * (only setup does, through the proxy), so a run that needs one fails the
 * same way whatever the code says: a model attempt cannot help. The rule
 * (docs/environments.md, "A command that needs the network"): the network
 * error must be the run's own failure — among the last lines of the part of
 * the output that failed (after npm's last `> pkg@1.0.0 script` header, so a
 * failing `posttest` hook is judged on its own lines), with no test runner
 * reporting a failed test in that part. A test that asserts on a network
 * error fails as a test, and stays the code's business.
 */

export interface NetworkFailure {
  /** The hook (`posttest`) or the command that needed the network. */
  subject: string;
  message: string;
  fix: string;
  evidence: string;
}

/** What tools print when they cannot reach a host: name lookups, unreachable networks, offline modes. */
const NETWORK_ERRORS: readonly RegExp[] = [
  /getaddrinfo (?:EAI_AGAIN|ENOTFOUND|EAI_NONAME|EAI_FAIL) [\w.-]+/,
  /Temporary failure in name resolution/,
  /Could not resolve host:? '?[\w.-]+/,
  /Name or service not known/,
  /No address associated with hostname/,
  // A refused connection to a local service is the project's own business (a database not started).
  /\bconnect (?:ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|ETIMEDOUT) (?!127\.|::1\b|\[::1\])[\d.:a-fA-F[\]]+/,
  /Network is unreachable/,
  /dial tcp: lookup [\w.-]+[^\n]*/,
  /module lookup disabled by GOPROXY=off/,
  /Failed to establish a new connection[^\n]*/,
  /attempting to make an HTTP request, but --offline was specified/,
  /Could not transfer artifact [^\n]*/,
  /java\.net\.UnknownHostException[^\n]*/,
];

/** How test runners report a failed test: a run showing one failed as a test, not for want of a network. */
const TEST_FAILURES: readonly RegExp[] = [
  /^\s*not ok \d+/m, // TAP: node --test, tape
  /^# fail\s+[1-9]/m,
  /^\s*\d+ failing\b/m, // mocha
  /^\s*Tests?:?\s+.*\b[1-9]\d* failed/m, // jest, vitest
  /^FAILED\b/m, // unittest, pytest
  /^=+ .*\b[1-9]\d* failed\b/m, // pytest's summary
  /^--- FAIL:/m, // go test
  /^Tests run:.*(?:Failures|Errors): [1-9]/m, // JUnit, Maven surefire
  /\bAssertionError\b/,
];

/** npm's header before each script it runs: `> demo@1.0.0 posttest`. */
const NPM_SCRIPT_HEADER = /^> \S+@\S* ([\w:.-]+)\n> ([^\n]*)$/gm;
const TAIL_LINES = 40;

export function networkFailure(command: string, exitCode: number, output: string): NetworkFailure | null {
  if (exitCode === 0) return null;
  const { script, text } = failingPart(output);
  const tail = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-TAIL_LINES)
    .join('\n');
  const evidence = NETWORK_ERRORS.map((pattern) => pattern.exec(tail)?.[0]).find(Boolean);
  if (!evidence || TEST_FAILURES.some((pattern) => pattern.test(text))) return null;
  const hook = script && /^(pre|post)/.test(script.name) ? script : null;
  if (hook)
    return {
      subject: hook.name,
      message: `The \`${hook.name}\` hook (\`${hook.command}\`) needs the network, which commands in the sandbox never have.`,
      fix:
        'Run the tests without the hook: point `command` (or `--command`) at a script that runs only the tests, such as ' +
        '`npm run tests-only`, or `npm test --ignore-scripts`, which skips pre and post hooks; or, if the step must run, ' +
        'move it to `setup`, which reaches the allowed hosts through the proxy.',
      evidence: evidence.slice(0, 300),
    };
  return {
    subject: command,
    message: `\`${command}\` needs the network, which commands in the sandbox never have (only setup reaches the allowed hosts, through the proxy).`,
    fix: 'Fetch what it needs in `setup` (allowing its host in `sandbox.allowed_hosts`), or run a command that works offline, leaving out the step that downloads.',
    evidence: evidence.slice(0, 300),
  };
}

/** The output from npm's last script header on (the script that failed), else all of it. */
function failingPart(output: string): { script: { name: string; command: string } | null; text: string } {
  const headers = [...output.matchAll(NPM_SCRIPT_HEADER)];
  const last = headers.at(-1);
  if (!last) return { script: null, text: output };
  return { script: { name: last[1]!, command: last[2]!.trim() }, text: output.slice(last.index) };
}
