import { type Language, languageOf, type Run } from './run.js';

/**
 * What any CI system's job for a tool sets up before running it, whatever the system: the image
 * it runs in, the folder its dependency cache keeps and the file that keys it, and the
 * dependency install. Node's install is the one record.sh ran; the others print what their
 * package managers print when the restored cache already holds every dependency.
 */
export interface Toolchain {
  image: string;
  cachePath: string;
  cacheKeyFile: string;
  install: { command: string; output: string[] };
}

interface Fixed extends Omit<Toolchain, 'install'> {
  install: Toolchain['install'] | null;
}

const FIXED: Record<Language, Fixed> = {
  node: { image: 'node:20-bookworm', cachePath: '.npm/', cacheKeyFile: 'package-lock.json', install: null },
  python: {
    image: 'python:3.11-slim',
    cachePath: '.cache/pip',
    cacheKeyFile: 'requirements.txt',
    install: {
      command: 'pip install -r requirements.txt',
      output: [
        'Collecting pytest==8.3.3 (from -r requirements.txt (line 1))',
        '  Using cached pytest-8.3.3-py3-none-any.whl.metadata (7.5 kB)',
        'Collecting iniconfig (from pytest==8.3.3->-r requirements.txt (line 1))',
        '  Using cached iniconfig-2.0.0-py3-none-any.whl.metadata (2.6 kB)',
        'Collecting packaging (from pytest==8.3.3->-r requirements.txt (line 1))',
        '  Using cached packaging-24.2-py3-none-any.whl.metadata (3.2 kB)',
        'Collecting pluggy<2,>=1.5 (from pytest==8.3.3->-r requirements.txt (line 1))',
        '  Using cached pluggy-1.5.0-py3-none-any.whl.metadata (4.8 kB)',
        'Using cached pytest-8.3.3-py3-none-any.whl (342 kB)',
        'Using cached pluggy-1.5.0-py3-none-any.whl (20 kB)',
        'Installing collected packages: pluggy, packaging, iniconfig, pytest',
        'Successfully installed iniconfig-2.0.0 packaging-24.2 pluggy-1.5.0 pytest-8.3.3',
      ],
    },
  },
  go: {
    image: 'golang:1.19',
    cachePath: '.go/pkg/mod',
    cacheKeyFile: 'go.sum',
    install: { command: 'go mod download && go version', output: ['go version go1.19.8 linux/amd64'] },
  },
  rust: {
    image: 'rust:1.63',
    cachePath: '.cargo/registry',
    cacheKeyFile: 'Cargo.lock',
    install: {
      command: 'rustc --version && cargo --version',
      output: ['rustc 1.63.0 (4b91a6ea7 2022-08-08)', 'cargo 1.63.0 (fd9c4297c 2022-07-01)'],
    },
  },
  ruby: {
    image: 'ruby:3.1',
    cachePath: 'vendor/bundle',
    cacheKeyFile: 'Gemfile.lock',
    install: {
      command: 'bundle install --jobs 4',
      output: [
        'Fetching gem metadata from https://rubygems.org/...',
        'Using bundler 2.4.22',
        'Using diff-lcs 1.5.1',
        'Using rspec-support 3.13.1',
        'Using rspec-core 3.13.2',
        'Using rspec-expectations 3.13.3',
        'Using rspec-mocks 3.13.2',
        'Using rspec 3.13.0',
        'Bundle complete! 1 Gemfile dependency, 7 gems now installed.',
        'Bundled gems are installed into `./vendor/bundle`',
      ],
    },
  },
  java: {
    image: 'eclipse-temurin:17-jdk',
    cachePath: '.m2/repository',
    cacheKeyFile: 'pom.xml',
    install: {
      command: 'java -version',
      output: [
        'openjdk version "17.0.15" 2025-04-15',
        'OpenJDK Runtime Environment Temurin-17.0.15+6 (build 17.0.15+6)',
        'OpenJDK 64-Bit Server VM Temurin-17.0.15+6 (build 17.0.15+6, mixed mode, sharing)',
      ],
    },
  },
  c: {
    image: 'gcc:12',
    cachePath: '.ccache',
    cacheKeyFile: 'Makefile',
    install: {
      command: 'gcc --version',
      output: [
        'gcc (GCC) 12.4.0',
        'Copyright (C) 2022 Free Software Foundation, Inc.',
        'This is free software; see the source for copying conditions.  There is NO',
        'warranty; not even for MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.',
      ],
    },
  },
};

export function toolchainOf(run: Run): Toolchain {
  const fixed = FIXED[languageOf(run.tool)];
  const install = fixed.install ?? run.setup;
  if (!install) throw new Error(`${run.tool}: no install step recorded (raw/${run.tool}/setup.txt)`);
  return { ...fixed, install };
}
