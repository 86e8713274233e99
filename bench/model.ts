import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LocalSandboxProvider } from '../src/adapters/local/local-sandbox-provider.js';
import { createLanguageModel, ServerProfiles } from '../src/adapters/openai/index.js';
import { parseSandboxConfig } from '../src/config/load-config.js';
import { parseModelConfig } from '../src/config/model-config.js';
import { runLoop } from '../src/loop/run-loop.js';
import { loopLimitsSchema } from '../src/loop/task.js';
import type { LanguageModel } from '../src/model/language-model.js';
import { estimateTokens, type FakeModelServer } from '../test/fakes/model-servers/shared.js';
import { startSlowFake } from '../test/fakes/model-servers/slow.js';
import { startVllmFake } from '../test/fakes/model-servers/vllm.js';
import { markdownTable } from './stats.js';

/**
 * Two questions about real model servers:
 * 1. Time: how long a slow local model (10 s to the first token, then 5 tokens/s,
 *    a 600-token answer: 130 s of honest work) costs with the old adapter (one
 *    non-streaming request bounded by one fixed timeout, retried with backoff)
 *    and with the new one (streaming, bounded by idleness plus a total cap).
 *    Every duration is scaled down 100× so the bench takes seconds; the table
 *    shows them scaled back up. The old adapter is gone from the code, so its
 *    timing is reconstructed here: same request, same timeout, same retries.
 * 2. Size: the largest request the loop sends to a 4k-context vLLM server,
 *    with the old fixed 16k prompt budget and with the budget derived from the
 *    window the server reports.
 */
const SCALE = 50;
const MODEL = 'slow-local-model';
const FIRST_TOKEN_S = 10;
const SECONDS_PER_TOKEN = 0.2;
const TOKENS = 600;
const OLD_BACKOFF_S = [0.5, 1, 2, 4];
const RETRIES = 4;

interface Outcome {
  ok: boolean;
  requests: number;
  /** Real-world seconds (scaled back up). */
  elapsed: number;
  wasted: number;
}

export async function benchModel(): Promise<string> {
  const timeRows: (string | number)[][] = [];
  for (const scenario of [
    { name: 'slow but healthy', stallAfterTokens: undefined },
    { name: 'stalls after 50 tokens once', stallAfterTokens: 50 },
  ]) {
    for (const client of [
      { name: 'old: no streaming, fixed 120 s timeout', run: (url: string) => oldCall(url, 120) },
      { name: 'old, timeout raised to 300 s', run: (url: string) => oldCall(url, 300) },
      { name: 'new: streaming, idle 90 s, cap 600 s', run: (url: string) => newCall(url) },
    ]) {
      const server = await startSlowFake({
        firstTokenMs: (FIRST_TOKEN_S * 1000) / SCALE,
        msPerToken: (SECONDS_PER_TOKEN * 1000) / SCALE,
        tokens: TOKENS,
        ...(scenario.stallAfterTokens ? { stallAfterTokens: scenario.stallAfterTokens } : {}),
      });
      try {
        const outcome = await client.run(server.url);
        outcome.requests = server.chatBodies().length;
        timeRows.push([
          scenario.name,
          client.name,
          outcome.ok ? 'answer' : 'no answer (job fails)',
          outcome.requests,
          `${outcome.elapsed.toFixed(0)} s`,
          `${outcome.wasted.toFixed(0)} s`,
        ]);
      } finally {
        await server.close();
      }
    }
  }

  const sizeRows = [
    await fourK('old: fixed 16k prompt budget', false),
    await fourK('new: budget from the window', true),
  ];

  return [
    '## Model servers (`bench/model.ts`)',
    '',
    `A slow local model: ${FIRST_TOKEN_S} s to the first token, then ${1 / SECONDS_PER_TOKEN} tokens/s for a ` +
      `${TOKENS}-token answer (${FIRST_TOKEN_S + TOKENS * SECONDS_PER_TOKEN} s of work). Times run ${SCALE}× faster ` +
      'than shown (the server, the timeouts and the backoff alike) and are scaled back up; tokens are sent on a fixed schedule, so timer ' +
      'granularity barely stretches the work. The old adapter sent one non-streaming request with one ' +
      `timeout and retried ${RETRIES} times with backoff (${OLD_BACKOFF_S.join(', ')} s); "wasted" is time spent ` +
      'on requests that were cut off, plus the waits between them.',
    '',
    markdownTable(['server', 'client', 'outcome', 'requests', 'time to outcome', 'wasted'], timeRows),
    '',
    'The old single timeout has to be both longer than the slowest healthy answer and short enough to notice a ' +
      'stall; at 5 tokens/s no value does both. Idleness separates the two.',
    '',
    'A vLLM server with `max_model_len` 4096 (it refuses a request whose prompt plus `max_tokens` exceeds that, ' +
      'counted here as the fake counts: 4 characters a token), and a command printing 4,000 different error lines (~220 KB); three attempts, with tools.',
    '',
    markdownTable(
      [
        'prompt budget',
        'requests',
        'refused by the server',
        'largest prompt + max_tokens',
        'fits 4096',
        'run outcome',
      ],
      sizeRows,
    ),
  ].join('\n');
}

/** The old adapter's timing: a non-streaming request, one timeout, retries with exponential backoff. */
async function oldCall(url: string, timeoutSeconds: number): Promise<Outcome> {
  const started = performance.now();
  let wasted = 0;
  for (let attempt = 0; attempt <= RETRIES; attempt++) {
    const tryStarted = performance.now();
    try {
      const response = await fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Fix it.' }] }),
        signal: AbortSignal.timeout((timeoutSeconds * 1000) / SCALE),
      });
      await response.json();
      return { ok: true, requests: attempt + 1, elapsed: scaled(performance.now() - started), wasted };
    } catch {
      wasted += scaled(performance.now() - tryStarted);
      if (attempt === RETRIES) break;
      const backoff = OLD_BACKOFF_S[attempt] ?? 8;
      await sleep((backoff * 1000) / SCALE);
      wasted += backoff;
    }
  }
  return { ok: false, requests: RETRIES + 1, elapsed: scaled(performance.now() - started), wasted };
}

async function newCall(url: string): Promise<Outcome> {
  const started = performance.now();
  // Everything before the last try (the tries cut off, the waits between them) is waste.
  let lastTryStarted = started;
  const model = createLanguageModel(
    parseModelConfig({
      baseUrl: url,
      model: MODEL,
      contextTokens: 8192,
      idleTimeoutSeconds: 90 / SCALE,
      timeoutSeconds: 600 / SCALE,
      maxRetries: RETRIES,
    }),
    {
      profiles: new ServerProfiles(),
      random: () => 0,
      sleep: async (milliseconds, signal) => {
        await sleep(milliseconds / SCALE, undefined, signal ? { signal } : undefined);
        lastTryStarted = performance.now();
      },
    },
  );
  try {
    await model.complete({ purpose: 'generate', messages: [{ role: 'user', content: 'Fix it.' }] });
    return {
      ok: true,
      requests: 0,
      elapsed: scaled(performance.now() - started),
      wasted: scaled(lastTryStarted - started),
    };
  } catch {
    const elapsed = scaled(performance.now() - started);
    return { ok: false, requests: 0, elapsed, wasted: elapsed };
  }
}

/** The loop against a 4k vLLM server: every request it sends, and whether the server took it. */
async function fourK(name: string, useWindow: boolean): Promise<(string | number)[]> {
  const maxModelLen = 4096;
  const server: FakeModelServer = await startVllmFake({ maxModelLen, autoToolChoice: true });
  const workspace = await mkdtemp(join(tmpdir(), 'bench-model-'));
  await writeFile(join(workspace, 'README.md'), `# Build\n${'Run build.sh to compile. '.repeat(2000)}\n`);
  await writeFile(
    join(workspace, 'build.sh'),
    // Every line different, so no excerpting or de-duplication can shrink it: only the budget can.
    'seq 1 4000 | awk \'{ print "src/module" $1 ".c:" $1 ": error: unknown type name t" $1 " (did you mean int?)" }\' >&2\n' +
      'echo "src/app.c:42: error: expected ; before }" >&2\nexit 1\n',
  );
  const provider = new LocalSandboxProvider(parseSandboxConfig({ kind: 'local' }), {
    host: process.env,
    warn: () => {},
  });
  const sandbox = await provider.open({ jobId: `bench-model-${useWindow}`, workspace });
  try {
    const real = createLanguageModel(
      parseModelConfig({
        baseUrl: server.url,
        model: 'Qwen/Qwen2.5-Coder-7B-Instruct',
        maxRetries: 0,
        // The old adapter sent no max_tokens; 64 stands in for "none" so only the prompt decides.
        ...(useWindow ? {} : { maxOutputTokens: 64, contextTokens: 1_000_000 }),
      }),
      { profiles: new ServerProfiles() },
    );
    // Without window() the loop keeps its fixed budget, as it did before.
    const model: LanguageModel = useWindow
      ? real
      : { model: real.model, complete: (request) => real.complete(request), toolsEnabled: true };
    const result = await runLoop({
      task: { description: 'The build fails.', command: 'bash build.sh' },
      limits: loopLimitsSchema.parse({ maxAttempts: 3, maxToolCallsPerAttempt: 3 }),
      model,
      sandbox,
    });
    const sizes = server
      .chatBodies()
      .map(
        (body) =>
          estimateTokens(body.messages) +
          estimateTokens(body.tools ?? []) +
          (body.max_tokens ?? body.max_completion_tokens ?? 16),
      );
    const refused = sizes.filter((size) => size > maxModelLen).length;
    const largest = Math.max(...sizes);
    return [
      name,
      sizes.length,
      refused,
      largest.toLocaleString('en-US'),
      largest <= maxModelLen ? 'yes' : 'no',
      result.outcome,
    ];
  } finally {
    await sandbox.dispose();
    await server.close();
    await rm(workspace, { recursive: true, force: true });
  }
}

function scaled(milliseconds: number): number {
  return (milliseconds * SCALE) / 1000;
}
