import { type CiSystem, cloneProgress, ESC, failure, type Job } from './ci-job.js';
import { type Line, plain } from './run.js';

/**
 * A Travis CI job log as travis-build's script writes it: the worker and system information, then
 * each phase folded between `travis_fold:start:<name>` and `travis_fold:end:<name>` (each followed by
 * `\r ESC[0K`), each command timed by `travis_time:start:<id>` before its `$ <command>` echo and
 * `travis_time:end:<id>:start=…,finish=…,duration=…` on a line of its own after its output; a
 * `script:` command is not folded and is followed by `The command "<cmd>" exited with N.`; the
 * cache is stored after the script, and the log ends `Done. Your build exited with N.`
 */
const WORKDIR = '/home/travis/build/octo/shop';
const CLEAR = `\r${ESC}[0K`;
const fold = (edge: 'start' | 'end', name: string): string => `travis_fold:${edge}:${name}${CLEAR}`;

/** `travis_time` spans numbered in order, a few seconds apart. */
function timer(): (command: string, output: Line[]) => Line[] {
  let count = 0;
  return (command, output) => {
    count++;
    const id = (0x0b1c2d3e + count * 0x1111).toString(16).padStart(8, '0');
    const start = 1732521600_000_000_000 + count * 4_000_000_000;
    return [
      { text: `travis_time:start:${id}${CLEAR}$ ${command}` },
      ...output,
      {
        text: `travis_time:end:${id}:start=${start},finish=${start + 2_500_000_000},duration=2500000000,event=script${CLEAR}`,
      },
    ];
  };
}

function setup(job: Job, timed: ReturnType<typeof timer>): Line[] {
  const { cachePath } = job.toolchain;
  return [
    ...plain([`${fold('start', 'worker_info')}${ESC}[33;1mWorker information${ESC}[0m`]),
    ...plain([
      'hostname: 4c1d-worker-com-prod-2',
      'version: v6.2.26 https://github.com/travis-ci/worker/tree/v6.2.26',
    ]),
    ...plain([
      'instance: travis-job-0a1b2c3d travis-ci-ubuntu-jammy-1700000000-abc123 (via amqp)',
      fold('end', 'worker_info'),
    ]),
    ...plain([
      `${fold('start', 'system_info')}${ESC}[33;1mBuild system information${ESC}[0m`,
      'Build language: generic',
    ]),
    ...plain([
      'Build dist: jammy',
      'Build id: 271828182',
      'Job id: 314159265',
      fold('end', 'system_info'),
      '',
    ]),
    ...plain([fold('start', 'git.checkout')]),
    ...timed(
      `git clone --depth=50 --branch=main https://github.com/${job.repository}.git ${job.repository}`,
      plain([`Cloning into '${job.repository}'...`, ...cloneProgress()]),
    ),
    ...timed(`cd ${job.repository}`, []),
    ...timed(`git checkout -qf ${job.commit}`, []),
    ...plain([fold('end', 'git.checkout'), '', `${fold('start', 'cache.1')}Setting up build cache`]),
    ...timed('export CASHER_DIR=$HOME/.casher', []),
    ...plain([
      'attempting to download cache archive',
      'fetching main/cache-linux-jammy-e3b0c442-generic.tgz',
    ]),
    ...plain(['found cache', '', `adding ${WORKDIR}/${cachePath} to cache`, fold('end', 'cache.1'), '']),
  ];
}

function shape(job: Job): Line[] {
  const { run, toolchain } = job;
  const timed = timer();
  return [
    ...setup(job, timed),
    ...plain([fold('start', 'install')]),
    ...timed(toolchain.install.command, job.install),
    ...plain([fold('end', 'install')]),
    ...timed(run.command, job.body),
    failure(`${ESC}[31;1mThe command "${run.command}" exited with ${run.exitCode}.${ESC}[0m`),
    ...plain(['', `${fold('start', 'cache.2')}store build cache`]),
    ...timed('casher push', plain(['nothing changed, not updating cache'])),
    ...plain([fold('end', 'cache.2'), '']),
    failure(`Done. Your build exited with ${run.exitCode}.`),
  ];
}

export const TRAVIS: CiSystem = { name: 'travis', workdir: WORKDIR, shape };
