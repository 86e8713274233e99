import { afterAll, beforeAll, expect, it } from 'vitest';
import { TESTS_EDITED_LABEL } from '../../src/loop/test-guard/findings.js';
import type { StandinRepository } from '../fakes/github-standin/standin.js';
import type { ModelRule } from '../fakes/rule-model-server.js';
import { describeWithDocker } from '../helpers/docker.js';
import { CODE_FIX_PROPOSAL, WEAKENING_PROJECT, WEAKENINGS } from '../helpers/weakening-project.js';
import { AppWorld } from './support/app-world.js';

/**
 * The test guard (docs/test-policy.md) in a whole App job: a mention on the
 * GitHub stand-in, the job in a worker process, the commands in the Docker
 * sandbox, the branch pushed over git HTTP and the pull request opened. The
 * model tries each kind of test weakening in turn (a loosened assertion, a
 * skip marker, a deleted test, edited expected output, a changed command)
 * before it fixes the code. Under `protect` (the default) every weakening is
 * refused with its reason and the pull request holds the code fix alone;
 * under `flag` the weakenings are applied until the tests pass, and the pull
 * request lists them and carries the label.
 */

/** Each weakening's reason, in the order the model tries them. */
const REASONS = [
  /tests\/test_calc\.py: an assertion was changed/,
  /tests\/test_calc\.py: a skip marker was added/,
  /tests\/test_calc\.py: a test was deleted or renamed: "test_expected_output"/,
  /tests\/fixtures\/expected\.txt: expected output \(a fixture or snapshot\) was changed/,
  /Makefile: this file decides what the command `make test` runs/,
];

/** The model's answers for one repository, told apart by a word only its issue carries. */
function weakeningModel(word: string): ModelRule[] {
  const proposals = [...WEAKENINGS.map((weakening) => weakening.proposal), CODE_FIX_PROPOSAL];
  return [
    {
      schema: 'fix_proposal',
      when: word,
      answer: (_text: string, matched: number) => proposals[Math.min(matched, proposals.length - 1)],
    },
    { schema: 'retry_decision', when: word, answer: { retry: true, reason: 'the tests still fail' } },
    {
      schema: 'reflection',
      when: word,
      answer: {
        summary: 'Make `add` add',
        rootCause: '`add` subtracted its arguments',
        changes: 'calc.py',
        confidence: 'high',
        risks: [],
      },
    },
  ];
}

const repositoryFiles = (policy: string) => ({
  ...WEAKENING_PROJECT,
  '.github/selfdebug.yml': `command: make test\nmax_attempts: 6\n${policy}`,
});

describeWithDocker('the test guard in an App job', () => {
  let world: AppWorld;
  let protect: Requested;
  let flag: Requested;

  beforeAll(async () => {
    world = await AppWorld.start([...weakeningModel('guard-protect'), ...weakeningModel('guard-flag')]);
    // Both jobs run at once (the worker takes two); each answer is told apart by its issue's word.
    [protect, flag] = await Promise.all([
      fixRequested(world, 'calc-protect', '', 'guard-protect'),
      fixRequested(world, 'calc-flag', 'tests: flag\n', 'guard-flag'),
    ]);
  }, 90_000);

  afterAll(async () => {
    await world?.close();
  }, 60_000);

  /** The job's pull request, once its check run and its status comment say it is done. */
  async function finished({ repo, issue }: Requested) {
    await world.eventually('the pull request', () => world.standin.pulls(repo.fullName).length === 1);
    await world.eventually('the final status', () =>
      /Fixed/i.test(world.statusComment(repo, issue.number)?.body ?? ''),
    );
    await world.eventually('the check run to complete', () =>
      world.standin.checkRuns(repo.fullName).some((run) => run.status === 'completed'),
    );
    const attempts = world.attemptComments(repo, issue.number);
    const attempt = (n: number) =>
      attempts.find((comment) => comment.body.includes(` n=${n} -->`))?.body ?? '';
    return { pull: world.standin.pulls(repo.fullName)[0]!, attempts, attempt };
  }

  const fileOn = (repo: StandinRepository, ref: string, path: string) =>
    world.standin.readFile(repo.fullName, ref, path);

  it('refuses every weakening with its reason under protect, and delivers the code fix alone', async () => {
    const { repo } = protect;
    const { pull, attempts, attempt } = await finished(protect);
    expect(attempts, world.logs()).toHaveLength(6);
    REASONS.forEach((reason, index) => {
      const body = attempt(index + 1);
      expect(body).toMatch(/^### Attempt \d of 6: 🛡️ refused: /m);
      expect(body).toContain('Edits refused');
      expect(body).toMatch(/tests: protect/);
      expect(body).toMatch(reason);
    });
    expect(attempt(6)).not.toContain('Edits refused');

    // The tests, their expected output and the command are as the repository had them; the code is fixed.
    for (const path of ['tests/test_calc.py', 'tests/fixtures/expected.txt', 'Makefile']) {
      expect(await fileOn(repo, pull.head, path)).toBe(WEAKENING_PROJECT[path]);
    }
    expect(await fileOn(repo, pull.head, 'calc.py')).toContain('return (a + b)');
    expect(pull.body).toContain('**Changed files:** `calc.py`\n');
    expect(pull.body).not.toContain('Tests and checks this fix changes');
    expect(pull.labels).not.toContain(TESTS_EDITED_LABEL);
    expect(world.standin.problems).toEqual([]);
  }, 240_000);

  it('delivers the weakenings under flag, listed in the pull request and labelled', async () => {
    const { repo } = flag;
    const { pull, attempts } = await finished(flag);
    // Loosened, skipped, then deleted: with nothing left to fail, the third attempt passes.
    expect(attempts, world.logs()).toHaveLength(3);
    expect(attempts.every((comment) => !comment.body.includes('Edits refused'))).toBe(true);
    const delivered = await fileOn(repo, pull.head, 'tests/test_calc.py');
    expect(delivered).toContain('@unittest.skip("flaky")');
    expect(delivered).not.toContain('test_expected_output');

    const section = pull.body.slice(pull.body.indexOf('### Tests and checks this fix changes'));
    expect(section).toMatch(/^### Tests and checks this fix changes/);
    expect(section).toContain('- `tests/test_calc.py`: a pytest/unittest test file, changed');
    expect(section).toContain('`tests: flag`');
    expect(section).toMatch(/tests\/test_calc\.py: a skip marker was added/);
    expect(section).toMatch(/tests\/test_calc\.py: a test was deleted or renamed: "test_expected_output"/);
    expect(section).toMatch(/tests\/test_calc\.py: an assertion was removed/);
    expect(pull.labels).toContain(TESTS_EDITED_LABEL);
    expect(world.standin.problems).toEqual([]);
  }, 240_000);
});

interface Requested {
  repo: StandinRepository;
  issue: { number: number };
}

/** A repository with the weakening project under `policy`, and a mention of the App on a new issue. */
async function fixRequested(world: AppWorld, name: string, policy: string, word: string): Promise<Requested> {
  const { standin } = world;
  const repo = await standin.createRepository('octo-org', name, [repositoryFiles(policy)]);
  standin.setPermission(repo.fullName, 'alice', 'write');
  const { issue } = await world.mention(repo, 'alice', '@selfdebug fix', `${word}: add(2, 3) is -1`);
  return { repo, issue };
}
