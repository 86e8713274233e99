import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FailedRun, readFailedRun } from '../../src/action/event.js';
import { forkRefusal, roundsExhausted, untrustedBot } from '../../src/action/guards.js';
import type { RunnerContext } from '../../src/action/inputs.js';

function runBy(login: string, type: string, branch = 'main'): FailedRun {
  return {
    runId: 1,
    runAttempt: 1,
    workflowName: 'CI',
    branch,
    sha: 'a'.repeat(40),
    actor: { login, type },
    pullRequest: null,
    separate: false,
    fork: null,
  };
}

describe('untrustedBot', () => {
  it('skips a bot not in trusted-bots, and says which input lets it in', () => {
    expect(untrustedBot(runBy('renovate[bot]', 'Bot'), ['dependabot[bot]'])).toBe(
      'the run was started by renovate[bot], a bot not listed in the `trusted-bots` input; nothing to do.',
    );
    // A `[bot]` login is a bot even when the payload gives no type.
    expect(untrustedBot(runBy('release[bot]', ''), [])).not.toBeNull();
  });

  it('lets through people, listed bots (any case), and its own fixes on selfdebug/ branches', () => {
    expect(untrustedBot(runBy('alice', 'User'), [])).toBeNull();
    expect(untrustedBot(runBy('dependabot[bot]', 'Bot'), ['Dependabot[bot]'])).toBeNull();
    expect(untrustedBot(runBy('github-actions[bot]', 'Bot', 'selfdebug/run-1-1'), [])).toBeNull();
  });
});

describe('roundsExhausted', () => {
  it('stops at max_rounds, naming the setting', () => {
    expect(roundsExhausted(1, 2)).toBeNull();
    expect(roundsExhausted(2, 2)).toMatch(
      /^selfdebug already pushed 2 automatic fixes on this branch \(the limit is 2, `triggers.workflow_runs.max_rounds`/,
    );
  });
});

describe('forkRefusal and the event that names the head repository', () => {
  const base = { id: 1, full_name: 'octo-org/app' };
  async function runOf(eventName: string, event: unknown): Promise<FailedRun> {
    const dir = await mkdtemp(join(tmpdir(), 'selfdebug-event-'));
    await writeFile(join(dir, 'event.json'), JSON.stringify(event));
    const runner = {
      GITHUB_EVENT_NAME: eventName,
      GITHUB_EVENT_PATH: join(dir, 'event.json'),
      GITHUB_RUN_ID: 9,
      GITHUB_RUN_ATTEMPT: 1,
      GITHUB_SHA: 'b'.repeat(40),
      GITHUB_REF: 'refs/pull/3/merge',
      GITHUB_WORKFLOW: 'CI',
      GITHUB_ACTOR: 'mallory',
    } as unknown as RunnerContext;
    const read = await readFailedRun(runner);
    await rm(dir, { recursive: true, force: true });
    if ('problem' in read) throw new Error(read.problem);
    return read;
  }
  const pullFrom = (head: unknown) => ({
    repository: base,
    pull_request: {
      number: 3,
      head: { ref: 'feature', sha: 'c'.repeat(40), repo: head },
      base: { ref: 'main', repo: base },
    },
  });

  it("refuses a pull_request run from a fork (or a deleted one) unless allow-forks, and lets the base's own through", async () => {
    const fork = await runOf('pull_request', pullFrom({ id: 2, full_name: 'mallory/app' }));
    expect(fork.fork).toBe('mallory/app');
    expect(forkRefusal(fork, false)).toContain('mallory/app, a fork');
    expect(forkRefusal(fork, true)).toBeNull();
    expect((await runOf('pull_request', pullFrom(null))).fork).toBe('a deleted fork');
    const own = await runOf('pull_request', pullFrom(base));
    expect(own.fork).toBeNull();
    expect(forkRefusal(own, false)).toBeNull();
  });

  it('compares a workflow_run by repository id, not by name', async () => {
    const run = (head: unknown) => ({
      repository: base,
      workflow_run: { id: 5, head_sha: 'd'.repeat(40), repository: base, head_repository: head },
    });
    // A fork renamed to the base's name is still another repository.
    expect((await runOf('workflow_run', run({ id: 2, full_name: 'octo-org/app' }))).fork).toBe(
      'octo-org/app',
    );
    expect((await runOf('workflow_run', run(base))).fork).toBeNull();
  });
});
