import { describe, expect, it } from 'vitest';
import { JobRefusedError } from '../../src/errors/job-errors.js';
import { MarkdownWriter } from '../../src/report/markdown.js';
import { Redactor } from '../../src/report/redact.js';
import { triggers } from '../../src/triggers/index.js';
import { FakeCodeHost } from '../fakes/fake-code-host.js';

const SHA = 'a'.repeat(40);
const trigger = { kind: 'action-run', runId: 77, runAttempt: 2, workflowName: 'CI', branch: 'main' } as const;
const request = {
  id: 'action-77-2',
  repository: { owner: 'octo', name: 'app' },
  headSha: SHA,
  baseBranch: 'main',
  options: {},
  trigger,
};

describe('the Action run trigger', () => {
  const module = triggers.moduleOf(trigger);

  it("targets a branch named after the run, on the failed run's branch", async () => {
    expect(await module.target(request, new FakeCodeHost('octo/app'))).toEqual({
      headSha: SHA,
      ref: 'main',
      workBranch: 'selfdebug/run-77-2',
      ownBranch: false,
      baseBranch: 'main',
      existingPull: null,
    });
  });

  it('tells the model which command fails in which workflow, and refuses without one', async () => {
    const host = new FakeCodeHost('octo/app');
    const settings = { command: 'npm test', setupCommands: [], toolchainImages: undefined };
    expect((await module.task(request, host, settings)).task).toEqual({
      description: 'The command `npm test` fails in CI.',
      command: 'npm test',
      setupCommands: [],
    });
    await expect(module.task(request, host, { ...settings, command: undefined })).rejects.toThrow(
      JobRefusedError,
    );
  });

  it('is worded as the App words a failed run, fixes, counts as a round and closes no issue', () => {
    const md = new MarkdownWriter(Redactor.none);
    const run = {
      ...trigger,
      kind: 'workflow-run',
      workflowPath: '.github/workflows/ci.yml',
      ownPullRequest: null,
    } as const;
    expect(module.describe(trigger, 'octocat', md)).toBe(triggers.moduleOf(run).describe(run, 'octocat', md));
    expect(module.describe(trigger, 'octocat', md)).toBe(
      'Workflow `CI` failed on `main` (run 77, attempt 2)',
    );
    expect([module.loopMode(trigger), module.automatic, module.issueToClose(trigger)]).toEqual([
      'fix',
      true,
      null,
    ]);
  });
});
