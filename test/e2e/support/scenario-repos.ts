import type { ModelRule } from '../../fakes/rule-model-server.js';

/**
 * The repositories the end-to-end scenarios debug, and what the scripted
 * model answers for each. Every repository has its own file names, so one
 * model server can serve all scenarios (and concurrent jobs) by matching on
 * what the prompt shows.
 */
const reflection = (summary: string, rootCause: string) => ({
  summary,
  rootCause,
  changes: summary,
  confidence: 'high',
  risks: [],
});

/** Scenario 1 and 3: a script with a typo in a variable name; reviews ask for two decimals. */
export const STATS = {
  files: {
    'stats.py': [
      'def mean(values):',
      '    return sum(values) / len(value)',
      '',
      '',
      'print(mean([1, 2, 4]))',
      '',
    ].join('\n'),
    '.github/selfdebug.yml': 'command: python stats.py\n',
    'README.md': '# stats\n',
  },
  rules: [
    {
      schema: 'fix_proposal',
      when: "NameError: name 'value' is not defined",
      answer: {
        analysis: '`mean` divides by `len(value)`, but the parameter is `values`.',
        edits: [{ path: 'stats.py', search: 'len(value)', replace: 'len(values)' }],
      },
    },
    {
      schema: 'fix_proposal',
      when: 'two decimals',
      answer: {
        analysis: 'The reviewer wants the mean printed with two decimals.',
        edits: [
          { path: 'stats.py', search: 'print(mean([1, 2, 4]))', replace: 'print(f"{mean([1, 2, 4]):.2f}")' },
        ],
      },
    },
    {
      schema: 'reflection',
      when: 'stats.py',
      answer: reflection('Use the `values` parameter in `mean`', 'a typo: `value` instead of `values`'),
    },
  ] satisfies ModelRule[],
};

/** Scenario 2: the collection error of a real pytest log (pycorrector), reproduced by a small package. */
export const PYCORRECTOR = {
  files: {
    'pycorrector/__init__.py': '',
    'pycorrector/en_spell.py': 'def correct(text):\n    return text.strip()\n',
    'tests/en_spell_correct_test.py': [
      'from pycorrector.en_spell import en_correct',
      '',
      '',
      'def test_en_correct_keeps_words():',
      '    assert en_correct(" speling ") == "speling"',
      '',
    ].join('\n'),
    'requirements.txt': '',
    '.github/selfdebug.yml': 'triggers:\n  workflow_runs:\n    enabled: true\n    workflows: [Ubuntu]\n',
    '.github/workflows/ubuntu.yml': [
      'name: Ubuntu',
      'on: [push, pull_request]',
      'jobs:',
      '  build:',
      '    runs-on: ubuntu-latest',
      '    strategy:',
      '      fail-fast: false',
      '      matrix:',
      '        python-version: [3.8]',
      '    steps:',
      '      - uses: actions/checkout@v2',
      '      - uses: actions/cache@v2',
      '        with: { path: ~/.cache/pip, key: pip }',
      '      - uses: actions/setup-python@v2',
      '        with:',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: an Actions expression, not a template.
      '          python-version: ${{ matrix.python-version }}',
      '      - run: python -m pip install --upgrade pip',
      '      - run: pip install -r requirements.txt',
      '      - run: python -m pytest',
      '',
    ].join('\n'),
  },
  job: {
    name: 'build (3.8)',
    steps: [
      'Set up job',
      'Run actions/checkout@v2',
      'Run actions/cache@v2',
      'Run actions/setup-python@v2',
      'Run python -m pip install --upgrade pip',
      'Run pip install -r requirements.txt',
      'Run python -m pytest',
      'Post Run actions/checkout@v2',
      'Complete job',
    ],
    failing: 'Run python -m pytest',
  },
  rules: [
    {
      schema: 'fix_proposal',
      when: 'en_correct',
      answer: {
        analysis:
          '`tests/en_spell_correct_test.py` imports `en_correct`, which `pycorrector.en_spell` lacks.',
        edits: [
          {
            path: 'pycorrector/en_spell.py',
            search: '    return text.strip()\n',
            replace: '    return text.strip()\n\n\ndef en_correct(text):\n    return correct(text)\n',
          },
        ],
      },
    },
    {
      schema: 'reflection',
      when: 'en_correct',
      answer: reflection(
        'Add `en_correct` to `pycorrector.en_spell`',
        'the tests import a function that was missing',
      ),
    },
  ] satisfies ModelRule[],
};

/** Scenario 4: a failure no edit can fix in the sandbox (it needs a service). */
export const UNREACHABLE = {
  files: {
    'fetch_rates.py': 'raise SystemExit("cannot reach rates.internal:8443: connection refused")\n',
    '.github/selfdebug.yml': 'command: python fetch_rates.py\nmax_attempts: 3\n',
  },
  rules: [
    {
      schema: 'fix_proposal',
      when: 'rates.internal',
      answer: {
        analysis: 'The script needs the rates service; add a clearer message while keeping the behaviour.',
        edits: [
          {
            path: 'fetch_rates.py',
            search: 'raise SystemExit(',
            replace: '# The rates service must be reachable.\nraise SystemExit(',
          },
        ],
      },
    },
    {
      schema: 'retry_decision',
      when: 'rates.internal',
      answer: {
        retry: false,
        reason: 'the script needs rates.internal, which no code change can provide here',
      },
    },
    {
      schema: 'reflection',
      when: 'rates.internal',
      answer: {
        summary: 'Not fixable in code: the rates service is unreachable',
        rootCause: 'fetch_rates.py depends on rates.internal:8443, which refuses connections',
        changes: 'none kept',
        confidence: 'medium',
        risks: ['the service may be down for everyone'],
      },
    },
  ] satisfies ModelRule[],
};

/** Scenario 6 and 7: a command that takes a while, so a test can stop or kill the job mid-run. */
export function slowRepository(name: string, seconds: number) {
  const script = `${name.replace(/-/g, '_')}.py`;
  return {
    script,
    files: {
      [script]: `import time\ntime.sleep(${seconds})\nprint(totl)\n`,
      '.github/selfdebug.yml': `command: python ${script}\n`,
    },
    rules: [
      {
        schema: 'fix_proposal',
        when: script,
        answer: {
          analysis: '`totl` is a typo.',
          edits: [{ path: script, search: 'print(totl)', replace: 'totl = 0\nprint(totl)' }],
        },
      },
      { schema: 'reflection', when: script, answer: reflection('Define `totl`', 'an undefined name') },
    ] satisfies ModelRule[],
  };
}
