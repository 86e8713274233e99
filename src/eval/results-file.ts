import { readFile, rename, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { ConfigError } from '../errors/index.js';

/**
 * The eval's results as JSON, rewritten after every task so an interrupted
 * run resumes where it stopped. `run` says what produced them: a rerun with
 * another model or limits must not mix its rows into these.
 */
const spendSchema = z.object({
  promptTokens: z.int().min(0),
  completionTokens: z.int().min(0),
  totalTokens: z.int().min(0),
  costUsd: z.number().min(0),
});

const modeResultSchema = z.object({
  fixed: z.boolean(),
  /** The loop's outcome: fixed, not-fixed, declined, environment, error… */
  outcome: z.string(),
  reason: z.string(),
  attempts: z.int().min(0),
  spend: spendSchema,
  durationMs: z.number().min(0),
});

const taskResultSchema = z.object({
  name: z.string().min(1),
  language: z.string(),
  loop: modeResultSchema,
  /** Absent when the run was made with --no-baseline. */
  oneShot: modeResultSchema.optional(),
  /**
   * One-shot sampled afresh until a sample passed or the samples spent the
   * loop's tokens (`attempts` counts the samples). Absent with --no-baseline,
   * and in results written before it existed.
   */
  oneShotEqualBudget: modeResultSchema.optional(),
  finishedAt: z.string(),
});

const runIdentitySchema = z.object({
  suite: z.string(),
  source: z.string(),
  model: z.string(),
  maxAttempts: z.int().min(1),
  sandbox: z.string(),
  baseline: z.boolean(),
});

export const resultsFileSchema = z.object({
  version: z.literal(1),
  run: runIdentitySchema,
  startedAt: z.string(),
  updatedAt: z.string(),
  tasks: z.array(taskResultSchema),
});

export type ModeResult = z.infer<typeof modeResultSchema>;
export type TaskResult = z.infer<typeof taskResultSchema>;
export type RunIdentity = z.infer<typeof runIdentitySchema>;
export type ResultsFile = z.infer<typeof resultsFileSchema>;

/** The results of an earlier run, or null when there are none yet. */
export async function readResults(path: string): Promise<ResultsFile | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(path, `✖ not valid JSON (${(error as Error).message}); rerun with --fresh`);
  }
  const parsed = resultsFileSchema.safeParse(data);
  if (!parsed.success) {
    throw new ConfigError(path, `${z.prettifyError(parsed.error)}\n(rerun with --fresh to start over)`);
  }
  return parsed.data;
}

/** Written beside and renamed over, so a kill mid-write never leaves half a file to resume from. */
export async function writeResults(path: string, results: ResultsFile): Promise<void> {
  const partial = `${path}.partial`;
  await writeFile(partial, `${JSON.stringify(results, null, 2)}\n`);
  await rename(partial, path);
}

/** The first setting that differs, or null when both runs asked for the same thing. */
export function identityMismatch(stored: RunIdentity, current: RunIdentity): string | null {
  for (const key of Object.keys(current) as (keyof RunIdentity)[]) {
    if (stored[key] !== current[key]) {
      return `${key} was ${JSON.stringify(stored[key])}, now ${JSON.stringify(current[key])}`;
    }
  }
  return null;
}
