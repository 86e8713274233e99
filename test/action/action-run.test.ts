import { execFile } from 'node:child_process';
import { access, cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { installationToken, standinOctokit } from '../fakes/github-standin/clients.js';
import { GitHubStandin } from '../fakes/github-standin/standin.js';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import {
  ACTION_TIMEOUT,
  BROKEN_STATS,
  FAILED_STEPS,
  FIXED_STATS,
  fixProposal,
  gitAs,
  PROJECT,
  readText,
  reflection,
  runSimulated,
  simulateRunner,
  writeFiles,
} from './harness.js';

const execFileAsync = promisify(execFile);

describe('the GitHub Action in a simulated runner', () => {
  const tempDir = useTempDirs();
  let standin: GitHubStandin | undefined;
  let model: FakeOpenAIServer | undefined;

  afterEach(async () => {
    await model?.close();
    await standin?.close();
    model = undefined;
    standin = undefined;
  });

  async function setUp(commits: Record<string, string>[]) {
    standin = await GitHubStandin.start();
    const repository = await standin.createRepository('octo-org', 'app', commits);
    const octokit = standinOctokit(standin);
    const token = await installationToken(octokit);
    return { standin, repository, octokit, token };
  }

  /** The runner's folder with the job's checkout of PROJECT in its workspace, as actions/checkout leaves it. */
  async function checkedOut(): Promise<{ root: string; workspace: string }> {
    const root = await tempDir('selfdebug-action-');
    const workspace = join(root, 'workspace');
    await writeFiles(workspace, PROJECT);
    return { root, workspace };
  }

  /** A model server that proposes the fix, then reflects on it. */
  function fixingModel(): Promise<FakeOpenAIServer> {
    return startFakeOpenAIServer([{ json: fixProposal }, { json: reflection }]);
  }

  function failedRun(
    target: GitHubStandin,
    fullName: string,
    headBranch: string,
    headSha: string,
    event = 'push',
  ) {
    return target.createWorkflowRun(fullName, {
      workflowName: 'CI',
      path: '.github/workflows/ci.yml',
      headBranch,
      headSha,
      event,
      jobs: [
        {
          name: 'test',
          conclusion: 'failure',
          steps: FAILED_STEPS,
          log: 'NameError: name statistics is not defined\n',
        },
      ],
    });
  }

  it('debugs the failed step of a push run and opens a pull request from a selfdebug/ branch', {
    timeout: ACTION_TIMEOUT,
  }, async () => {
    const { standin, repository, token } = await setUp([PROJECT]);
    model = await fixingModel();
    const sha = repository.commits[0]!;
    const run = failedRun(standin, repository.fullName, 'main', sha);
    const { root, workspace } = await checkedOut();
    const simulated = await simulateRunner(root, standin, {
      repository: repository.fullName,
      workspace,
      eventName: 'push',
      event: { ref: 'refs/heads/main', sender: { login: 'alice', type: 'User' } },
      runId: run.id,
      sha,
      ref: 'refs/heads/main',
      inputs: { 'api-key': 'test-key', 'base-url': model.url, sandbox: 'runner', 'github-token': token },
    });

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

  it('does the same from the bundle alone, copied where no node_modules is', {
    timeout: ACTION_TIMEOUT,
  }, async () => {
    const { standin, repository, token } = await setUp([PROJECT]);
    model = await fixingModel();
    const sha = repository.commits[0]!;
    const run = failedRun(standin, repository.fullName, 'main', sha);
    const { root, workspace } = await checkedOut();
    const bundle = join(root, 'action');
    await cp(fileURLToPath(new URL('../../dist-action', import.meta.url)), bundle, { recursive: true });
    const simulated = await simulateRunner(root, standin, {
      repository: repository.fullName,
      workspace,
      eventName: 'push',
      event: { ref: 'refs/heads/main', sender: { login: 'alice', type: 'User' } },
      runId: run.id,
      sha,
      ref: 'refs/heads/main',
      inputs: { 'api-key': 'test-key', 'base-url': model.url, sandbox: 'runner', 'github-token': token },
    });

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
    const { standin, repository, octokit, token } = await setUp([fixed, PROJECT]);
    const [baseSha, headSha] = repository.commits as [string, string];
    await standin.createBranch(repository.fullName, 'feature', headSha);
    await standin.createBranch(repository.fullName, 'main', baseSha);
    const { data: pull } = await octokit.rest.pulls.create({
      owner: 'octo-org',
      repo: 'app',
      title: 'Compute the mean',
      head: 'feature',
      base: 'main',
    });
    model = await fixingModel();
    const run = failedRun(standin, repository.fullName, 'feature', headSha, 'pull_request');
    const { root, workspace } = await checkedOut();
    const simulated = await simulateRunner(root, standin, {
      repository: repository.fullName,
      workspace,
      eventName: 'pull_request',
      event: {
        number: pull.number,
        pull_request: { number: pull.number, head: { ref: 'feature', sha: headSha }, base: { ref: 'main' } },
        sender: { login: 'alice', type: 'User' },
      },
      runId: run.id,
      sha: headSha,
      ref: `refs/pull/${pull.number}/merge`,
      inputs: {
        'api-key': 'test-key',
        'base-url': model.url,
        sandbox: 'runner',
        deliver: 'suggestions',
        'github-token': token,
      },
      extra: { GITHUB_HEAD_REF: 'feature' },
    });

    const { code, log } = await runSimulated(simulated.env);

    expect(log).not.toContain('::error::');
    expect(code).toBe(0);
    expect(standin.pulls(repository.fullName)).toHaveLength(1);
    expect(await standin.branches(repository.fullName)).toEqual(['feature', 'main']);
    const { data: reviews } = await octokit.rest.pulls.listReviews({
      owner: 'octo-org',
      repo: 'app',
      pull_number: pull.number,
    });
    expect(reviews).toHaveLength(1);
    expect(reviews[0]!.body).toContain(reflection.summary);
    const { data: comments } = await octokit.rest.pulls.listCommentsForReview({
      owner: 'octo-org',
      repo: 'app',
      pull_number: pull.number,
      review_id: reviews[0]!.id,
    });
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
    const { standin, repository, token } = await setUp([PROJECT]);
    model = await fixingModel();
    const sha = repository.commits[0]!;
    const failed = failedRun(standin, repository.fullName, 'main', sha);
    const { root, workspace } = await checkedOut();
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
      inputs: {
        'api-key': 'test-key',
        'base-url': model.url,
        sandbox: 'runner',
        deliver: 'none',
        'github-token': token,
      },
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

  it('does nothing on its own branch once max_rounds automatic fixes are there', async () => {
    const configured = {
      ...PROJECT,
      '.github/selfdebug.yml': 'triggers:\n  workflow_runs:\n    max_rounds: 1\n',
    };
    const { standin, repository, token } = await setUp([configured]);
    // One earlier round: a commit on the branch carrying the round trailer, pushed as the action pushes.
    const clone = await tempDir('selfdebug-clone-');
    const git = (...args: string[]) => gitAs(clone, token, ...args);
    await git('clone', '--quiet', repository.cloneUrl, '.');
    await writeFiles(clone, { 'stats.py': `# round 1\n${BROKEN_STATS}` });
    await git('commit', '--quiet', '-am', 'selfdebug: a first try\n\nSelfdebug-Round: workflow-run');
    await git('push', '--quiet', 'origin', 'HEAD:refs/heads/selfdebug/run-1-1');
    const sha = (await git('rev-parse', 'HEAD')).trim();
    model = await startFakeOpenAIServer([]);
    const run = failedRun(standin, repository.fullName, 'selfdebug/run-1-1', sha);
    const root = await tempDir('selfdebug-action-');
    const simulated = await simulateRunner(root, standin, {
      repository: repository.fullName,
      workspace: clone,
      eventName: 'push',
      event: { ref: 'refs/heads/selfdebug/run-1-1', sender: { login: 'selfdebug[bot]', type: 'Bot' } },
      runId: run.id,
      sha,
      ref: 'refs/heads/selfdebug/run-1-1',
      inputs: { 'api-key': 'test-key', 'base-url': model.url, sandbox: 'runner', 'github-token': token },
    });

    const { code, log } = await runSimulated(simulated.env);

    expect(code).toBe(0);
    expect(log).toContain('already pushed 1 automatic fix on this branch (the limit is 1');
    expect(await readText(simulated.summaryPath)).toContain('it stops here so it can never loop');
    expect(model.requests).toEqual([]);
    expect(standin.pulls(repository.fullName)).toEqual([]);
  });

  it('skips a run started by a bot not listed in trusted-bots', async () => {
    const { standin, repository, token } = await setUp([PROJECT]);
    model = await startFakeOpenAIServer([]);
    const root = await tempDir('selfdebug-action-');
    const simulated = await simulateRunner(root, standin, {
      repository: repository.fullName,
      workspace: root,
      eventName: 'push',
      event: { ref: 'refs/heads/main', sender: { login: 'dependabot[bot]', type: 'Bot' } },
      runId: 1,
      sha: repository.commits[0]!,
      ref: 'refs/heads/main',
      inputs: { 'api-key': 'test-key', 'base-url': model.url, sandbox: 'runner', 'github-token': token },
    });

    const { code, log } = await runSimulated(simulated.env);

    expect(code).toBe(0);
    expect(log).toContain('started by dependabot[bot], a bot not listed in the `trusted-bots` input');
    expect(model.requests).toEqual([]);
  });

  it('fails the step with an ::error:: line naming the input when the model key is missing', async () => {
    const root = await tempDir('selfdebug-action-');
    const { code, log } = await runSimulated({
      GITHUB_WORKSPACE: root,
      GITHUB_REPOSITORY: 'octo-org/app',
      'INPUT_GITHUB-TOKEN': 'ghs_token',
      'INPUT_API-KEY': '',
    });

    expect(code).toBe(1);
    expect(log).toBe(
      `::error::selfdebug: input \`api-key\`: the model API key is missing: set \`api-key: \${{ secrets.OPENAI_API_KEY }}\` ` +
        "(or the secret holding your key) in the step's `with:`",
    );
  });
});
