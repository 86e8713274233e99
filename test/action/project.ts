/** The project every Action test debugs: stats.py misses an import, the CI workflow that runs it, and the model's fix. */

export const BROKEN_STATS =
  'from numbers_data import load_numbers\n\nvalues = load_numbers()\nprint(f"mean: {statistics.mean(values)}")\n';
export const NUMBERS_DATA = 'def load_numbers():\n    return [1, 2, 3, 4]\n';
export const FIXED_STATS = `import statistics\n${BROKEN_STATS}`;

export const WORKFLOW = `name: CI
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: python3 stats.py
      - if: failure()
        uses: selfdebug/selfdebug@v1
        with:
          api-key: \${{ secrets.OPENAI_API_KEY }}
`;

export const fixProposal = {
  analysis: 'stats.py calls statistics.mean but never imports the statistics module.',
  edits: [
    {
      path: 'stats.py',
      search: 'from numbers_data import load_numbers\n',
      replace: 'import statistics\nfrom numbers_data import load_numbers\n',
    },
  ],
};
export const reflection = {
  summary: 'Imported the statistics module in stats.py',
  rootCause: 'statistics.mean was used without importing statistics',
  changes: 'Added `import statistics` at the top of stats.py',
  confidence: 'high',
  risks: [],
};

export const PROJECT = {
  'stats.py': BROKEN_STATS,
  'numbers_data.py': NUMBERS_DATA,
  '.github/workflows/ci.yml': WORKFLOW,
};

/** The steps the jobs API lists for the job above when `python3 stats.py` fails: "Set up job" is number 1. */
export const FAILED_STEPS = [
  { name: 'Set up job', number: 1, conclusion: 'success' as const },
  { name: 'Run actions/checkout@v4', number: 2, conclusion: 'success' as const },
  { name: 'Run python3 stats.py', number: 3, conclusion: 'failure' as const },
  { name: 'Run selfdebug/selfdebug@v1', number: 4, conclusion: null },
];
