import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import tar from 'tar-fs';
import { mentionInNewIssue } from '../test/e2e/support/mention.js';
import { AppProcess } from '../test/e2e/support/processes.js';
import { STATS } from '../test/e2e/support/scenario-repos.js';
import { GitHubStandin, type StandinRepository } from '../test/fakes/github-standin/standin.js';
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

interface Side {
  label: string;
  app: AppProcess;
  total: number[];
  acks: number[];
  pickUps: number[];
  writes: number[];
  standinMs: number[];
  calls: number[];
}

export async function benchEndToEnd(): Promise<string> {
  const standin = await GitHubStandin.start();
  const model = await startRuleModelServer(STATS.rules);
  const queueDir = await mkdtemp(join(tmpdir(), 'bench-e2e-'));
  const docker = new Docker();
  const sides: Side[] = [];
  try {
    for (const [name, label, env] of [
      ['paced', 'ours, as shipped (Octokit paces writes as GitHub asks)', {}],
      ['free', 'ours, Octokit pacing off (the job’s own cost)', { E2E_OCTOKIT_THROTTLE: 'off' }],
    ] as const) {
      const app = await AppProcess.start(
        {
          githubHost: standin.host,
          appId: standin.appId,
          privateKey: standin.privateKey,
          webhookSecret: randomBytes(20).toString('hex'),
          modelUrl: model.url,
          queuePath: join(queueDir, `${name}.sqlite`),
          image,
          env,
        },
        { inProcessWorker: true },
      );
      sides.push({ label, app, total: [], acks: [], pickUps: [], writes: [], standinMs: [], calls: [] });
    }
    const parts = {
      clone: [] as number[],
      container: [] as number[],
      command: [] as number[],
      push: [] as number[],
    };

    // Interleaved: each round runs both sides and the raw parts, so machine noise hits all alike.
    for (let round = 0; round <= RUNS; round++) {
      for (const [index, side] of sides.entries()) {
        const repo = await standin.createRepository('bench', `stats-${index}-${round}`, [STATS.files]);
        const sample = await scenarioOne(standin, side.app, repo);
        // The first round warms up each App (token, JIT, image cache) and is not counted.
        if (round === 0) continue;
        side.total.push(sample.total);
        side.acks.push(sample.ack);
        side.pickUps.push(sample.pickUp);
        side.writes.push(sample.writes);
        side.standinMs.push(sample.standinMs);
        side.calls.push(sample.calls);
        if (index === 0) {
          const raw = await rawParts(docker, repo.cloneUrl, standin.issuedTokens.at(-1)!);
          parts.clone.push(raw.clone);
          parts.container.push(raw.container);
          parts.command.push(raw.command);
          parts.push.push(raw.push);
        }
      }
    }
    const medians = Object.fromEntries(
      Object.entries(parts).map(([name, samples]) => [name, summary(samples).median]),
    );
    const rawSum = Object.values(medians).reduce((total, value) => total + value, 0);
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
    ];
    for (const side of sides) {
      const total = summary(side.total);
      rows.push(
        [
          `${side.label}: webhook → pull request`,
          ms(total.median),
          ms(total.p90),
          (total.median / rawSum).toFixed(2),
        ],
        ['  webhook acknowledged', ms(summary(side.acks).median), ms(summary(side.acks).p90), '—'],
        [
          '  webhook → status comment posted',
          ms(summary(side.pickUps).median),
          ms(summary(side.pickUps).p90),
          '—',
        ],
        [
          `  time inside the stand-in (${summary(side.calls).median} requests, each checked against GitHub's OpenAPI description)`,
          ms(summary(side.standinMs).median),
          ms(summary(side.standinMs).p90),
          '—',
        ],
      );
    }
    const [paced, free] = sides.map((side) => summary(side.total).median / rawSum) as [number, number];
    const writes = summary(sides[0]!.writes).median;
    return [
      '## End to end (`bench/e2e.ts`)',
      '',
      `Scenario 1 of test/e2e (a mention on an issue whose script fails → a verified draft pull request), ${RUNS} runs ` +
        'per side after one warm-up, each on a fresh repository, the sides interleaved. Each side is the App as one ' +
        'real process as shipped (Probot server, SQLite queue, in-process worker) against the GitHub stand-in on ' +
        '127.0.0.1 (REST + git smart HTTP), the Docker sandbox, and a scripted model that answers at once. The raw ' +
        'parts are measured after each round against the same servers and image.',
      '',
      markdownTable(['what', 'median', 'p90', 'ratio to the raw sum'], rows),
      '',
      `Goal: end to end ≤ 2× the sum of its raw parts — as shipped ${paced <= 2 ? 'met' : 'NOT met'} ` +
        `(${paced.toFixed(2)}×); with Octokit's pacing off ${free <= 2 ? 'met' : 'NOT met'} (${free.toFixed(2)}×).`,
      '',
      "As shipped, the time is GitHub's own guidance: Probot's Octokit (plugin-throttling) spaces an " +
        'installation’s writes one second apart and the writes that notify people (new comments, pull requests) ' +
        `three seconds apart. Up to its pull request a job makes ${writes.toFixed(0)} writes, three of which ` +
        'notify (the status comment, the attempt comment, the pull request), so some seven seconds pass whatever ' +
        'the job does; against api.github.com each write also costs a round trip. The job does not wait for them: ' +
        'the check run and status comment are opened and updated in the background, updates folded together while ' +
        'one is in flight; only the pull request waits for them, so that it links the whole transcript. Without ' +
        'the pacing, beyond the raw parts the job runs the command once more (the reproduction, then the ' +
        'verification after the edit), copies the edited file back, asks the model twice, and reads the ' +
        'configuration, the sender’s permission and the branch.',
    ].join('\n');
  } finally {
    for (const side of sides) await side.app.child.stop();
    await model.close();
    await standin.close();
    await rm(queueDir, { recursive: true, force: true });
  }
}

/** One mention → pull request; times from sending the webhook. */
async function scenarioOne(standin: GitHubStandin, app: AppProcess, repo: StandinRepository) {
  standin.setPermission(repo.fullName, 'alice', 'write');
  const mention = { login: 'alice', body: '@selfdebug fix', issueText: 'crash' };
  const { issue, payload } = mentionInNewIssue(standin, repo, mention);
  const requestsBefore = standin.requests.length;
  const started = performance.now();
  const delivery = await app.deliver('issue_comment', payload);
  if (delivery.status !== 200) throw new Error(`the App answered ${delivery.status}\n${app.child.tail()}`);
  let pickUp = 0;
  for (;;) {
    if (
      !pickUp &&
      standin.comments(repo.fullName, issue.number).some((c) => c.body.includes('selfdebug:status'))
    )
      pickUp = performance.now() - started;
    if (standin.pulls(repo.fullName).length > 0) break;
    if (performance.now() - started > 120_000)
      throw new Error(`no pull request after 120 s\n${app.child.tail()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const total = performance.now() - started;
  // Until the pull request: what the job asked of GitHub, and how long the stand-in took to answer.
  const during = standin.requests.slice(requestsBefore);
  const writes = during.filter(
    (request) => request.method !== 'GET' && request.path.startsWith(`/api/v3/repos/${repo.fullName}/`),
  ).length;
  const standinMs = during.reduce((sum, request) => sum + request.ms, 0);
  const calls = during.length;
  // Let the job post its last updates before the next one starts, so rounds never share a write queue:
  // done when nothing touched the repository for 1.5 s (longer than the pacing between two writes).
  const touches = () =>
    standin.requests.filter((request) => request.path.includes(`/repos/${repo.fullName}/`)).length;
  for (let seen = touches(), quietSince = performance.now(); performance.now() - quietSince < 1500; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (touches() !== seen) [seen, quietSince] = [touches(), performance.now()];
  }
  return { total, ack: delivery.ms, pickUp: pickUp || total, writes, standinMs, calls };
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
