import { type Language, type Line, languageOf, plain, type Run } from './run.js';

/**
 * The GitHub Actions shape, in the structure of real job logs (../shared/data/gha-logs): the runner's
 * preamble, `##[group]Run …` steps with their echoed script, `shell:` and `env:` up to `##[endgroup]`,
 * a timestamp on every line, the language's setup action, the install step, the failing step ending in
 * `##[error]Process completed with exit code N.`, then the post steps and `Cleaning up orphan
 * processes`. And the terminal shape: each command after a `$ ` prompt, then its output.
 */
/** The setup action a workflow for each tool would use, and what it prints. */
const SETUP_ACTIONS: Record<Language, { uses: string; lines: string[] }> = {
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

export function actionsLog(run: Run): Line[] {
  const action = SETUP_ACTIONS[languageOf(run.tool)];
  const lines: Line[] = [
    ...actionsPreamble(),
    ...plain([`##[group]Run ${action.uses}`, 'with:', '  cache: true', '##[endgroup]', ...action.lines]),
  ];
  if (action.lines.includes('##[group]Environment details'))
    lines.push(...plain(['node: v20.18.0', 'npm: 10.8.2', 'yarn: 1.22.22', '##[endgroup]']));
  if (run.setup) lines.push(...stepHeader(run.setup.command), ...plain(run.setup.output));
  lines.push(...stepHeader(run.command, { CI: 'true' }), ...run.body);
  lines.push({ text: `##[error]Process completed with exit code ${run.exitCode}.`, label: true });
  return stamp([...lines, ...actionsPostSteps(action.uses)]);
}

export function terminalLog(run: Run): Line[] {
  const lines: Line[] = [];
  if (run.setup) lines.push({ text: `$ ${run.setup.command}` }, ...plain(run.setup.output));
  return [...lines, { text: `$ ${run.command}` }, ...run.body];
}

/** The runner's `2026-11-20T10:00:00.0000000Z ` prefix, a few milliseconds a line. */
export function stamp(lines: Line[]): Line[] {
  const start = Date.UTC(2026, 10, 20, 10, 0, 0);
  return lines.map((line, index) => {
    const time = new Date(start + index * 7)
      .toISOString()
      .replace(/\.(\d{3})Z$/, (_, ms) => `.${ms}${String((index * 7919) % 10_000).padStart(4, '0')}Z`);
    return { ...line, text: `${time} ${line.text}` };
  });
}
