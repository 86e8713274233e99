import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LABELS, type Rule } from './labels.js';

/**
 * Builds the excerpt's development set from the recorded tool runs (record.sh): for each tool a
 * GitHub Actions job log and a plain terminal log, each with a labels file naming its failure lines.
 *
 * The Actions shape copies the structure of real job logs (../shared/data/gha-logs): the runner's
 * preamble, `##[group]Run …` steps with their echoed script, `shell:` and `env:` up to `##[endgroup]`,
 * a timestamp on every line, the language's setup action, the install step, the failing step ending in
 * `##[error]Process completed with exit code N.`, then the post steps and `Cleaning up orphan
 * processes`. The terminal shape is what a person sees: each command after a `$ ` prompt, then its output.
 *
 * Usage: npx tsx scripts/excerpt-dev-set/shape.ts
 */
const FIXTURES = fileURLToPath(new URL('../../test/fixtures/excerpt-dev-set/', import.meta.url));
const RAW = join(FIXTURES, 'raw');
const LOGS = join(FIXTURES, 'logs');

interface Run {
  tool: string;
  setup: { command: string; output: string[] } | null;
  command: string;
  output: string[];
  exitCode: number;
}

interface Line {
  text: string;
  label?: boolean;
}

/** The setup action a workflow for each tool would use, and what it prints. */
const SETUP_ACTIONS: Record<string, { uses: string; lines: string[] }> = {
  node: {
    uses: 'actions/setup-node@v4',
    lines: ['Found in cache @ /opt/hostedtoolcache/node/20.18.0/x64', '##[group]Environment details'],
  },
  python: { uses: 'actions/setup-python@v5', lines: ['Successfully set up CPython (3.11.7)'] },
  go: {
    uses: 'actions/setup-go@v5',
    lines: ['Setup go version spec 1.19', 'Found in cache @ /opt/hostedtoolcache/go/1.19.8/x64'],
  },
  rust: {
    uses: 'dtolnay/rust-toolchain@stable',
    lines: ['info: syncing channel updates for stable-x86_64-unknown-linux-gnu'],
  },
  ruby: {
    uses: 'ruby/setup-ruby@v1',
    lines: ['Using Ruby 3.1 from the tool cache', 'Bundler 2.4 installed'],
  },
  java: {
    uses: 'actions/setup-java@v4',
    lines: ['Java 17.0.15 was found in the local cache', 'Setting Java 17.0.15 as the default'],
  },
  c: { uses: 'actions/cache@v4', lines: ['Cache not found for input keys: ccache-Linux-'] },
};
const LANGUAGE: Record<string, string> = {
  jest: 'node',
  vitest: 'node',
  mocha: 'node',
  tape: 'node',
  eslint: 'node',
  tsc: 'node',
  pytest: 'python',
  unittest: 'python',
  go: 'go',
  'go-panic': 'go',
  'go-timeout': 'go',
  cargo: 'rust',
  rspec: 'ruby',
  maven: 'java',
  gradle: 'java',
  gcc: 'c',
  make: 'c',
};

function readRun(tool: string): Run {
  const read = (name: string) => readFileSync(join(RAW, tool, name), 'utf8').replace(/\n$/, '');
  const setupPath = join(RAW, tool, 'setup.txt');
  const command = read('command.txt');
  const setupCommand = LANGUAGE[tool] === 'node' ? 'npm install --no-audit --no-fund' : null;
  return {
    tool,
    setup:
      setupCommand && existsSync(setupPath)
        ? { command: setupCommand, output: read('setup.txt').split('\n') }
        : null,
    command,
    output: read('output.txt').split('\n'),
    exitCode: Number.parseInt(read('exit.txt'), 10),
  };
}

/** The tool's output with its failure lines labelled; every rule must match. */
function labelled(tool: string, output: string[]): Line[] {
  const rules = LABELS[tool];
  if (!rules) throw new Error(`${tool}: no labels in labels.ts`);
  const plain = output.map(stripAnsi);
  const marks = new Set<number>();
  for (const rule of rules) {
    const found = apply(rule, plain);
    if (found.length === 0) throw new Error(`${tool}: a label rule matches no line: ${describe(rule)}`);
    for (const index of found) marks.add(index);
  }
  return output.map((text, index) => ({ text, label: marks.has(index) && !isFiller(plain[index]!) }));
}

function apply(rule: Rule, plain: string[]): number[] {
  if (typeof rule === 'string' || rule instanceof RegExp) {
    return plain.flatMap((text, index) => (holds(text, rule) ? [index] : []));
  }
  const start = plain.findIndex((text) => holds(text, rule.from));
  if (start === -1) return [];
  const end = plain.findIndex((text, index) => index > start && holds(text, rule.to));
  if (end === -1) return [];
  return Array.from({ length: end - start + 1 }, (_, offset) => start + offset);
}

function holds(text: string, fragment: string | RegExp): boolean {
  return typeof fragment === 'string' ? text.includes(fragment) : fragment.test(text);
}

function describe(rule: Rule): string {
  return typeof rule === 'object' && !(rule instanceof RegExp) ? `${rule.from} … ${rule.to}` : String(rule);
}

/** Blank lines and bare separators are never failure lines. */
function isFiller(text: string): boolean {
  return /^[\s⎯─=_-]*(?:\[\d+\/\d+\][\s⎯─]*)?$/.test(text);
}

function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing escape sequences is the point.
  return text.replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '');
}

const plain = (texts: string[]): Line[] => texts.map((text) => ({ text }));

/** A `##[group]Run …` step header as the runner writes it. */
function stepHeader(command: string, env: Record<string, string> = {}): Line[] {
  const vars = Object.entries(env);
  return plain([
    `##[group]Run ${command}`,
    `\u001b[36;1m${command}\u001b[0m`,
    'shell: /usr/bin/bash -e {0}',
    ...(vars.length > 0 ? ['env:', ...vars.map(([name, value]) => `  ${name}: ${value}`)] : []),
    '##[endgroup]',
  ]);
}

function actionsPreamble(): Line[] {
  return plain([
    'Current runner version: \u00272.321.0\u0027',
    '##[group]Operating System',
    'Ubuntu',
    '24.04.1',
    'LTS',
    '##[endgroup]',
    '##[group]Runner Image',
    'Image: ubuntu-24.04',
    'Version: 20241117.1.0',
    '##[endgroup]',
    '##[group]GITHUB_TOKEN Permissions',
    'Contents: read',
    'Metadata: read',
    '##[endgroup]',
    'Secret source: Actions',
    'Prepare workflow directory',
    'Prepare all required actions',
    'Getting action download info',
    "Download action repository 'actions/checkout@v4' (SHA:11bd71901bbe5b1630ceea73d27597364c9af683)",
    'Complete job name: test',
    '##[group]Run actions/checkout@v4',
    'with:',
    '  repository: octo/shop',
    '  token: ***',
    '  fetch-depth: 1',
    '##[endgroup]',
    'Syncing repository: octo/shop',
    '##[group]Getting Git version info',
    'Working directory is \u0027/home/runner/work/app/app\u0027',
    '[command]/usr/bin/git version',
    'git version 2.47.0',
    '##[endgroup]',
    '##[group]Fetching the repository',
    '[command]/usr/bin/git -c protocol.version=2 fetch --no-tags --prune --no-recurse-submodules --depth=1 origin +9f1c2e7:refs/remotes/origin/main',
    ' * [new ref]         9f1c2e7 -> origin/main',
    '##[endgroup]',
    '##[group]Checking out the ref',
    '[command]/usr/bin/git checkout --progress --force -B main refs/remotes/origin/main',
    "Switched to a new branch 'main'",
    '##[endgroup]',
    '[command]/usr/bin/git log -1 --format=%H',
    '9f1c2e7a5b3d4c6e8f0a1b2c3d4e5f6a7b8c9d0e',
  ]);
}

function actionsPostSteps(uses: string): Line[] {
  return plain([
    `Post job cleanup.`,
    ...(uses.startsWith('actions/setup-')
      ? [`Cache hit occurred on the primary key, not saving cache.`]
      : []),
    'Post job cleanup.',
    '[command]/usr/bin/git version',
    'git version 2.47.0',
    "Temporarily overriding HOME='/home/runner/work/_temp/5c0e2f' before making global git config changes",
    'Adding repository directory to the temporary git global config as a safe directory',
    '[command]/usr/bin/git config --global --add safe.directory /home/runner/work/app/app',
    '[command]/usr/bin/git config --local --name-only --get-regexp core\\.sshCommand',
    "[command]/usr/bin/git submodule foreach --recursive sh -c \"git config --local --name-only --get-regexp 'core\\.sshCommand' && git config --local --unset-all 'core.sshCommand' || :\"",
    '[command]/usr/bin/git config --local --name-only --get-regexp http\\.https\\:\\/\\/github\\.com\\/\\.extraheader',
    'http.https://github.com/.extraheader',
    '[command]/usr/bin/git config --local --unset-all http.https://github.com/.extraheader',
    'Cleaning up orphan processes',
  ]);
}

function actionsLog(run: Run, body: Line[]): Line[] {
  const action = SETUP_ACTIONS[LANGUAGE[run.tool]!]!;
  const lines: Line[] = [
    ...actionsPreamble(),
    ...plain([`##[group]Run ${action.uses}`, 'with:', '  cache: true', '##[endgroup]', ...action.lines]),
  ];
  if (action.lines.includes('##[group]Environment details'))
    lines.push(...plain(['node: v20.18.0', 'npm: 10.8.2', 'yarn: 1.22.22', '##[endgroup]']));
  if (run.setup) lines.push(...stepHeader(run.setup.command), ...plain(run.setup.output));
  lines.push(...stepHeader(run.command, { CI: 'true' }), ...body);
  lines.push({ text: `##[error]Process completed with exit code ${run.exitCode}.`, label: true });
  return stamp([...lines, ...actionsPostSteps(action.uses)]);
}

function terminalLog(run: Run, body: Line[]): Line[] {
  const lines: Line[] = [];
  if (run.setup) lines.push({ text: `$ ${run.setup.command}` }, ...plain(run.setup.output));
  return [...lines, { text: `$ ${run.command}` }, ...body];
}

/** The runner's `2026-11-20T10:00:00.0000000Z ` prefix, a few milliseconds a line. */
function stamp(lines: Line[]): Line[] {
  const start = Date.UTC(2026, 10, 20, 10, 0, 0);
  return lines.map((line, index) => {
    const time = new Date(start + index * 7)
      .toISOString()
      .replace(/\.(\d{3})Z$/, (_, ms) => `.${ms}${String((index * 7919) % 10_000).padStart(4, '0')}Z`);
    return { ...line, text: `${time} ${line.text}` };
  });
}

/** The log's text, and the numbers (by `\n`, `\r\n`, lone `\r`, as the excerpt counts) of its labelled lines. */
function render(lines: Line[]): { text: string; labelled: number[] } {
  let number = 0;
  const numbers: number[] = [];
  for (const line of lines) {
    number += line.text.replace(/\r$/, '').split('\r').length;
    if (line.label) numbers.push(number);
  }
  return { text: `${lines.map((line) => line.text).join('\n')}\n`, labelled: numbers };
}

/** `3-9, 12`: the labelled numbers as ranges, for a person reading the labels file. */
function ranges(numbers: number[]): string {
  const parts: string[] = [];
  for (let index = 0; index < numbers.length; ) {
    let end = index;
    while (end + 1 < numbers.length && numbers[end + 1] === numbers[end]! + 1) end++;
    parts.push(end === index ? `${numbers[index]}` : `${numbers[index]}-${numbers[end]}`);
    index = end + 1;
  }
  return parts.join(', ');
}

mkdirSync(LOGS, { recursive: true });
const tools = readdirSync(RAW).sort();
for (const tool of tools) {
  const run = readRun(tool);
  const body = labelled(tool, run.output);
  for (const [shape, lines] of [
    ['actions', actionsLog(run, body)],
    ['terminal', terminalLog(run, body)],
  ] as const) {
    const { text, labelled: numbers } = render(lines);
    const name = `${tool}--${shape}`;
    writeFileSync(join(LOGS, `${name}.log`), text);
    const labels = {
      tool,
      shape,
      command: run.command,
      exitCode: run.exitCode,
      failureLines: ranges(numbers),
    };
    writeFileSync(join(LOGS, `${name}.labels.json`), `${JSON.stringify(labels, null, 2)}\n`);
  }
}
process.stdout.write(`${tools.length * 2} logs in ${LOGS}\n`);
