import { type CiSystem, cloneProgress, failure, type Job } from './ci-job.js';
import { type Line, plain } from './run.js';

/**
 * A CircleCI job's output, its steps one after another as the job's page and API give them:
 * `Spin up environment` (the build agent, the image), `Preparing environment variables`,
 * `checkout`, `restore_cache` (`Found a cache from build N at <key>`), then each `run` step's
 * output opening with the shell it runs in, `#!/bin/bash -eo pipefail`, and its command; a failing
 * step ends `Exited with code exit status N`, and `store_test_results` still runs after it.
 */
const WORKDIR = '/home/circleci/project';

/** The `Spin up environment` and `Preparing environment variables` steps. */
function spinUp(job: Job): Line[] {
  const { image } = job.toolchain;
  return plain([
    'Build-agent version 1.0.262337-91d3b6a2 (2024-11-18T15:04:37+0000)',
    'System information:',
    ' Server Version: 24.0.9',
    ' Storage Driver: overlay2',
    '  Backing Filesystem: xfs',
    ' Cgroup Driver: cgroupfs',
    ' Kernel Version: 5.15.0-1057-aws',
    ' Operating System: Ubuntu 20.04.6 LTS',
    ' OSType: linux',
    ' Architecture: x86_64',
    '',
    `Starting container ${image}`,
    `Warning: No authentication provided, using CircleCI credentials for pulls from Docker Hub.`,
    `  image cache not found on this host, downloading ${image}`,
    `${image}: Pull complete`,
    'Digest: sha256:8e7c1e2b4a5d6f7081a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081',
    `Status: Downloaded newer image for ${image}`,
    'Time to upload agent and config: 1.127s',
    'Time to start containers: 2.486s',
    'Using build environment variables:',
    '  BASH_ENV=/tmp/.bash_env-6745a1b2c3d4e5f6a7b8c9d0-0-build',
    '  CI=true',
    '  CIRCLECI=true',
    '  CIRCLE_BRANCH=main',
    '  CIRCLE_BUILD_NUM=318',
    `  CIRCLE_SHA1=${job.commit}`,
    `  CIRCLE_WORKING_DIRECTORY=~/project`,
    '',
    'Using environment variables from project settings and/or contexts:',
    '  CODECOV_TOKEN=**REDACTED**',
    '',
  ]);
}

/** The `checkout` and `restore_cache` steps. */
function checkoutAndCache(job: Job): Line[] {
  const { cachePath, cacheKeyFile } = job.toolchain;
  const key = `v1-deps-${cacheKeyFile.replace(/\W/g, '-')}-Xk3f9QeTz1rW0bJc7nY2uA4sLd8hPo6mVg5iKe1Nq0M=`;
  return plain([
    'Making checkout directory "/home/circleci/project"',
    `Cloning git repository`,
    `Cloning into '.'...`,
    ...cloneProgress(),
    `Checking out branch`,
    `HEAD is now at ${job.commit.slice(0, 7)} shop: prices and discounts`,
    `Found a cache from build 311 at ${key}`,
    'Size: 48 MiB',
    'Cached paths:',
    `  * ${WORKDIR}/${cachePath}`,
    '',
    'Downloading cache archive...',
    'Validating cache...',
    '',
    'Unarchiving cache...',
  ]);
}

function shape(job: Job): Line[] {
  const { run, toolchain } = job;
  return [
    ...spinUp(job),
    ...checkoutAndCache(job),
    ...plain(['#!/bin/bash -eo pipefail', toolchain.install.command]),
    ...job.install,
    ...plain(['#!/bin/bash -eo pipefail', run.command]),
    ...job.body,
    ...plain(['']),
    failure(`Exited with code exit status ${run.exitCode}`),
    ...plain(['Archiving the following test results', `  * ${WORKDIR}/reports`, '']),
    ...plain([`Uploading ${WORKDIR}/reports to reports`, 'No artifact files found at reports']),
  ];
}

export const CIRCLECI: CiSystem = { name: 'circleci', workdir: WORKDIR, shape };
