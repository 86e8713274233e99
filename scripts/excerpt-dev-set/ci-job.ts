import { type Line, plain, RECORDED_WORKDIR, type Run } from './run.js';
import { type Toolchain, toolchainOf } from './toolchains.js';

/**
 * A tool's run as a CI job on some system: the toolchain it sets up, the folder the system checks the
 * project out into (the recorded output's paths are moved there) and the lines every system prints
 * the same way, so each system's shaper writes only its own markers and setup around them.
 */
export interface Job {
  run: Run;
  toolchain: Toolchain;
  /** The install step's output, in the system's folder. */
  install: Line[];
  /** The tool's output, failure lines labelled, in the system's folder. */
  body: Line[];
  /** The repository's name on the forge the system builds from. */
  repository: string;
  commit: string;
}

export type Shaper = (job: Job) => Line[];

export interface CiSystem {
  name: string;
  workdir: string;
  shape: Shaper;
}

export function jobOn(run: Run, workdir: string): Job {
  const toolchain = toolchainOf(run);
  const move = (line: Line): Line => ({ ...line, text: line.text.replaceAll(RECORDED_WORKDIR, workdir) });
  return {
    run,
    toolchain,
    install: plain(toolchain.install.output).map(move),
    body: run.body.map(move),
    repository: 'octo/shop',
    commit: '9f1c2e7a5b3d4c6e8f0a1b2c3d4e5f6a7b8c9d0e',
  };
}

/** A line of the system's own that reports the failure. */
export const failure = (text: string): Line => ({ text, label: true });

export const ESC = '\u001b';

/** `git clone` progress as git prints it into a log with no terminal: one line per phase. */
export function cloneProgress(): string[] {
  return [
    'remote: Enumerating objects: 214, done.',
    'remote: Counting objects: 100% (214/214), done.',
    'remote: Compressing objects: 100% (131/131), done.',
    'remote: Total 214 (delta 71), reused 168 (delta 49), pack-reused 0 (from 0)',
    'Receiving objects: 100% (214/214), 88.31 KiB | 4.41 MiB/s, done.',
    'Resolving deltas: 100% (71/71), done.',
  ];
}
