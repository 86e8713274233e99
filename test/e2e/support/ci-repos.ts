import type { ModelRule } from '../../fakes/rule-model-server.js';

/**
 * The repositories of the CI verdict scenarios (docs/ci-verdict.md) and what
 * the scripted model answers for each: file names of their own, so they
 * share one model server with nothing else matching.
 */
const reflection = (summary: string) => ({
  summary,
  rootCause: summary,
  changes: summary,
  confidence: 'high',
  risks: [],
});

const WORKFLOW = (name: string, command: string) =>
  [
    `name: ${name}`,
    'on: [push]',
    'jobs:',
    '  test:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    '      - uses: actions/checkout@v4',
    `      - run: ${command}`,
    '',
  ].join('\n');

/** A script whose fix the repository's CI confirms. */
export const CI_PASSES = {
  files: {
    'tally.py': 'def tally(items):\n    return len(item)\n\n\nprint(tally([1, 2]))\n',
    '.github/selfdebug.yml': 'command: python tally.py\n',
    '.github/workflows/ci.yml': WORKFLOW('Checks', 'python tally.py'),
  },
  rules: [
    {
      schema: 'fix_proposal',
      when: "NameError: name 'item' is not defined",
      answer: {
        analysis: '`tally` counts `item`, but the parameter is `items`.',
        edits: [{ path: 'tally.py', search: 'len(item)', replace: 'len(items)' }],
      },
    },
    { schema: 'reflection', when: 'tally.py', answer: reflection('Count `items` in `tally`') },
  ] satisfies ModelRule[],
};

/** A script in a repository with no workflow at all. */
export const NO_CI = {
  files: {
    'greet.py': 'name = "octo"\nprint("hello " + nme)\n',
    '.github/selfdebug.yml': 'command: python greet.py\n',
  },
  rules: [
    {
      schema: 'fix_proposal',
      when: "NameError: name 'nme' is not defined",
      answer: {
        analysis: '`nme` is a typo for `name`.',
        edits: [{ path: 'greet.py', search: '+ nme)', replace: '+ name)' }],
      },
    },
    { schema: 'reflection', when: 'greet.py', answer: reflection('Print `name`, not `nme`') },
  ] satisfies ModelRule[],
};

/**
 * A fix the sandbox verifies (`python calc.py`) but the repository's CI
 * (`python test_calc.py`) fails: the failed run starts round 2, whose fix
 * CI passes.
 */
export const CI_ROUNDS = {
  files: {
    'calc.py': [
      'def total(values):',
      '    return sum(value)',
      '',
      '',
      'def average(values):',
      '    return total(values) / len(values) + 1',
      '',
      '',
      'if __name__ == "__main__":',
      '    print(total([1, 2, 3]))',
      '',
    ].join('\n'),
    'test_calc.py': [
      'from calc import average',
      '',
      'assert average([2, 4]) == 3, f"average is {average([2, 4])}"',
      '',
    ].join('\n'),
    '.github/selfdebug.yml': 'triggers:\n  workflow_runs:\n    enabled: true\n',
    '.github/workflows/ci.yml': WORKFLOW('Tests', 'python test_calc.py'),
  },
  job: {
    name: 'test',
    steps: ['Set up job', 'Run actions/checkout@v4', 'Run python test_calc.py', 'Complete job'],
    failing: 'Run python test_calc.py',
  },
  /** The failed run's log, in the shape GitHub Actions writes it. */
  log: [
    'Current runner version: 2.321.0',
    '##[group]Run actions/checkout@v4',
    'with:',
    '  repository: octo-org/ci-rounds',
    '##[endgroup]',
    'Syncing repository: octo-org/ci-rounds',
    '##[group]Run python test_calc.py',
    '\u001b[36;1mpython test_calc.py\u001b[0m',
    'shell: /usr/bin/bash -e {0}',
    '##[endgroup]',
    'Traceback (most recent call last):',
    '  File "/home/runner/work/ci-rounds/ci-rounds/test_calc.py", line 3, in <module>',
    '    assert average([2, 4]) == 3, f"average is {average([2, 4])}"',
    'AssertionError: average is 4.0',
    '##[error]Process completed with exit code 1.',
    'Cleaning up orphan processes',
  ]
    .map((line, index) => `2026-11-28T10:00:${String(index).padStart(2, '0')}.0000000Z ${line}`)
    .join('\n'),
  rules: [
    {
      schema: 'fix_proposal',
      when: "NameError: name 'value' is not defined",
      answer: {
        analysis: '`total` sums `value`, but the parameter is `values`.',
        edits: [{ path: 'calc.py', search: 'sum(value)', replace: 'sum(values)' }],
      },
    },
    {
      schema: 'fix_proposal',
      when: 'AssertionError: average is 4.0',
      answer: {
        analysis: '`average` adds 1 to the mean.',
        edits: [{ path: 'calc.py', search: '/ len(values) + 1', replace: '/ len(values)' }],
      },
    },
    { schema: 'reflection', when: 'calc.py', answer: reflection('Fix `total` and `average` in calc.py') },
  ] satisfies ModelRule[],
};
