import { type CiSystem, ESC, failure, type Job } from './ci-job.js';
import { type Line, plain } from './run.js';

/**
 * A GitLab CI job log as gitlab-runner writes it (docker executor): `Running with gitlab-runner`, then
 * each stage in a collapsible section, `ESC[0Ksection_start:<unix time>:<name>\r ESC[0K` and its
 * title, closed by `section_end:<unix time>:<name>`; the script's commands echoed in green after
 * `$ `; on failure the cache and artifacts are saved "for failed job", the project directory is
 * cleaned, and the last line is `ERROR: Job failed: exit code N`.
 */
const WORKDIR = '/builds/octo/shop';
const CACHE_URL = 'https://storage.googleapis.com/gitlab-com-runners-cache/project/4242/default-protected';

type Section = (name: string, title: string, lines: Line[]) => Line[];

/** Sections a few seconds apart, as a job's stages run. */
function sections(): Section {
  let clock = 1732521600;
  return (name, title, lines) => {
    clock += 3;
    return [
      { text: `${ESC}[0Ksection_start:${clock}:${name}\r${ESC}[0K${ESC}[0K${ESC}[36;1m${title}${ESC}[0;m` },
      ...lines,
      { text: `${ESC}[0Ksection_end:${clock + 2}:${name}\r${ESC}[0K` },
    ];
  };
}

const note = (text: string): string => `${ESC}[0K${text}${ESC}[0;m`;
const green = (text: string): string => `${ESC}[32;1m${text}${ESC}[0;m`;
const usingImage = (image: string): string =>
  note(`Using docker image sha256:4f5d0e1a for ${image} with digest ${image}@sha256:b1d2 ...`);

function prepare(job: Job, section: Section): Line[] {
  const { image } = job.toolchain;
  return [
    ...plain([
      note('Running with gitlab-runner 17.5.3 (12030cf4)'),
      note(
        '  on blue-3.saas-linux-small-amd64.runners-manager.gitlab.com/default zxwgkjAP, system ID: s_d5d3',
      ),
    ]),
    ...section(
      'prepare_executor',
      'Preparing the "docker+machine" executor',
      plain([
        note(`Using Docker executor with image ${image} ...`),
        note(`Pulling docker image ${image} ...`),
        usingImage(image),
      ]),
    ),
    ...section(
      'prepare_script',
      'Preparing environment',
      plain([
        'Running on runner-zxwgkjap-project-4242-concurrent-0 via runner-zxwgkjap-s-l-s-amd64-1732521590...',
      ]),
    ),
  ];
}

function sources(job: Job, section: Section): Line[] {
  return [
    ...section(
      'get_sources',
      'Getting source from Git repository',
      plain([
        green('Fetching changes with git depth set to 20...'),
        `Initialized empty Git repository in ${WORKDIR}/.git/`,
        green('Created fresh repository.'),
        green(`Checking out ${job.commit.slice(0, 8)} as detached HEAD (ref is main)...`),
        '',
        green('Skipping Git submodules setup'),
      ]),
    ),
    ...section(
      'restore_cache',
      'Restoring cache',
      plain([
        green('Checking cache for default-protected...'),
        `Downloading cache from ${CACHE_URL}`,
        green('Successfully extracted cache'),
      ]),
    ),
  ];
}

function shape(job: Job): Line[] {
  const { run, toolchain } = job;
  const section = sections();
  return [
    ...prepare(job, section),
    ...sources(job, section),
    ...section('step_script', 'Executing "step_script" stage of the job script', [
      { text: usingImage(toolchain.image) },
      { text: green(`$ ${toolchain.install.command}`) },
      ...job.install,
      { text: green(`$ ${run.command}`) },
      ...job.body,
    ]),
    ...section(
      'archive_cache_on_failure',
      'Saving cache for failed job',
      plain([
        green('Creating cache default-protected...'),
        `${toolchain.cachePath}: found 1874 matching artifact files and directories`,
        `Uploading cache.zip to ${CACHE_URL}`,
        green('Created cache'),
      ]),
    ),
    ...section(
      'upload_artifacts_on_failure',
      'Uploading artifacts for failed job',
      plain([
        green('Uploading artifacts...'),
        `${ESC}[0;33mWARNING: reports/junit.xml: no matching files. Ensure that the artifact path is relative to the working directory (${WORKDIR})${ESC}[0;m`,
        `${ESC}[31;1mERROR: No files to upload${ESC}[0;m`,
      ]),
    ),
    ...section('cleanup_file_variables', 'Cleaning up project directory and file based variables', []),
    failure(`${ESC}[31;1mERROR: Job failed: exit code ${run.exitCode}${ESC}[0;m`),
  ];
}

export const GITLAB: CiSystem = { name: 'gitlab', workdir: WORKDIR, shape };
