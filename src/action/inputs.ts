import { z } from 'zod';
import type { Environment } from '../config/read-environment.js';

/**
 * The action's inputs, by their names in action.yml. The runner hands each
 * to the step as `INPUT_<NAME>` (upper-cased, spaces to underscores, hyphens
 * kept), so `api-key` arrives as `INPUT_API-KEY`. action.yml and this list
 * are kept equal by a test.
 */
export const ACTION_INPUTS = [
  'command',
  'api-key',
  'base-url',
  'model',
  'max-attempts',
  'budget-usd',
  'input-price',
  'output-price',
  'sandbox',
  'image',
  'deliver',
  'github-token',
  'trusted-bots',
  'allow-forks',
] as const;

export type ActionInputName = (typeof ACTION_INPUTS)[number];

export function inputVariable(name: ActionInputName): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

/** An input as the runner passes it: unset and blank are the same (action.yml defaults are already applied). */
function readInput(env: Environment, name: ActionInputName): string | undefined {
  const value = env[inputVariable(name)]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

const numberText = (what: string) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/, `must be a number, e.g. ${what}`)
    .transform(Number);

const inputsSchema = z.object({
  command: z.string().optional(),
  'api-key': z.string({
    error: `the model API key is missing: set \`api-key: \${{ secrets.OPENAI_API_KEY }}\` (or the secret holding your key) in the step's \`with:\``,
  }),
  'base-url': z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. "https://api.openai.com/v1"' })
    .optional(),
  model: z.string().optional(),
  'max-attempts': numberText('"5"').pipe(z.int().min(1).max(20, 'must be between 1 and 20')).optional(),
  'budget-usd': numberText('"0.50"').optional(),
  'input-price': numberText('"0.4"').optional(),
  'output-price': numberText('"1.6"').optional(),
  sandbox: z
    .enum(['docker', 'runner'], { error: 'must be "docker" (the default) or "runner"' })
    .default('docker'),
  image: z.string().optional(),
  deliver: z
    .enum(['pull-request', 'suggestions', 'none'], {
      error: 'must be "pull-request" (the default), "suggestions" or "none"',
    })
    .default('pull-request'),
  'github-token': z.string({
    error: `no GitHub token: set \`github-token: \${{ github.token }}\` (the default) or an App token`,
  }),
  'trusted-bots': z
    .string()
    .optional()
    .transform((text) => (text ?? '').split(/[\s,]+/).filter(Boolean)),
  'allow-forks': z
    .enum(['true', 'false'], { error: 'must be "true" or "false" (the default)' })
    .default('false')
    .transform((text) => text === 'true'),
});

/** What the runner itself sets for every step. */
const runnerSchema = z.object({
  GITHUB_WORKSPACE: z.string({
    error: 'GITHUB_WORKSPACE is not set: run this as a step of a GitHub Actions job',
  }),
  GITHUB_REPOSITORY: z
    .string({ error: 'GITHUB_REPOSITORY is not set: run this as a step of a GitHub Actions job' })
    .regex(/^[^/]+\/[^/]+$/, 'must be owner/name'),
  GITHUB_EVENT_NAME: z.string().default('push'),
  GITHUB_EVENT_PATH: z.string().optional(),
  GITHUB_RUN_ID: z.string().regex(/^\d+$/, 'must be a run id').transform(Number).optional(),
  GITHUB_RUN_ATTEMPT: z.string().regex(/^\d+$/).transform(Number).default(1),
  GITHUB_SHA: z
    .string()
    .regex(/^[0-9a-f]{40}$/, 'must be a commit sha')
    .optional(),
  GITHUB_REF: z.string().default(''),
  GITHUB_REPOSITORY_ID: z.string().regex(/^\d+$/, 'must be a repository id').optional(),
  GITHUB_HEAD_REF: z.string().optional(),
  GITHUB_JOB: z.string().optional(),
  GITHUB_WORKFLOW: z.string().default('workflow'),
  GITHUB_ACTOR: z.string().default(''),
  GITHUB_SERVER_URL: z.url().default('https://github.com'),
  GITHUB_API_URL: z.url().default('https://api.github.com'),
  GITHUB_STEP_SUMMARY: z.string().optional(),
  GITHUB_OUTPUT: z.string().optional(),
  RUNNER_TEMP: z.string().optional(),
  RUNNER_TOOL_CACHE: z.string().optional(),
  RUNNER_NAME: z.string().optional(),
});

export type ActionInputs = z.output<typeof inputsSchema>;
export type RunnerContext = z.output<typeof runnerSchema>;

export type ReadResult =
  | { ok: true; inputs: ActionInputs; runner: RunnerContext }
  | { ok: false; problems: string[] };

/** Every problem at once, each naming the input or variable to set, so one edit of the workflow fixes them all. */
export function readActionEnvironment(env: Environment): ReadResult {
  const raw = Object.fromEntries(ACTION_INPUTS.map((name) => [name, readInput(env, name)]));
  const inputs = inputsSchema.safeParse(raw);
  const runner = runnerSchema.safeParse(blankless(env, Object.keys(runnerSchema.shape)));
  const problems = [
    ...(inputs.success
      ? []
      : inputs.error.issues.map((issue) => `input \`${issue.path.join('.')}\`: ${issue.message}`)),
    ...(runner.success
      ? []
      : runner.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)),
  ];
  if (!inputs.success || !runner.success) return { ok: false, problems };
  return { ok: true, inputs: inputs.data, runner: runner.data };
}

function blankless(env: Environment, names: string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') picked[name] = value;
  }
  return picked;
}
