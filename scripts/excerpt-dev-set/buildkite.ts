import { type CiSystem, cloneProgress, ESC, failure, type Job } from './ci-job.js';
import { type Line, plain } from './run.js';

/**
 * A Buildkite job log as the agent writes it: every line opens with the agent's timestamp,
 * `ESC _bk;t=<ms> BEL`; the agent's own phases are `~~~ ` groups (hooks, `Preparing working
 * directory` with its git commands, the cache plugin), the commands it runs are echoed after a
 * grey `$`; the step's script opens its own groups with `--- ` (collapsed) and `+++ ` (expanded);
 * a failing command ends with `🚨 Error: The command exited with status N` and `^^^ +++`, which
 * expands the group before, then the pre-exit hooks run.
 */
const WORKDIR = '/var/lib/buildkite-agent/builds/agent-linux-1/octo/shop';
const echo = (command: string): string => `${ESC}[90m$${ESC}[0m ${command}`;

function setup(job: Job): Line[] {
  const { cachePath, cacheKeyFile } = job.toolchain;
  return plain([
    '~~~ Running global environment hook',
    echo('/etc/buildkite-agent/hooks/environment'),
    '~~~ Running global pre-checkout hook',
    echo('/etc/buildkite-agent/hooks/pre-checkout'),
    '~~~ Preparing working directory',
    `${ESC}[90m# Creating "${WORKDIR}"${ESC}[0m`,
    echo(`cd ${WORKDIR}`),
    echo(`git clone -v -- https://github.com/${job.repository}.git .`),
    "Cloning into '.'...",
    ...cloneProgress(),
    echo('git clean -ffxdq'),
    echo('git fetch -v --prune -- origin main'),
    echo(`git checkout -f ${job.commit}`),
    `HEAD is now at ${job.commit.slice(0, 7)} shop: prices and discounts`,
    `${ESC}[90m# Cleaning again to catch any post-checkout changes${ESC}[0m`,
    echo('git clean -ffxdq'),
    '~~~ Running plugin cache pre-command hook',
    echo(
      '/var/lib/buildkite-agent/plugins/github-com-buildkite-plugins-cache-buildkite-plugin-v1-3-0/hooks/pre-command',
    ),
    `Cache restore: looking for a cache keyed on ${cacheKeyFile}`,
    `Cache hit at file level, restoring ${cachePath}...`,
    '~~~ Running commands',
  ]);
}

function shape(job: Job): Line[] {
  const { run, toolchain } = job;
  const lines: Line[] = [
    ...setup(job),
    ...plain([echo('.buildkite/steps/test.sh'), `--- :package: ${toolchain.install.command}`]),
    ...job.install,
    ...plain([`+++ :test_tube: ${run.command}`]),
    ...job.body,
    failure(`🚨 Error: The command exited with status ${run.exitCode}`),
    ...plain(['^^^ +++', `user command error: exit status ${run.exitCode}`]),
    ...plain(['~~~ Running plugin cache post-command hook', 'Cache save skipped: the command failed']),
    ...plain(['~~~ Running global pre-exit hook', echo('/etc/buildkite-agent/hooks/pre-exit')]),
  ];
  return lines.map((line, index) => ({
    ...line,
    text: `${ESC}_bk;t=${1732521600000 + index * 37}\u0007${line.text}`,
  }));
}

export const BUILDKITE: CiSystem = { name: 'buildkite', workdir: WORKDIR, shape };
