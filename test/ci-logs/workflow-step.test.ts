import { describe, expect, it } from 'vitest';
import { localActionPaths, recoverFailingStep, recoverStep, reproduce } from '../../src/ci-logs/index.js';

/** An expression recovery cannot evaluate, so it stays as written. */
const RUNNER_OS = ['$', '{{ runner.os }}'].join('');

const WORKFLOW = `
name: CI
env:
  CI: true
  NPM_TOKEN: \${{ secrets.NPM_TOKEN }}
defaults:
  run:
    shell: bash
    working-directory: app
jobs:
  test:
    runs-on: \${{ matrix.os }}
    env:
      PYTHON: python\${{ matrix.python }}
      GH: \${{ github.token }}
    defaults:
      run:
        working-directory: service
    strategy:
      matrix:
        python: ['3.11', '3.12']
        os: [ubuntu-latest, macos-latest]
        include:
          - python: '3.12'
            experimental: true
    steps:
      - uses: actions/checkout@v4
      - name: Install
        run: pip install -e .
      - name: Unit tests
        working-directory: tests/unit
        env:
          PYTEST_ADDOPTS: -x
        run: |
          pytest -q --python \${{ matrix.python }}
          echo "done on \${{ runner.os }}"
      - run: make lint
        shell: sh
  lint:
    name: Lint on \${{ matrix.node }}
    strategy:
      matrix:
        node: [18, 20]
    steps:
      - run: npm run lint
      - run: npm run lint
        working-directory: packages/web
  e2e:
    services:
      db:
        image: postgres
    container: node:\${{ matrix.node }}
    strategy:
      matrix:
        node: [20]
    steps:
      - uses: ./.github/actions/e2e
        with:
          browser: firefox
`;

const E2E_ACTION = `
name: e2e
inputs:
  browser:
    default: chrome
  retries:
    default: '2'
runs:
  using: composite
  steps:
    - run: npm ci
      shell: bash
    - name: Run the browser tests
      run: |
        npx playwright test --browser \${{ inputs.browser }} --retries \${{ inputs.retries }}
      shell: bash
      working-directory: e2e
`;

describe('recoverFailingStep', () => {
  it('fills in the matrix values a job name carries, and merges env with secrets left out', () => {
    const step = recoverFailingStep(
      { workflow: WORKFLOW },
      { job: 'test (3.12, ubuntu-latest)', step: 'Unit tests' },
    );
    expect(step).toMatchObject({
      jobId: 'test',
      stepName: 'Unit tests',
      run: `pytest -q --python 3.12\necho "done on ${RUNNER_OS}"\n`,
      shell: 'bash',
      workingDirectory: 'tests/unit',
      matrix: { python: '3.12', os: 'ubuntu-latest', experimental: 'true' },
      env: { CI: 'true', PYTHON: 'python3.12', PYTEST_ADDOPTS: '-x' },
      droppedEnv: ['NPM_TOKEN', 'GH'],
      composite: null,
    });
    expect(step?.unresolved).toEqual([RUNNER_OS]);
  });

  it('takes working-directory from the step, then the job’s defaults, then the workflow’s', () => {
    const files = { workflow: WORKFLOW };
    expect(
      recoverFailingStep(files, { job: 'test (3.11, macos-latest)', step: 'Install' })?.workingDirectory,
    ).toBe('service');
    expect(recoverFailingStep(files, { job: 'test (3.11, macos-latest)', step: 'Install' })?.shell).toBe(
      'bash',
    );
    expect(recoverFailingStep(files, { job: 'Lint on 20', step: 'Run npm run lint' })).toMatchObject({
      matrix: { node: '20' },
      workingDirectory: 'app',
      shell: 'bash',
    });
    expect(
      recoverFailingStep(files, { job: 'test (3.11, macos-latest)', step: 'Run make lint' })?.shell,
    ).toBe('sh');
  });

  it('finds a multi-line script by the log’s `Run <first line>` title', () => {
    const step = recoverFailingStep(
      { workflow: WORKFLOW },
      { job: 'test (3.11, ubuntu-latest)', logStep: 'Run pytest -q --python 3.11' },
    );
    expect(step?.run).toBe(`pytest -q --python 3.11\necho "done on ${RUNNER_OS}"\n`);
  });

  it('tells two steps with one title apart by the jobs API’s step number', () => {
    const second = recoverFailingStep(
      { workflow: WORKFLOW },
      { job: 'Lint on 18', step: 'Run npm run lint', stepNumber: 3 },
    );
    expect(second?.workingDirectory).toBe('packages/web');
    const first = recoverFailingStep(
      { workflow: WORKFLOW },
      { job: 'Lint on 18', step: 'Run npm run lint', stepNumber: 2 },
    );
    expect(first?.workingDirectory).toBe('app');
  });

  it('recovers a `uses:` step, and its post step, as an action without a script', () => {
    for (const name of ['Run actions/checkout@v4', 'Post Run actions/checkout@v4']) {
      expect(
        recoverFailingStep({ workflow: WORKFLOW }, { job: 'test (3.11, ubuntu-latest)', step: name }),
      ).toMatchObject({
        run: null,
        uses: 'actions/checkout@v4',
      });
    }
  });

  it('recovers the failing inner step of a local composite action, with its inputs', () => {
    const files = { workflow: WORKFLOW, actions: { '.github/actions/e2e': E2E_ACTION } };
    const step = recoverFailingStep(files, {
      job: 'e2e (20)',
      step: 'Run ./.github/actions/e2e',
      stepNumber: 3,
      logStep: 'Run npx playwright test --browser firefox --retries 2',
    });
    expect(step).toMatchObject({
      jobId: 'e2e',
      composite: './.github/actions/e2e',
      run: 'npx playwright test --browser firefox --retries 2\n',
      shell: 'bash',
      workingDirectory: 'e2e',
      container: 'node:20',
    });
  });

  it('finds a composite’s inner step from the log’s title alone', () => {
    const files = { workflow: WORKFLOW, actions: { './.github/actions/e2e/action.yml': E2E_ACTION } };
    const step = recoverFailingStep(files, { job: 'e2e (20)', logStep: 'Run npm ci' });
    expect(step).toMatchObject({ run: 'npm ci', composite: './.github/actions/e2e' });
  });

  it('leaves a composite step as an action when its action.yml is not given', () => {
    const step = recoverFailingStep(
      { workflow: WORKFLOW },
      { job: 'e2e (20)', step: 'Run ./.github/actions/e2e' },
    );
    expect(step).toMatchObject({ run: null, uses: './.github/actions/e2e', composite: null });
  });

  it('returns null for an unknown job or step, and for YAML that does not parse', () => {
    expect(recoverFailingStep({ workflow: WORKFLOW }, { job: 'deploy', step: 'Install' })).toBeNull();
    expect(
      recoverFailingStep({ workflow: WORKFLOW }, { job: 'test (3.11, ubuntu-latest)', step: 'Nope' }),
    ).toBeNull();
    expect(recoverFailingStep({ workflow: 'jobs: [unclosed' }, { job: 'test', step: 'x' })).toBeNull();
  });

  it('keeps the original three-argument form', () => {
    expect(recoverStep(WORKFLOW, 'test (3.11, ubuntu-latest)', 'Install')).toMatchObject({
      run: 'pip install -e .',
    });
  });

  it('lists the local actions a job uses', () => {
    expect(localActionPaths(WORKFLOW, 'e2e (20)')).toEqual(['.github/actions/e2e']);
    expect(localActionPaths(WORKFLOW, 'Lint on 18')).toEqual([]);
  });
});

describe('reproduce', () => {
  const base = recoverFailingStep(
    { workflow: WORKFLOW },
    { job: 'test (3.11, ubuntu-latest)', step: 'Unit tests' },
  )!;

  it('stops at the first failing line like the runner, in the step’s directory and env', () => {
    expect(reproduce(base)).toEqual({
      command: [
        'set -eo pipefail',
        'cd "tests/unit"',
        "export CI='true'",
        "export PYTHON='python3.11'",
        "export PYTEST_ADDOPTS='-x'",
        `pytest -q --python 3.11\necho "done on ${RUNNER_OS}"\n`,
      ].join('\n'),
      note: 'Left out secret env: NPM_TOKEN, GH.',
    });
  });

  it('runs each shell the way the runner does', () => {
    const plain = { ...base, env: {}, droppedEnv: [], workingDirectory: null, run: 'echo hi' };
    expect(reproduce({ ...plain, shell: null }).command).toBe('set -e\necho hi');
    expect(reproduce({ ...plain, shell: 'sh' }).command).toBe("sh -e -c 'echo hi'");
    expect(reproduce({ ...plain, shell: 'python' }).command).toBe(
      "set -e\npython3 - <<'SELFDEBUG_STEP'\necho hi\nSELFDEBUG_STEP",
    );
    expect(reproduce({ ...plain, shell: 'pwsh' }).command).toBe("pwsh -command 'echo hi'");
    expect(reproduce({ ...plain, shell: 'perl {0}' }).command).toBe(
      "set -e\ncat > /tmp/selfdebug-step <<'SELFDEBUG_STEP'\necho hi\nSELFDEBUG_STEP\nperl /tmp/selfdebug-step",
    );
  });

  it('says an action cannot run as a script, and uses the configured command instead', () => {
    const action = { ...base, run: null, uses: 'actions/setup-node@v4' };
    expect(reproduce(action).command).toBeNull();
    expect(reproduce(action).note).toContain('`uses: actions/setup-node@v4`');
    expect(reproduce(action, 'npm test')).toEqual({
      command: 'npm test',
      note: 'The failing step is an action (`uses: actions/setup-node@v4`), which cannot run as a script; using the configured command.',
    });
  });
});
