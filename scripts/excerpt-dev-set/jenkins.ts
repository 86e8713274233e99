import { type CiSystem, cloneProgress, failure, type Job } from './ci-job.js';
import { type Line, plain } from './run.js';

/**
 * A Jenkins declarative pipeline's console log: `Started by …`, the `[Pipeline]` lines the pipeline
 * steps write (`[Pipeline] { (<stage>)` opens a stage, `[Pipeline] // stage` closes it), the
 * `Declarative: Checkout SCM` stage's git commands after ` > `, each `sh` step's commands echoed
 * after `+ ` (the shell runs with `-xe`), later stages skipped after the failure, the post actions,
 * and after `[Pipeline] End of Pipeline` the step's error and `Finished: FAILURE`.
 */
const WORKDIR = '/var/lib/jenkins/workspace/shop_main';

const stage = (name: string, lines: Line[]): Line[] => [
  ...plain(['[Pipeline] stage', `[Pipeline] { (${name})`]),
  ...lines,
  ...plain(['[Pipeline] }', '[Pipeline] // stage']),
];

function checkout(job: Job): Line[] {
  const url = `https://github.com/${job.repository}.git`;
  return stage(
    'Declarative: Checkout SCM',
    plain([
      '[Pipeline] checkout',
      'Selected Git installation does not exist. Using Default',
      'The recommended git tool is: NONE',
      'using credential github-app',
      'Cloning the remote Git repository',
      `Cloning repository ${url}`,
      ` > git init ${WORKDIR} # timeout=10`,
      `Fetching upstream changes from ${url}`,
      ' > git --version # timeout=10',
      " > git --version # 'git version 2.39.5'",
      `using GIT_ASKPASS to set credentials GitHub App`,
      ` > git fetch --tags --force --progress -- ${url} +refs/heads/*:refs/remotes/origin/* # timeout=10`,
      ...cloneProgress(),
      ` > git config remote.origin.url ${url} # timeout=10`,
      ' > git rev-parse refs/remotes/origin/main^{commit} # timeout=10',
      `Checking out Revision ${job.commit} (main)`,
      ' > git config core.sparsecheckout # timeout=10',
      ` > git checkout -f ${job.commit} # timeout=10`,
      'Commit message: "shop: prices and discounts"',
      'First time build. Skipping changelog.',
    ]),
  );
}

const sh = (command: string, output: Line[]): Line[] => [
  ...plain(['[Pipeline] sh', `+ ${command}`]),
  ...output,
];

/** The stages run in a container of the toolchain's image (`agent { docker { image … } }`). */
function container(image: string): Line[] {
  return [
    ...plain(['[Pipeline] withEnv', '[Pipeline] {', '[Pipeline] withDockerContainer']),
    ...plain([
      `agent-linux-2 does not seem to be running inside a container`,
      `$ docker run -t -d -u 1000:1000 -w ${WORKDIR} -v ${WORKDIR}:${WORKDIR}:rw,z ${image} cat`,
    ]),
    ...plain(['$ docker top 5b1e0c7a2f3d -eo pid,comm', '[Pipeline] {']),
  ];
}

function shape(job: Job): Line[] {
  const { run, toolchain } = job;
  return [
    ...plain([
      'Started by an SCM change',
      `Obtained Jenkinsfile from git https://github.com/${job.repository}.git`,
      '[Pipeline] Start of Pipeline',
      '[Pipeline] node',
      `Running on agent-linux-2 in ${WORKDIR}`,
      '[Pipeline] {',
    ]),
    ...checkout(job),
    ...container(toolchain.image),
    ...stage('Install', sh(toolchain.install.command, job.install)),
    ...stage('Test', sh(run.command, job.body)),
    ...stage('Package', plain(['Stage "Package" skipped due to earlier failure(s)'])),
    ...stage(
      'Declarative: Post Actions',
      plain([
        '[Pipeline] junit',
        'Recording test results',
        'No test report files were found. Configuration error?',
        '[Pipeline] cleanWs',
        '[WS-CLEANUP] Deleting project workspace...',
        '[WS-CLEANUP] Deferred wipeout is used...',
        '[WS-CLEANUP] done',
      ]),
    ),
    ...plain([
      '[Pipeline] }',
      '$ docker stop --time=1 5b1e0c7a2f3d',
      '$ docker rm -f --volumes 5b1e0c7a2f3d',
    ]),
    ...plain(['[Pipeline] // withDockerContainer', '[Pipeline] }', '[Pipeline] // withEnv', '[Pipeline] }']),
    ...plain(['[Pipeline] // node', '[Pipeline] End of Pipeline']),
    failure(`ERROR: script returned exit code ${run.exitCode}`),
    failure('Finished: FAILURE'),
  ];
}

export const JENKINS: CiSystem = { name: 'jenkins', workdir: WORKDIR, shape };
