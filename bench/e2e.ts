import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import tar from 'tar-fs';
import { issueCommentPayload } from '../test/e2e/support/payloads.js';
import { AppProcess } from '../test/e2e/support/processes.js';
import { STATS } from '../test/e2e/support/scenario-repos.js';
import { GitHubStandin } from '../test/fakes/github-standin/standin.js';
import { startRuleModelServer } from '../test/fakes/rule-model-server.js';
import { markdownTable, ms, summary, timeMs } from './stats.js';

const execFileAsync = promisify(execFile);

/**
 * Scenario 1 of the end-to-end tests (a mention on an issue with a broken
 * script → a verified pull request), timed from the signed webhook to the
 * pull request, beside the raw parts such a job cannot avoid, measured in the
 * same run against the same servers: git clone, container create + start
 * with the files copied in, the command itself, and git push. The App runs as
 * shipped by default (one process, SQLite queue, in-process worker) against
 * the GitHub stand-in on 127.0.0.1 and a scripted model that answers at once.
 */
const RUNS = Number.parseInt(process.env.BENCH_E2E_RUNS ?? '5', 10);
const image = process.env.SELFDEBUG_TEST_IMAGE ?? 'selfdebug-executor:test';

export async function benchEndToEnd(): Promise<string> {
  const standin = await GitHubStandin.start();
  const model = await startRuleModelServer(STATS.rules);
  const queueDir = await mkdtemp(join(tmpdir(), 'bench-e2e-'));
  const docker = new Docker();
  let app: AppProcess | undefined;
  try {
    app = await AppProcess.start(
      {
        githubHost: standin.host,
        appId: standin.appId,
        privateKey: standin.privateKey,
        webhookSecret: randomBytes(20).toString('hex'),
        modelUrl: model.url,
        queuePath: join(queueDir, 'queue.sqlite'),
        image,
      },
      { inProcessWorker: true },
    );
    const endToEnd: number[] = [];
    const acks: number[] = [];
    const pickUps: number[] = [];
    const parts = {
      clone: [] as number[],
      container: [] as number[],
      command: [] as number[],
      push: [] as number[],
    };

    for (let run = 0; run <= RUNS; run++) {
      const repo = await standin.createRepository('bench', `stats-${run}`, [STATS.files]);
      standin.setPermission(repo.fullName, 'alice', 'write');
      const issue = standin.createIssue(repo.fullName, { title: 'crash', body: 'crash', user: 'alice' });
      const comment = standin.createIssueComment(repo.fullName, issue.number, {
        body: '@selfdebug fix',
        user: 'alice',
      });
      const payload = issueCommentPayload(
        repo,
        standin.installationId,
        { number: issue.number, title: 'crash', body: 'crash', user: 'alice' },
        { id: comment.id, body: '@selfdebug fix', user: 'alice' },
      );
      const started = performance.now();
      const delivery = await app.deliver('issue_comment', payload);
      if (delivery.status !== 200)
        throw new Error(`the App answered ${delivery.status}\n${app.child.tail()}`);
      let pickedUp = 0;
      for (;;) {
        if (
          !pickedUp &&
          standin.comments(repo.fullName, issue.number).some((c) => c.body.includes('selfdebug:status'))
        )
          pickedUp = performance.now() - started;
        if (standin.pulls(repo.fullName).length > 0) break;
        if (performance.now() - started > 120_000)
          throw new Error(`no pull request after 120 s\n${app.child.tail()}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const elapsed = performance.now() - started;
      // The first run warms up the App (token, JIT, image cache) and is not counted.
      if (run > 0) {
        endToEnd.push(elapsed);
        acks.push(delivery.ms);
        pickUps.push(pickedUp);
        const raw = await rawParts(docker, repo.cloneUrl, standin.issuedTokens.at(-1)!);
        parts.clone.push(raw.clone);
        parts.container.push(raw.container);
        parts.command.push(raw.command);
        parts.push.push(raw.push);
      }
    }
    const medians = Object.fromEntries(
      Object.entries(parts).map(([name, samples]) => [name, summary(samples).median]),
    );
    const rawSum = Object.values(medians).reduce((total, value) => total + value, 0);
    const ours = summary(endToEnd);
    const ratio = ours.median / rawSum;
    const rows: (string | number)[][] = [
      ['raw: git clone (depth 1, token header)', ms(medians.clone!), ms(summary(parts.clone).p90), '—'],
      [
        'raw: container create + start + copy in',
        ms(medians.container!),
        ms(summary(parts.container).p90),
        '—',
      ],
      ['raw: the command (`python stats.py`)', ms(medians.command!), ms(summary(parts.command).p90), '—'],
      ['raw: git commit + push of a branch', ms(medians.push!), ms(summary(parts.push).p90), '—'],
      ['**sum of the raw parts**', ms(rawSum), '—', '1.00'],
      ['ours: webhook → pull request opened', ms(ours.median), ms(ours.p90), ratio.toFixed(2)],
      ['  of which: webhook acknowledged', ms(summary(acks).median), ms(summary(acks).p90), '—'],
      [
        '  of which: webhook → status comment (job picked up)',
        ms(summary(pickUps).median),
        ms(summary(pickUps).p90),
        '—',
      ],
    ];
    return [
      '## End to end (`bench/e2e.ts`)',
      '',
      `Scenario 1 of test/e2e (a mention on an issue whose script fails → a verified draft pull request), ${RUNS} runs ` +
        'after one warm-up, each on a fresh repository. The App is one real process as shipped (Probot server, ' +
        'SQLite queue, in-process worker) against the GitHub stand-in on 127.0.0.1 (REST + git smart HTTP), the ' +
        'Docker sandbox, and a scripted model that answers at once. The raw parts are measured after each run ' +
        'against the same servers and image.',
      '',
      markdownTable(['what', 'median', 'p90', 'ratio to the raw sum'], rows),
      '',
      `Goal: end to end ≤ 2× the sum of its raw parts — ${ratio <= 2 ? 'met' : 'NOT met'} (${ratio.toFixed(2)}×).`,
      '',
      'Beyond the raw parts the job runs the command twice more (the reproduction, then the verification after the ' +
        'edit), copies the edited files back, reads the configuration and the sender’s permission, and posts the ' +
        'status, attempt and check-run updates before it opens the pull request.',
    ].join('\n');
  } finally {
    await app?.child.stop();
    await model.close();
    await standin.close();
    await rm(queueDir, { recursive: true, force: true });
  }
}

async function rawParts(docker: Docker, cloneUrl: string, token: string) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-e2e-raw-'));
  const header = `http.extraHeader=Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  const git = (...args: string[]) => execFileAsync('git', ['-c', header, ...args], { cwd: dir });
  try {
    const clone = await timeMs(() => git('clone', '--quiet', '--depth', '1', cloneUrl, 'work'));
    let container: Docker.Container | undefined;
    const created = await timeMs(async () => {
      container = await docker.createContainer({
        Image: image,
        Cmd: ['sleep', 'infinity'],
        HostConfig: { NetworkMode: 'none', AutoRemove: false },
      });
      await container.start();
      await container.putArchive(tar.pack(join(dir, 'work'), { ignore: (name) => name.includes('.git') }), {
        path: '/workspace',
      });
    });
    const command = await timeMs(async () => {
      const exec = await container!.exec({
        Cmd: ['python', 'stats.py'],
        AttachStdout: true,
        AttachStderr: true,
      });
      const stream = await exec.start({});
      await new Promise((resolve) => {
        stream.on('end', resolve);
        stream.resume();
      });
    });
    await container!.remove({ force: true });
    await writeFile(join(dir, 'work', 'stats.py'), 'print(7 / 3)\n');
    const push = await timeMs(async () => {
      const work = ['-C', join(dir, 'work')];
      await git(
        ...work,
        '-c',
        'user.name=bench',
        '-c',
        'user.email=bench@example.com',
        'commit',
        '-qam',
        'raw',
      );
      await git(...work, 'push', '--quiet', 'origin', `HEAD:refs/heads/raw-${Date.now()}`);
    });
    return { clone, container: created, command, push };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
