import { stamp } from './actions.js';
import { type CiSystem, cloneProgress, failure, type Job } from './ci-job.js';
import { type Line, plain } from './run.js';

/**
 * An Azure Pipelines job log as the agent writes it (Microsoft-hosted Ubuntu): a timestamp on every
 * line; each task between `##[section]Starting: <name>` and `##[section]Finishing: <name>`, opening
 * with its banner (`Task : …`, `Version : …`); `##[command]` before the commands the agent runs;
 * a script task's `Generating script.`, its contents and `Starting Command Output`; on failure
 * `##[error]Bash exited with code 'N'.`, then the post-job tasks and `Finalize Job`.
 */
const WORKDIR = '/home/vsts/work/1/s';
const RULE = '==============================================================================';

function task(name: string, banner: [string, string, string], lines: Line[]): Line[] {
  const [title, description, version] = banner;
  return [
    ...plain([`##[section]Starting: ${name}`, RULE, `Task         : ${title}`]),
    ...plain([
      `Description  : ${description}`,
      `Version      : ${version}`,
      'Author       : Microsoft Corporation',
    ]),
    ...plain([RULE]),
    ...lines,
    ...plain([`##[section]Finishing: ${name}`]),
  ];
}

const BASH: [string, string, string] = ['Bash', 'Run a Bash script on macOS, Linux, or Windows', '3.247.0'];

function script(command: string, output: Line[], end: Line[] = []): Line[] {
  return task(command, BASH, [
    ...plain(['Generating script.', 'Script contents:', command]),
    ...plain(['========================== Starting Command Output ===========================']),
    ...plain(['[command]/usr/bin/bash --noprofile --norc /home/vsts/work/_temp/3c9b2a51-8e1f.sh']),
    ...output,
    ...end,
  ]);
}

const INITIALIZE = plain([
  '##[section]Starting: Initialize job',
  "Agent name: 'Azure Pipelines 4'",
  "Agent machine name: 'fv-az512-318'",
  "Current agent version: '3.248.0'",
  'Operating System',
  'Ubuntu',
  '22.04.5',
  'LTS',
  'Runner Image',
  'Image: ubuntu-22.04',
  'Version: 20241117.1.0',
  'Downloading task: Cache (2.198.0)',
  'Job preparation parameters',
  '##[section]Finishing: Initialize job',
]);

function checkout(job: Job): Line[] {
  return task(
    `Checkout ${job.repository}@main to s`,
    ['Get sources', 'Get sources from a repository', '1.0.0'],
    plain([
      `Syncing repository: ${job.repository} (GitHub)`,
      '##[command]git version',
      'git version 2.47.0',
      `##[command]git init "${WORKDIR}"`,
      `##[command]git remote add origin https://github.com/${job.repository}`,
      '##[command]git -c http.extraheader="AUTHORIZATION: basic ***" fetch --force --tags --prune --progress --no-recurse-submodules origin --depth=1',
      ...cloneProgress(),
      `##[command]git checkout --progress --force ${job.commit}`,
      `HEAD is now at ${job.commit.slice(0, 7)} shop: prices and discounts`,
    ]),
  );
}

function restoreCache(job: Job): Line[] {
  const { cachePath, cacheKeyFile } = job.toolchain;
  const fingerprint = 'Linux|5F2A91C7E3D04B6A8C1E2F3A4B5C6D7E';
  return task(
    'Cache',
    ['Cache', 'Cache files between runs', '2.198.0'],
    plain([
      'Resolving key:',
      ` - "${cacheKeyFile}" [string]`,
      ` - ${cacheKeyFile} [file] --> 5F2A91C7E3D04B6A8C1E2F3A4B5C6D7E`,
      `Resolved to: ${fingerprint}`,
      'Getting a pipeline cache artifact with one of the following fingerprints:',
      `Fingerprint: \`${fingerprint}\``,
      `There is a cache hit: \`${fingerprint}\``,
      'Downloaded 48.7 MB from 1 chunks in 2.4 seconds',
      `Extracting to ${WORKDIR}/${cachePath} ...`,
      'Process exit code: 0',
    ]),
  );
}

function shape(job: Job): Line[] {
  const { run, toolchain } = job;
  return stamp([
    ...INITIALIZE,
    ...checkout(job),
    ...restoreCache(job),
    ...script(toolchain.install.command, job.install),
    ...script(run.command, job.body, [failure(`##[error]Bash exited with code '${run.exitCode}'.`)]),
    ...plain(['##[section]Starting: Post-job: Cache', 'Skipping because job did not succeed.']),
    ...plain([
      '##[section]Finishing: Post-job: Cache',
      `##[section]Starting: Post-job: Checkout ${job.repository}@main to s`,
    ]),
    ...plain([`Cleaning any cached credential from repository: ${job.repository} (GitHub)`]),
    ...plain([
      `##[section]Finishing: Post-job: Checkout ${job.repository}@main to s`,
      '##[section]Starting: Finalize Job',
    ]),
    ...plain([
      'Cleaning up task key',
      'Start cleaning up orphan processes.',
      '##[section]Finishing: Finalize Job',
    ]),
  ]);
}

export const AZURE: CiSystem = { name: 'azure-pipelines', workdir: WORKDIR, shape };
