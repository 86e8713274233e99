import { execFile } from 'node:child_process';
import { access, cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  ACTION_TIMEOUT,
  BROKEN_STATS,
  FIXED_STATS,
  failedRun,
  fixProposal,
  inputsFor,
  openPull,
  PROJECT,
  pullRequestRun,
  readText,
  reflection,
  reviewsOn,
  runSimulated,
  simulateRunner,
  useActionWorld,
} from './harness.js';

const execFileAsync = promisify(execFile);

describe('the GitHub Action in a simulated runner', () => {
  const world = useActionWorld();

  it('debugs the failed step of a push run and opens a pull request from a selfdebug/ branch', {
    timeout: ACTION_TIMEOUT,
  }, async () => {
    const { standin, repository, token, run, workspace, simulated } = await world.failedPushRun();

    const { code, log } = await runSimulated(simulated.env);

    expect(log).not.toContain('::error::');
    expect(code).toBe(0);
    expect(log).toContain('debugging the failed step "Run python3 stats.py" of job "test"');
    expect(log).toMatch(/::warning::selfdebug: UNSAFE: the local sandbox/);
    const pulls = standin.pulls(repository.fullName);
    expect(pulls).toHaveLength(1);
    const pull = pulls[0]!;
    expect(pull.head).toBe(`selfdebug/run-${run.id}-1`);
    expect(pull.base).toBe('main');
    expect(pull.body).toContain(
      `Fixes the failure of http://${standin.host}/octo-org/app/actions/runs/${run.id}`,
    );
    expect(await standin.readFile(repository.fullName, pull.head, 'stats.py')).toBe(FIXED_STATS);
    // Only the changed file is committed: nothing the command left behind (__pycache__).
    expect(await standin.readFile(repository.fullName, pull.head, 'numbers_data.py')).toBe(
      PROJECT['numbers_data.py'],
    );
    // GITHUB_WORKSPACE is the job's: the action leaves it as it was.
    expect(await readFile(join(workspace, 'stats.py'), 'utf8')).toBe(BROKEN_STATS);

    const summary = await readText(simulated.summaryPath);
    expect(summary).toContain('import statistics');
    expect(summary).not.toContain(token);
    expect(summary).not.toContain('test-key');
    const artifact = join(simulated.runnerTemp, 'selfdebug');
    expect(log).toContain(`wrote the patch and transcript to ${artifact}`);
    expect(await readFile(join(artifact, 'selfdebug.patch'), 'utf8')).toContain('+import statistics');
    await access(join(artifact, 'transcript.md'));
    const outputs = await readText(simulated.outputPath);
    expect(outputs).toContain('outcome=fixed\n');
    expect(outputs).toContain(`delivered-url=http://${standin.host}/octo-org/app/pull/${pull.number}`);
    expect(standin.problems).toEqual([]);
  });

  it('leaves out of the pull request a file the copy-back refuses (a credential file), with a warning', {
    timeout: ACTION_TIMEOUT,
  }, async () => {
    const storeLogin = { path: '.git-credentials', search: '', replace: 'https://user:pw@host.example\n' };
    const { standin, repository, workspace, simulated } = await world.failedPushRun({
      completions: [
        { json: { ...fixProposal, edits: [...fixProposal.edits, storeLogin] } },
        { json: reflection },
      ],
    });

    const { code, log } = await runSimulated(simulated.env);

    expect(log).not.toContain('::error::');
    expect(code).toBe(0);
    expect(log).toMatch(/::warning::selfdebug: Left out \.git-credentials: /);
    const [pull] = standin.pulls(repository.fullName);
    expect(await standin.readFile(repository.fullName, pull!.head, 'stats.py')).toBe(FIXED_STATS);
    await expect(standin.readFile(repository.fullName, pull!.head, '.git-credentials')).rejects.toThrow(
      'has no file .git-credentials',
    );
    await expect(access(join(workspace, '.git-credentials'))).rejects.toThrow();
    expect(standin.problems).toEqual([]);
  });

  it('does the same from the bundle alone, copied where no node_modules is', {
    timeout: ACTION_TIMEOUT,
  }, async () => {
    const { standin, repository, root, workspace, simulated } = await world.failedPushRun();
    const bundle = join(root, 'action');
    await cp(fileURLToPath(new URL('../../dist-action', import.meta.url)), bundle, { recursive: true });

    const { stdout } = await execFileAsync(process.execPath, [join(bundle, 'index.js')], {
      cwd: workspace,
      env: simulated.env,
    });

    expect(stdout).not.toContain('::error::');
    expect(stdout).toContain('selfdebug: delivered the fix: ');
    const [pull] = standin.pulls(repository.fullName);
    expect(await standin.readFile(repository.fullName, pull!.head, 'stats.py')).toBe(FIXED_STATS);
    expect(standin.problems).toEqual([]);
  });

  it('answers a failed pull_request run with one review of suggestion blocks', {
    timeout: ACTION_TIMEOUT,
  }, async () => {
    const fixed = { ...PROJECT, 'stats.py': FIXED_STATS };
    const { standin, repository, octokit, token } = await world.repository([fixed, PROJECT]);
    const [baseSha, headSha] = repository.commits as [string, string];
    await standin.createBranch(repository.fullName, 'feature', headSha);
    await standin.createBranch(repository.fullName, 'main', baseSha);
    const pull = await openPull(octokit, 'Compute the mean');
    const model = await world.model();
    const run = failedRun(standin, repository.fullName, headSha, {
      headBranch: 'feature',
      event: 'pull_request',
    });
    const { root, workspace } = await world.checkedOut();
    const simulated = await simulateRunner(root, standin, {
      repository: repository.fullName,
      workspace,
      ...pullRequestRun(pull.number, headSha),
      runId: run.id,
      sha: headSha,
      inputs: inputsFor(model, token, { deliver: 'suggestions' }),
    });

    const { code, log } = await runSimulated(simulated.env);

    expect(log).not.toContain('::error::');
    expect(code).toBe(0);
    expect(standin.pulls(repository.fullName)).toHaveLength(1);
    expect(await standin.branches(repository.fullName)).toEqual(['feature', 'main']);
    const { reviews, comments } = await reviewsOn(octokit, pull.number);
    expect(reviews).toHaveLength(1);
    expect(reviews[0]!.body).toContain(reflection.summary);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.path).toBe('stats.py');
    // The hunk's old lines 1–3 (its context included) become its new lines: the added import and the same context.
    expect(comments[0]!.line).toBe(3);
    expect(comments[0]!.body).toBe(
      '```suggestion\nimport statistics\nfrom numbers_data import load_numbers\n\nvalues = load_numbers()\n```',
    );
    expect(standin.problems).toEqual([]);
  });

  it('in a workflow_run workflow, debugs the failed step of the triggering run; deliver none writes only the summary', {
    timeout: ACTION_TIMEOUT,
  }, async () => {
    const { standin, repository, token } = await world.repository();
    const model = await world.model();
    const sha = repository.commits[0]!;
    const failed = failedRun(standin, repository.fullName, sha);
    const { root, workspace } = await world.checkedOut();
    const simulated = await simulateRunner(root, standin, {
      repository: repository.fullName,
      workspace,
      eventName: 'workflow_run',
      event: {
        action: 'completed',
        workflow_run: {
          id: failed.id,
          name: 'CI',
          head_branch: 'main',
          head_sha: sha,
          run_attempt: 1,
          actor: { login: 'alice', type: 'User' },
        },
        sender: { login: 'alice', type: 'User' },
      },
      // The run of the selfdebug workflow itself, which is not the one that failed.
      runId: failed.id + 1000,
      sha,
      ref: 'refs/heads/main',
      inputs: inputsFor(model, token, { deliver: 'none' }),
      extra: { GITHUB_JOB: 'debug', GITHUB_WORKFLOW: 'selfdebug' },
    });

    const { code, log } = await runSimulated(simulated.env);

    expect(log).not.toContain('::error::');
    expect(code).toBe(0);
    expect(log).toContain('debugging the failed step "Run python3 stats.py" of job "test"');
    expect(standin.pulls(repository.fullName)).toEqual([]);
    expect(await standin.branches(repository.fullName)).toEqual(['main']);
    expect(await readText(simulated.summaryPath)).toContain('import statistics');
    const outputs = await readText(simulated.outputPath);
    expect(outputs).toContain('outcome=fixed\n');
    expect(outputs).toContain('delivered-url=\n');
    expect(standin.problems).toEqual([]);
  });
});
