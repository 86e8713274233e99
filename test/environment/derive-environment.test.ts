import { describe, expect, it } from 'vitest';
import { deriveEnvironment, environmentFromDevcontainer } from '../../src/environment/derive-environment.js';

/** Workflow files in the shape of well-known projects' CI (setup action, install, test). */
const NODE = `name: CI
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20.x
          cache: npm
      - run: npm ci
      - run: npm run build --if-present
      - run: npm test
`;

const PYTHON_MATRIX = `name: Tests
on: push
env:
  PIP_DISABLE_PIP_VERSION_CHECK: "1"
jobs:
  tests:
    runs-on: \${{ matrix.os }}
    strategy:
      matrix:
        python-version: ["3.10", "3.11"]
        os: [ubuntu-latest]
    steps:
      - uses: actions/checkout@v4
      - name: Set up Python \${{ matrix.python-version }}
        uses: actions/setup-python@v5
        with:
          python-version: \${{ matrix.python-version }}
      - name: Install dependencies
        run: |
          python -m pip install --upgrade pip
          pip install -r requirements.txt
      - name: Upload token
        run: echo "\${{ secrets.CODECOV_TOKEN }}" > token
      - name: Test
        run: pytest -q
`;

/** `${{ }}` left in a script is a shell syntax error ("bad substitution"), so it must not reach the sandbox. */
const GITHUB_EXPRESSIONS = `name: CI
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: if [ "\${{ runner.os }}" = "Linux" ]; then sudo apt-get install -y libpq-dev; fi
      - name: Version
        id: version
        run: echo "tag=\${{ github.ref_name }}" >> "$GITHUB_OUTPUT"
      - name: Build
        run: make VERSION=\${{ steps.version.outputs.tag }} COMMIT=\${{ github.sha }}
      - name: Configure
        env:
          PREFIX: /opt/app
          TOKEN: \${{ secrets.DEPLOY_TOKEN }}
        run: ./configure --prefix=\${{ env.PREFIX }}
      - name: Log in
        env:
          TOKEN: \${{ secrets.DEPLOY_TOKEN }}
        run: echo "\${{ env.TOKEN }}" | docker login --password-stdin
      - name: Test
        run: make test
`;

const GO = `name: Go
on: [push]
jobs:
  build:
    runs-on: ubuntu-latest
    defaults:
      run:
        working-directory: ./server
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version-file: go.mod
      - name: Download
        run: go mod download
        env:
          GOFLAGS: -mod=mod
          GITHUB_TOKEN: \${{ secrets.GITHUB_TOKEN }}
      - name: Test
        run: go test ./...
`;

const JAVA_WITH_SERVICES = `name: Java CI
on: push
jobs:
  verify:
    runs-on: ubuntu-latest
    services:
      postgres:
        image: postgres:16
        env:
          POSTGRES_PASSWORD: postgres
          POSTGRES_DB: app
        ports:
          - 5432:5432
        options: >-
          --health-cmd pg_isready
      redis:
        image: redis:7
        ports: ["6379"]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-java@v4
        with:
          distribution: temurin
          java-version: '17'
      - uses: actions/setup-node@v4
        with:
          node-version: 22
      - name: Build
        run: mvn -B verify
`;

const CONTAINER = `on: push
jobs:
  test:
    runs-on: ubuntu-latest
    container:
      image: rust:1.80-bookworm
      env:
        CARGO_TERM_COLOR: always
    steps:
      - uses: actions/checkout@v4
      - uses: actions/cache@v4
        with:
          path: target
          key: cargo
      - run: cargo fetch
      - run: cargo test
`;

describe('deriveEnvironment', () => {
  it('Node: setup-node maps to the official image; npm ci and the build run before the failing test', () => {
    const derived = deriveEnvironment({ workflow: NODE }, { job: 'test', step: 'Run npm test' });
    expect(derived?.image).toBe('node:20-bookworm');
    expect(derived?.setup.map((step) => step.run)).toEqual(['npm ci', 'npm run build --if-present']);
    expect(derived?.skipped.map((step) => step.step)).toEqual(['uses actions/checkout@v4']);
    expect(derived?.skipped[0]?.reason).toMatch(/already checked out/);
  });

  it('Python matrix: the job named by the API picks the matrix values; secrets stay out', () => {
    const derived = deriveEnvironment(
      { workflow: PYTHON_MATRIX },
      { job: 'tests (3.11, ubuntu-latest)', step: 'Test' },
    );
    expect(derived?.image).toBe('python:3.11-bookworm');
    expect(derived?.setup).toEqual([
      {
        name: 'Install dependencies',
        run: 'python -m pip install --upgrade pip\npip install -r requirements.txt\n',
        shell: null,
        workingDirectory: null,
        env: { PIP_DISABLE_PIP_VERSION_CHECK: '1' },
      },
    ]);
    expect(derived?.skipped).toEqual([
      {
        step: 'uses actions/checkout@v4',
        reason: 'the workspace is already checked out at the commit under test',
      },
      { step: 'Upload token', reason: 'its script uses a secret, which never enters the sandbox' },
    ]);
  });

  it('Go: a version file takes the default version; defaults.run sets the folder; secret env is dropped', () => {
    const derived = deriveEnvironment({ workflow: GO }, { job: 'build', step: 'Test' });
    expect(derived?.image).toBe('golang:1.23-bookworm');
    expect(derived?.imageReason).toMatch(/no version given/);
    expect(derived?.setup).toEqual([
      {
        name: 'Download',
        run: 'go mod download',
        shell: null,
        workingDirectory: './server',
        env: { GOFLAGS: '-mod=mod' },
      },
    ]);
  });

  it('Java with services: postgres and redis become sidecars on their container ports; a second toolchain is named', () => {
    const derived = deriveEnvironment({ workflow: JAVA_WITH_SERVICES }, { job: 'verify', step: 'Build' });
    expect(derived?.image).toBe('eclipse-temurin:17-jdk');
    expect(derived?.setup).toEqual([]);
    expect(derived?.services).toEqual([
      {
        name: 'postgres',
        image: 'postgres:16',
        env: { POSTGRES_PASSWORD: 'postgres', POSTGRES_DB: 'app' },
        ports: [5432],
      },
      { name: 'redis', image: 'redis:7', env: {}, ports: [6379] },
    ]);
    expect(derived?.skipped.at(-1)).toEqual({
      step: 'uses actions/setup-node@v4',
      reason:
        'toolchain node:22-bookworm is not in the image eclipse-temurin:17-jdk; add a setup command or choose an image',
    });
  });

  it('container: the job image wins, and other actions are listed as skipped', () => {
    const derived = deriveEnvironment({ workflow: CONTAINER }, { job: 'test', step: 'Run cargo test' });
    expect(derived?.image).toBe('rust:1.80-bookworm');
    expect(derived?.setup.map((step) => step.run)).toEqual(['cargo fetch']);
    expect(derived?.skipped.map((step) => step.reason)).toEqual([
      'the workspace is already checked out at the commit under test',
      'the action actions/cache@v4 cannot run outside GitHub Actions',
    ]);
  });

  it("GitHub-only expressions: runner.os is the sandbox's Linux, env.* the step's env; a script left with github.*, steps.* or a secret is skipped", () => {
    const derived = deriveEnvironment({ workflow: GITHUB_EXPRESSIONS }, { job: 'test', step: 'Test' });
    expect(derived?.setup.map((step) => step.run)).toEqual([
      'if [ "Linux" = "Linux" ]; then sudo apt-get install -y libpq-dev; fi',
      './configure --prefix=/opt/app',
    ]);
    expect(derived?.setup[1]?.env).toEqual({ PREFIX: '/opt/app' });
    expect(derived?.skipped).toEqual([
      {
        step: 'Version',
        reason: `its script uses \${{ github.ref_name }}, which only GitHub Actions can fill in`,
      },
      {
        step: 'Build',
        reason: `its script uses \${{ steps.version.outputs.tag }}, \${{ github.sha }}, which only GitHub Actions can fill in`,
      },
      { step: 'Log in', reason: 'its script uses a secret, which never enters the sandbox' },
    ]);
  });

  it('returns null for a job the workflow does not have', () => {
    expect(deriveEnvironment({ workflow: NODE }, { job: 'lint', step: 'x' })).toBeNull();
  });

  it('an operator table overrides an image', () => {
    const derived = deriveEnvironment(
      { workflow: NODE },
      { job: 'test', step: 'Run npm test' },
      { images: { node: 'mirror.example.org/node:{version}' } },
    );
    expect(derived?.image).toBe('mirror.example.org/node:20');
  });
});

describe('environmentFromDevcontainer', () => {
  it('reads the image and postCreateCommand from JSON with comments and trailing commas', () => {
    const found = environmentFromDevcontainer(`{
      // the dev image
      "image": "mcr.microsoft.com/devcontainers/python:3.12",
      "postCreateCommand": "pip install -r requirements.txt", /* after create */
    }`);
    expect(found).toEqual({
      image: 'mcr.microsoft.com/devcontainers/python:3.12',
      dockerfile: null,
      setup: ['pip install -r requirements.txt'],
      reason: 'image mcr.microsoft.com/devcontainers/python:3.12',
    });
  });

  it('names a Dockerfile and runs each command of an object', () => {
    const found = environmentFromDevcontainer(
      '{"build": {"dockerfile": "Dockerfile"}, "postCreateCommand": {"deps": "npm ci", "tools": ["npm", "run", "prepare"]}}',
    );
    expect(found?.dockerfile).toBe('Dockerfile');
    expect(found?.setup).toEqual(['npm ci', 'npm run prepare']);
  });
});
