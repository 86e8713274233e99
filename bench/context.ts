import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSandboxProvider } from '../src/adapters/local/local-sandbox-provider.js';
import { parseSandboxConfig } from '../src/config/load-config.js';
import type { LoopEvent } from '../src/loop/events.js';
import { runLoop } from '../src/loop/run-loop.js';
import { loopLimitsSchema } from '../src/loop/task.js';
import { estimateTokens } from '../src/loop/tokens.js';
import { type ScriptedAnswer, ScriptedModel } from '../src/model/scripted-model.js';
import { markdownTable } from './stats.js';

/**
 * The largest prompt of a 10-attempt run whose command prints 5 MB each
 * time, beside what an unbounded history (every earlier message resent
 * whole, as AutoGen's default context does) would have sent for the same call.
 */
const ATTEMPTS = 10;
const OUTPUT_BYTES = 5_000_000;
const BUDGET = 16_000;

export async function benchContext(): Promise<string> {
  const workspace = await mkdtemp(join(tmpdir(), 'bench-context-'));
  await writeFile(
    join(workspace, 'build.sh'),
    `yes "compiling module with a long line of build noise, warnings and progress" | head -c ${OUTPUT_BYTES}\n` +
      'echo "src/app.c:42: error: expected ; before }" >&2\nexit 1\n',
  );
  const provider = new LocalSandboxProvider(
    parseSandboxConfig({ kind: 'local', maxOutputBytes: OUTPUT_BYTES + 100_000 }),
    { host: process.env, warn: () => {} },
  );
  const answers: ScriptedAnswer[] = [];
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    answers.push(
      ScriptedModel.json({
        analysis: `attempt ${attempt}: adjust the build`,
        edits: [{ path: `notes/attempt${attempt}.txt`, search: '', replace: `try ${attempt}\n`.repeat(200) }],
      }),
    );
    if (attempt < ATTEMPTS) answers.push(ScriptedModel.json({ retry: true, reason: 'try another flag' }));
  }
  answers.push(
    ScriptedModel.json({ summary: 's', rootCause: 'r', changes: 'c', confidence: 'low', risks: [] }),
  );
  const sandbox = await provider.open({ jobId: 'bench-context', workspace });
  const started = performance.now();
  try {
    const result = await runLoop({
      task: { description: 'The build fails.', command: 'bash build.sh' },
      limits: loopLimitsSchema.parse({ maxAttempts: ATTEMPTS, promptTokenBudget: BUDGET }),
      model: new ScriptedModel(answers),
      sandbox,
    });
    const seconds = (performance.now() - started) / 1000;
    const rows = promptSizes(result.events).map((row) => [
      row.call,
      row.ours.toLocaleString('en-US'),
      row.unbounded.toLocaleString('en-US'),
      `${(row.unbounded / row.ours).toFixed(0)}×`,
    ]);
    const largest = Math.max(...promptSizes(result.events).map((row) => row.ours));
    const largestUnbounded = Math.max(...promptSizes(result.events).map((row) => row.unbounded));
    return [
      '## Context (`bench/context.ts`)',
      '',
      `A scripted run of ${ATTEMPTS} attempts whose command prints ${OUTPUT_BYTES / 1e6} MB each time ` +
        `(outcome: ${result.outcome}, ${seconds.toFixed(1)} s). Prompt sizes are estimated tokens (4 characters each); ` +
        '"unbounded" is what the same call would send if every earlier message were kept whole.',
      '',
      markdownTable(['model call', 'our prompt', 'unbounded history', 'unbounded ÷ ours'], rows),
      '',
      `Largest prompt: ${largest.toLocaleString('en-US')} tokens against a budget of ${BUDGET.toLocaleString('en-US')} — ` +
        `${largest <= BUDGET ? 'within budget' : 'OVER BUDGET'}; unbounded: ${largestUnbounded.toLocaleString('en-US')} tokens.`,
    ].join('\n');
  } finally {
    await sandbox.dispose();
    await rm(workspace, { recursive: true, force: true });
  }
}

/** For each model call, our prompt estimate and the unbounded history's size at that point. */
function promptSizes(events: LoopEvent[]): { call: string; ours: number; unbounded: number }[] {
  const rows: { call: string; ours: number; unbounded: number }[] = [];
  let history = 0;
  for (const event of events) {
    if (event.type === 'started')
      history += estimateTokens(event.task.description + event.task.command) + 400;
    if (event.type === 'reproduced')
      history += event.runs.reduce((sum, run) => sum + estimateTokens(run.output), 0);
    if (event.type === 'executed') history += estimateTokens(event.result.output);
    if (event.type === 'edits-applied') history += estimateTokens(event.diff);
    if (event.type === 'model-responded') {
      rows.push({
        call: `${event.purpose}${event.attempt ? ` #${event.attempt}` : ''}`,
        ours: event.promptTokensEstimate,
        unbounded: history,
      });
      history += estimateTokens(event.content ?? '');
    }
  }
  return rows;
}
