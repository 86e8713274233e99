import { describe, expect, it } from 'vitest';
import { ACTION_TIMEOUT, readText, reflection, runSimulated, useActionWorld } from './harness.js';

/** A proposal that changes something but not what fails, so only the budget can end the loop. */
const missProposal = {
  analysis: 'Perhaps the numbers are wrong.',
  edits: [{ path: 'numbers_data.py', search: 'return [1, 2, 3, 4]', replace: 'return [1, 2, 3, 4, 5]' }],
};
/** 100,000 prompt tokens a call at $1 per million: $0.10 a call. */
const costly = { promptTokens: 100_000, completionTokens: 0 };

describe('the GitHub Action with a budget', () => {
  const world = useActionWorld();

  it('runs for a bot listed in trusted-bots, stops when the budget is used up and says so in the summary; the runner sandbox states its risk', {
    timeout: ACTION_TIMEOUT,
  }, async () => {
    const { standin, repository, model, simulated } = await world.failedPushRun({
      completions: [
        { json: missProposal, usage: costly },
        { json: { retry: true, reason: 'Another look at stats.py may find it.' }, usage: costly },
        { json: reflection, usage: costly },
      ],
      log: 'NameError\n',
      by: 'renovate[bot]',
      prefix: 'selfdebug-action-budget-',
      inputs: {
        'max-attempts': '5',
        'budget-usd': '0.15',
        'input-price': '1',
        'output-price': '1',
        'trusted-bots': 'dependabot[bot], renovate[bot]',
      },
    });

    const { code, log } = await runSimulated(simulated.env);

    expect(log).not.toContain('::error::');
    expect(code).toBe(0);
    expect(log).toContain(
      '::warning::selfdebug: UNSAFE: the local sandbox runs commands as child processes of selfdebug, with its user, its network and its file system. Use it only for development on code you trust; use `sandbox: docker` (the default) for anything else.',
    );
    expect(log).not.toContain('a bot not listed');
    // The first attempt's proposal and the question whether to go on ($0.20 crossed $0.15): no second attempt
    // of the five allowed, then the reflection the loop always asks for.
    expect(log).toContain('selfdebug: budget-exhausted: cost budget used up ($0.2000 of $0.15)');
    expect(model.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(3);
    const summary = await readText(simulated.summaryPath);
    expect(summary).toContain(
      'selfdebug stopped: cost budget used up ($0.2000 of $0.15). Raise the `budget-usd` input',
    );
    expect(summary).toContain('Budget exhausted');
    expect(await readText(simulated.outputPath)).toContain('outcome=budget-exhausted\n');
    expect(standin.pulls(repository.fullName)).toEqual([]);
  });
});
