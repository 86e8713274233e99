import { type ChildProcess, fork } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import type { Context } from 'probot';
import { markdownTable, ms, percentile } from './stats.js';
import { type FakeGitHub, type FakeRoute, startFakeGitHub } from './webhook-fake-github.js';
import type { FromServer, Side, ToServer } from './webhook-server.js';

/**
 * How fast our server acknowledges signed `issue_comment.created` deliveries
 * ("@selfdebug fix") beside a bare Probot app with a no-op handler, same run,
 * same machine. Servers run in a child process (bench/webhook-server.ts); the
 * load loop and a fake GitHub API (bench/webhook-fake-github.ts) run here.
 * Everything is 127.0.0.1.
 */
const REQUESTS = positive('BENCH_WEBHOOK_REQUESTS', 2000);
const CONCURRENCY = positive('BENCH_WEBHOOK_CONCURRENCY', 8);
const WARMUP = positive('BENCH_WEBHOOK_WARMUP', 50);
const ROUND = 25;
const SLOW_REQUESTS = positive('BENCH_WEBHOOK_SLOW_REQUESTS', 80);
const SLOW_DELAY_MS = 25;
const THROTTLED_REQUESTS = positive('BENCH_WEBHOOK_THROTTLED_REQUESTS', 12);
/** The interleaved rounds stop starting once this is spent; the whole bench stays well under 2 minutes. */
const MAIN_BUDGET_MS = 60_000;
const REQUEST_TIMEOUT_MS = 15_000;
const WEBHOOK_PATH = '/api/github/webhooks';
const HANDLE = 'selfdebug';

type Payload = Context<'issue_comment.created'>['payload'];

interface Sample {
  ms: number;
  status: number;
}

const LABELS: Record<Side, string> = {
  bare: 'bare Probot, no-op handler (baseline)',
  ours: 'ours, as shipped (answer first, handler after)',
  awaited: "ours, answering after the handler (Probot's own way)",
  slow: `ours, as shipped, fake API +${SLOW_DELAY_MS} ms per call`,
  throttled: "ours, as shipped, Probot's default Octokit (throttling on)",
};
/** Interleaved in rounds; the other sides run after them. */
const MAIN: readonly Side[] = ['bare', 'ours', 'awaited'];

export async function benchWebhook(): Promise<string> {
  const secret = randomBytes(32).toString('hex');
  const template = examplePayload();
  const fakes = {} as Record<Side, FakeGitHub>;
  let child: ChildProcess | undefined;
  try {
    for (const side of Object.keys(LABELS) as Side[]) {
      fakes[side] = await startFakeGitHub(side === 'slow' ? SLOW_DELAY_MS : 0);
    }
    child = fork(new URL('./webhook-server.ts', import.meta.url), [], { stdio: ['ignore', 2, 2, 'ipc'] });
    const server = new ServerProcess(child);
    const urls = Object.fromEntries(Object.entries(fakes).map(([side, fake]) => [side, fake.url]));
    const { ports } = await server.ask(
      { type: 'start', secret, handle: HANDLE, fakes: urls as Record<Side, string> },
      'ready',
    );
    const agents = new Map<Side, Agent>();
    const agentFor = (side: Side) => {
      let agent = agents.get(side);
      if (!agent) {
        agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
        agents.set(side, agent);
      }
      return agent;
    };
    const cpuMs = Object.fromEntries(Object.keys(LABELS).map((side) => [side, 0])) as Record<Side, number>;
    let { cpuMicros: lastCpu } = await server.ask({ type: 'drain' }, 'drained');
    let commentId = 1_000_000;
    /** One batch of one side; then waits for background handlers and books the server's CPU time to the side. */
    const fire = async (side: Side, count: number) => {
      // Bodies are built and signed before the clock starts.
      const deliveries = Array.from({ length: count }, () => delivery(template, ++commentId, secret));
      const samples = await load(ports[side], agentFor(side), deliveries, CONCURRENCY);
      const { cpuMicros } = await server.ask({ type: 'drain' }, 'drained');
      cpuMs[side] += (cpuMicros - lastCpu) / 1000;
      lastCpu = cpuMicros;
      return samples;
    };

    // Warm-up: JIT, sockets, and the installation token (Probot caches it for 59 minutes).
    for (const side of [...MAIN, 'slow'] as const) await fire(side, side === 'slow' ? 16 : WARMUP);
    const warmupTokens = MAIN.map((side) => fakes[side].counts.get('token') ?? 0).reduce((a, b) => a + b, 0);
    for (const fake of Object.values(fakes)) fake.counts.clear();
    for (const side of MAIN) cpuMs[side] = 0;
    cpuMs.slow = 0;

    // Interleaved rounds: each side in turn, the order rotating, so machine noise hits all alike.
    const samples = Object.fromEntries(Object.keys(LABELS).map((side) => [side, []])) as unknown as Record<
      Side,
      Sample[]
    >;
    const started = performance.now();
    for (let round = 0; samples.bare.length < REQUESTS; round++) {
      if (performance.now() - started > MAIN_BUDGET_MS) break;
      const size = Math.min(ROUND, REQUESTS - samples.bare.length);
      for (let turn = 0; turn < MAIN.length; turn++) {
        const side = MAIN[(round + turn) % MAIN.length]!;
        samples[side].push(...(await fire(side, size)));
      }
    }
    const mainSeconds = (performance.now() - started) / 1000;
    samples.slow = await fire('slow', SLOW_REQUESTS);
    samples.throttled = await fire('throttled', THROTTLED_REQUESTS);
    const { failures } = await server.ask({ type: 'drain' }, 'drained');
    await server.stop();

    const bare = durations(samples.bare);
    const rows = (Object.keys(LABELS) as Side[]).map((side) => row(side, samples[side], bare, cpuMs[side]));
    const p50 = (side: Side) => percentile(durations(samples[side]), 0.5);
    const p99 = (side: Side) => percentile(durations(samples[side]), 0.99);
    const allowed = 1.25 * p99('bare');
    const verdict = (side: Side) => (p99(side) <= allowed ? 'met' : 'NOT met');
    const calls = callsCount(fakes.ours.counts, samples.ours.length);
    const cpuPer = (side: Side) => cpuMs[side] / Math.max(1, samples[side].length);
    const throttledLate = samples.throttled.filter((sample) => sample.status === 202).length;

    return [
      '## Webhook acknowledgement (`bench/webhook.ts`)',
      '',
      `Signed \`issue_comment.created\` deliveries (\`@${HANDLE} fix\`, the example payload of ` +
        '`@octokit/webhooks-examples`, a fresh comment id and delivery id each) POSTed to ' +
        `\`${WEBHOOK_PATH}\` of real Probot 14 servers (\`createNodeMiddleware\` + \`node:http\`) on 127.0.0.1, ` +
        `${CONCURRENCY} in flight over keep-alive sockets; time is from sending the request to the end of the ` +
        'answer. "Ours" is `registerHandlers` with the real `GitHubCodeHost` and config loader, the default ' +
        'SQLite queue (a file in the temp directory, no worker), and a fake GitHub API on 127.0.0.1 (404 for both config files, `write` ' +
        'permission, 201 for the reaction). The servers run in a child process; the load loop and the fake API ' +
        `in this one. The first ${MAIN.length} rows are interleaved in rounds of ${ROUND} ` +
        `(${mainSeconds.toFixed(1)} s, after ${WARMUP} warm-up deliveries each); the last two ran after them. ` +
        "All rows but the last use an Octokit with plugin-throttling off, as the tests do. CPU is the server process's " +
        'user+system time per delivery, background work included.',
      '',
      markdownTable(
        [
          'side',
          'requests',
          'p50',
          'p99',
          'max',
          'errors',
          'server CPU / delivery',
          'p50 ratio',
          'p99 ratio',
        ],
        rows,
      ),
      '',
      `Goal: our p99 ≤ 1.25× bare p99 (${ms(allowed)}) — ${verdict('ours')} (${ms(p99('ours'))}); ` +
        `answering after the handler: ${verdict('awaited')} (${ms(p99('awaited'))}).`,
      '',
      "Probot 14 answers only after every handler has finished (`@octokit/webhooks`' node middleware awaits " +
        '`verifyAndReceive` before writing `200 ok`). `registerHandlers` therefore starts each handler and ' +
        "returns (`acknowledge: first`); the handler's GitHub calls run after the answer, overlapping later " +
        `deliveries (drained after each batch, off the clock; ${failures} failed). ` +
        `GitHub calls per delivery — ours: ${callsPerDelivery(fakes.ours.counts, samples.ours.length)}; ` +
        `bare: ${callsPerDelivery(fakes.bare.counts, samples.bare.length)}; one installation token per app ` +
        `during warm-up (${warmupTokens} in all), cached after.`,
      '',
      `What answering after the handler would wait for: ${calls.toFixed(0)} sequential GitHub calls (the ` +
        "sender's permission and the reaction; the repository's configuration is cached for a minute, so its two " +
        'reads happen once per repository, in the warm-up); on ' +
        `127.0.0.1 that is the "awaited" row (p50 ${ms(p50('awaited'))} against ${ms(p50('ours'))}), and against ` +
        `api.github.com it would add ${calls.toFixed(0)} real round trips. As shipped, slower GitHub calls ` +
        `(+${SLOW_DELAY_MS} ms each) move the p50 by ${ms(p50('slow') - p50('ours'))}, and Probot's default ` +
        `Octokit, whose plugin-throttling spaces writes one second apart per installation, answers ` +
        `${THROTTLED_REQUESTS} concurrent mentions within ${ms(Math.max(...durations(samples.throttled)))}` +
        `${throttledLate > 0 ? ` (${throttledLate} past 9 s: 202)` : ''}. The server spends ` +
        `${ms(cpuPer('ours'))} of CPU per delivery (handler included) against bare's ${ms(cpuPer('bare'))}.`,
    ].join('\n');
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) child.kill();
    await Promise.all(Object.values(fakes).map((fake) => fake.close()));
  }
}

/** Sends the deliveries with at most `concurrency` in flight; never more than `deliveries.length` requests. */
async function load(
  port: number,
  agent: Agent,
  deliveries: { body: string; headers: Record<string, string> }[],
  concurrency: number,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  let next = 0;
  const worker = async () => {
    while (next < deliveries.length) {
      const { body, headers } = deliveries[next++]!;
      samples.push(await post(port, agent, body, headers));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, deliveries.length) }, worker));
  return samples;
}

function post(port: number, agent: Agent, body: string, headers: Record<string, string>): Promise<Sample> {
  return new Promise((resolve) => {
    const started = performance.now();
    const done = (status: number) => resolve({ ms: performance.now() - started, status });
    const outgoing = request(
      { host: '127.0.0.1', port, path: WEBHOOK_PATH, method: 'POST', agent, headers },
      (response) => {
        response.resume();
        response.once('end', () => done(response.statusCode ?? 0));
        response.once('error', () => done(0));
      },
    );
    outgoing.setTimeout(REQUEST_TIMEOUT_MS, () => outgoing.destroy(new Error('timed out')));
    outgoing.once('error', () => done(0));
    outgoing.end(body);
  });
}

function delivery(template: Payload, commentId: number, secret: string) {
  const payload = structuredClone(template);
  // A new comment each time, so the queue's dedupe does not skip the reaction.
  payload.comment.id = commentId;
  const body = JSON.stringify(payload);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'GitHub-Hookshot/bench',
      'x-github-event': 'issue_comment',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
  };
}

function examplePayload(): Payload {
  const file = createRequire(import.meta.url).resolve('@octokit/webhooks-examples');
  const events = JSON.parse(readFileSync(file, 'utf8')) as {
    name: string;
    examples: (Payload & { action: string })[];
  }[];
  const created = (events.find((event) => event.name === 'issue_comment')?.examples ?? []).filter(
    (example) => example.action === 'created',
  );
  const example = created.find((candidate) => candidate.installation) ?? created[0];
  if (!example) throw new Error('no issue_comment.created example in @octokit/webhooks-examples');
  const payload = structuredClone(example);
  payload.installation ??= { id: 1, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ==' };
  payload.comment.body = `@${HANDLE} fix`;
  return payload;
}

function durations(samples: Sample[]): number[] {
  return samples.map((sample) => sample.ms);
}

function row(side: Side, samples: Sample[], bare: number[], cpuMs: number): (string | number)[] {
  const times = durations(samples);
  const failed = samples.filter((sample) => sample.status !== 200);
  const statuses = new Map<number, number>();
  for (const { status } of failed) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  const errors =
    failed.length === 0
      ? '0'
      : `${failed.length} (${[...statuses].map(([status, count]) => `${status === 0 ? 'no answer' : status}×${count}`).join(', ')})`;
  const p50 = percentile(times, 0.5);
  const p99 = percentile(times, 0.99);
  return [
    LABELS[side],
    samples.length,
    ms(p50),
    ms(p99),
    ms(Math.max(...times)),
    errors,
    ms(cpuMs / Math.max(1, samples.length)),
    (p50 / percentile(bare, 0.5)).toFixed(2),
    (p99 / percentile(bare, 0.99)).toFixed(2),
  ];
}

function callsCount(counts: Map<FakeRoute, number>, deliveries: number): number {
  let total = 0;
  for (const count of counts.values()) total += count;
  return deliveries > 0 ? total / deliveries : 0;
}

function callsPerDelivery(counts: Map<FakeRoute, number>, deliveries: number): string {
  if (counts.size === 0) return 'none';
  const parts = [...counts].map(([route, count]) => `${route} ${(count / deliveries).toFixed(2)}`);
  return `${callsCount(counts, deliveries).toFixed(2)} (${parts.join(', ')})`;
}

function positive(name: string, fallback: number): number {
  const value = Number.parseInt(process.env[name] ?? '', 10);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

/** The child's IPC, one question at a time. */
class ServerProcess {
  private exited: Promise<never>;

  constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((_, reject) => {
      child.once('exit', (code, signal) =>
        reject(new Error(`bench/webhook-server.ts exited (${signal ?? code})`)),
      );
    });
    this.exited.catch(() => {});
  }

  /** Sends `message` and waits for the child's answer of type `expect`. */
  ask<T extends FromServer['type']>(message: ToServer, expect: T): Promise<Extract<FromServer, { type: T }>> {
    const answered = new Promise<Extract<FromServer, { type: T }>>((resolve, reject) => {
      const listener = (answer: FromServer) => {
        if (answer.type === 'failed') {
          this.child.off('message', listener);
          reject(new Error(`bench/webhook-server.ts: ${answer.message}`));
        } else if (answer.type === expect) {
          this.child.off('message', listener);
          resolve(answer as Extract<FromServer, { type: T }>);
        }
      };
      this.child.on('message', listener);
    });
    this.child.send(message);
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(
        () => reject(new Error(`no "${expect}" from bench/webhook-server.ts in 60 s`)),
        60_000,
      ).unref(),
    );
    return Promise.race([answered, this.exited, timeout]);
  }

  /** Asks the child to close its servers and waits (at most 5 s) for it to exit. */
  async stop(): Promise<void> {
    this.child.send({ type: 'stop' } satisfies ToServer);
    await Promise.race([
      this.exited.catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, 5_000).unref()),
    ]);
  }
}
