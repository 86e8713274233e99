import { z } from 'zod';
import { loopLimitsSchema } from '../loop/task.js';
import { modelConfigSchema } from './model-config.js';
import { strictSection } from './repo-config-keys.js';
import { sandboxConfigSchema } from './sandbox-config.js';

/**
 * The schema of `.github/selfdebug.yml`. Keys are snake_case because that is
 * how they are written in YAML, and the parsed type keeps them so: one
 * spelling from file to code, and the mappers in repo-config-mappers.ts are
 * the only place that translates. Every section is strict, so a typo such as
 * `max_atempts` is an error rather than a silently ignored setting.
 *
 * Sandbox and model settings have no defaults here on purpose: a key the
 * repository leaves out keeps the operator's value (SELFDEBUG_SANDBOX_*,
 * SELFDEBUG_MODEL_*), which a default in this file would hide.
 */

const commandSchema = z.string().trim().min(1, 'must not be empty');

/**
 * GitHub user logins; a leading `@` is forgiven. Bots are refused here because
 * the App never obeys them (two bots must not drive each other), so listing
 * one could only mislead.
 */
const loginSchema = z
  .string()
  .trim()
  .regex(
    /^@?[A-Za-z0-9][A-Za-z0-9-]{0,38}$/,
    'must be a GitHub user login such as "octocat" (bots cannot start jobs)',
  )
  // overwrite, not transform: the type stays a string, so the JSON Schema keeps the list's default.
  .overwrite((login) => login.replace(/^@/, ''));

const environmentNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name such as "NPM_TOKEN"');

const globListSchema = (description: string) =>
  z.array(z.string().trim().min(1, 'must not be empty')).default([]).meta({ description });

/** Only this machine may be spoken to in plain HTTP; anything remote needs TLS. */
function isLoopbackHostname(hostname: string): boolean {
  const lowered = hostname.toLowerCase();
  if (lowered === 'localhost' || lowered.endsWith('.localhost') || lowered === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(lowered);
}

const baseUrlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. "https://api.openai.com/v1"' })
  .refine((url) => new URL(url).protocol === 'https:' || isLoopbackHostname(new URL(url).hostname), {
    error: 'must use https (plain http is only allowed for localhost / 127.0.0.1)',
  });

const sandboxSchema = strictSection({
  image: z
    .string()
    .regex(/^\S+$/, 'must be an image reference without spaces, e.g. "python:3.12-slim"')
    .optional()
    .meta({
      description: "Container image the command runs in. Default: the App's SELFDEBUG_SANDBOX_IMAGE.",
    }),
  memory_mb: sandboxConfigSchema.shape.memoryMb
    .unwrap()
    .optional()
    .meta({ description: "Memory limit in MB, capped by the App's SELFDEBUG_MAX_MEMORY_MB." }),
  workspace_mb: sandboxConfigSchema.shape.workspaceMb.unwrap().optional().meta({
    description:
      "Most the workspace may hold (sources, what setup installed, what the command writes), in MB; capped by the App's SELFDEBUG_MAX_WORKSPACE_MB.",
  }),
  cpus: sandboxConfigSchema.shape.cpus.unwrap().optional().meta({ description: 'CPU share, e.g. 0.5 or 2.' }),
  pids_limit: sandboxConfigSchema.shape.pidsLimit
    .unwrap()
    .optional()
    .meta({ description: 'Most processes and threads alive at once in the container.' }),
  timeout_seconds: sandboxConfigSchema.shape.commandTimeoutSeconds
    .unwrap()
    .optional()
    .meta({ description: 'Time limit for each run of the command or a setup step, in seconds.' }),
  network: sandboxConfigSchema.shape.network.unwrap().optional().meta({
    description: '"none" (no network) or "host"; "host" only works when the App allows it.',
  }),
  allowed_hosts: z
    .array(
      z
        .string()
        .trim()
        .regex(
          /^(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$/,
          'must be a host name, optionally with *. in front or a :port after, e.g. "npm.pkg.github.com" or "*.example.org:443"',
        ),
    )
    .default([])
    .meta({
      description:
        "Hosts setup may reach through the App's proxy on top of the public package registries (within the App's limits).",
    }),
  cache_key_files: z
    .array(z.string().trim().min(1).max(512))
    .max(100)
    .default([])
    .meta({
      description:
        'Globs of further files setup reads (like hashFiles: "**" across folders, "*" within one), e.g. "tools/**". ' +
        'Their content joins the prepared environment’s key, so a change to one prepares it again.',
    }),
});

const budgetSchema = strictSection({
  max_tokens: z
    .int()
    .min(0)
    .default(0)
    .meta({ description: 'Most model tokens (input + output) one job may use; 0 means no limit.' }),
  max_cost_usd: z.number().min(0).default(0).meta({
    description: 'Most USD one job may spend on the model (needs prices set by the App); 0 means no limit.',
  }),
  max_minutes: z
    .number()
    .min(0)
    .max(24 * 60)
    .default(0)
    .meta({ description: 'Most wall-clock minutes one job may take; 0 means no limit.' }),
});

const modelSchema = strictSection({
  name: z
    .string()
    .trim()
    .min(1)
    .optional()
    .meta({ description: 'Model name, e.g. "gpt-4.1". Default: the App\'s SELFDEBUG_MODEL.' }),
  base_url: baseUrlSchema.optional().meta({
    description:
      'OpenAI-compatible server URL (https, or http for localhost only). Ignored unless the App allows it.',
  }),
  temperature: modelConfigSchema.shape.temperature
    .unwrap()
    .optional()
    .meta({ description: 'Sampling temperature, 0 to 2.' }),
  context_tokens: modelConfigSchema.shape.contextTokens.unwrap().optional().meta({
    description:
      "The model's context window in tokens; prompts are sized to fit it. Default: what the server reports (vLLM, llama.cpp, Ollama), else 16384.",
  }),
  max_output_tokens: modelConfigSchema.shape.maxOutputTokens.unwrap().optional().meta({
    description:
      'Most tokens in one answer (at most a quarter of the context is kept for it). Default: 4096.',
  }),
  structured_output: modelConfigSchema.shape.structuredOutput.unwrap().optional().meta({
    description:
      '"auto" (what the server supports, learned from its answers), or force "json_schema", "json_object" or "none" (the schema as an instruction).',
  }),
  tools: modelConfigSchema.shape.tools.unwrap().optional().meta({
    description: '"auto" (offer tools until the server refuses them), "on", or "off" (never offer tools).',
  }),
});

const workflowRunsSchema = strictSection({
  enabled: z.boolean().default(false).meta({ description: 'Debug failed workflow runs automatically.' }),
  workflows: globListSchema(
    'Workflow names, file paths or globs to watch (e.g. "CI", ".github/workflows/test.yml", "*.yml"); [] means all.',
  ),
  branches: globListSchema('Branch names or globs to watch (e.g. "main", "release/**"); [] means all.'),
  max_rounds: z
    .int()
    .min(1)
    .max(10)
    .default(3)
    .meta({ description: "Most automatic rounds on one of the App's own pull requests before it stops." }),
});

const triggersSchema = strictSection({
  mentions: z
    .boolean()
    .default(true)
    .meta({ description: 'Answer `@selfdebug` mentions in issues and PRs.' }),
  reviews: z.boolean().default(true).meta({ description: "Act on reviews of the App's own pull requests." }),
  workflow_runs: workflowRunsSchema.prefault({}).meta({ description: 'Failed GitHub Actions runs.' }),
});

const pullRequestSchema = strictSection({
  draft: z.boolean().default(true).meta({ description: 'Open pull requests as drafts.' }),
  labels: z
    .array(z.string().trim().min(1).max(50))
    .default([])
    .meta({ description: 'Labels added to every pull request.' }),
  push_branch_on_failure: z.boolean().default(false).meta({
    description: 'Push the last attempt to a branch even when nothing passed (no pull request is opened).',
  }),
  title_prefix: z
    .string()
    .max(100)
    .default('selfdebug: ')
    .meta({ description: 'Prefix of pull request titles.' }),
});

const reportSchema = strictSection({
  comments: z.enum(['per-attempt', 'single']).default('per-attempt').meta({
    description:
      '"per-attempt": a status comment plus one comment per attempt with its transcript (at most max_attempts + 2 comments per job); "single": every transcript inside the status comment, edited in place (at most 2 comments per job; long outputs are cut to fit GitHub\'s 65,536-character limit).',
  }),
});

/**
 * How long the App follows its fix's CI before it calls the verdict unknown,
 * or `off` never to wait on CI at all (docs/ci-verdict.md).
 */
const ciVerdictSchema = z
  .union([
    z.literal('off'),
    strictSection({
      wait_minutes: z
        .int()
        .min(1)
        .max(24 * 60)
        .default(60)
        .meta({ description: 'Minutes to wait for every workflow on the fix’s commit to finish.' }),
    }),
  ])
  .default({ wait_minutes: 60 });

export const repoConfigSchema = strictSection({
  _extends: z.string().optional().meta({
    description:
      'Another repository\'s file to inherit, e.g. "my-org/.github" or "other-repo:.github/selfdebug.yml"; resolved by Probot.',
  }),
  command: commandSchema.optional().meta({
    description:
      'The command whose success (exit code 0) proves the fix. Default: the failing CI step, or a script in the issue.',
  }),
  setup: z
    .array(commandSchema)
    .default([])
    .meta({ description: 'Commands run once before the first attempt, e.g. installing dependencies.' }),
  sandbox: sandboxSchema
    .prefault({})
    .meta({ description: "Container limits; unset keys keep the App's settings." }),
  max_attempts: loopLimitsSchema.shape.maxAttempts
    .unwrap()
    .default(5)
    .meta({ description: 'Most fix attempts per job, 1 to 20.' }),
  budget: budgetSchema.prefault({}).meta({ description: 'Per-job limits; a job stops when one is reached.' }),
  model: modelSchema
    .prefault({})
    .meta({ description: "Model settings; unset keys keep the App's settings." }),
  triggers: triggersSchema.prefault({}).meta({ description: 'What starts a job.' }),
  pull_request: pullRequestSchema.prefault({}).meta({ description: 'How fixes are delivered.' }),
  report: reportSchema.prefault({}).meta({ description: 'How a job reports on GitHub.' }),
  allowed_users: z.array(loginSchema).default([]).meta({
    description:
      'Logins that may trigger the App, on top of needing write access; [] means everyone with write access.',
  }),
  tests: loopLimitsSchema.shape.tests.unwrap().optional().meta({
    description:
      'What an attempt may do to tests, fixtures, CI workflows, the command and coverage thresholds: "protect" (the default: such an attempt is rejected and the model told why), "flag" (allowed, listed in the pull request and labelled), "allow". See docs/test-policy.md.',
  }),
  protected_paths: z.array(z.string().trim().min(1).max(512)).max(100).optional().meta({
    description:
      'Globs of further files the tests policy guards, e.g. "tests/golden/**" ("**" across folders, "*" within one).',
  }),
  ci_verdict: ciVerdictSchema.meta({
    description:
      'Follow the repository’s own CI on each fix the App pushes and record its verdict (passed, failed, unknown) on the pull request: `{ wait_minutes: N }` (default 60), or "off" never to wait on CI.',
  }),
  secret_env: z.array(environmentNameSchema).default([]).meta({
    description:
      'Environment variable names whose values are redacted from comments, logs and pull requests.',
  }),
}).meta({
  title: 'selfdebug repository configuration',
  description: 'Settings for the selfdebug GitHub App, read from .github/selfdebug.yml.',
});

/** The parsed file, every default filled in; keys as written in YAML. */
export type RepoConfig = z.output<typeof repoConfigSchema>;

/** What a repository without `.github/selfdebug.yml` gets; frozen, since it is shared. */
export const defaultRepoConfig: RepoConfig = deepFreeze(repoConfigSchema.parse({}));

function deepFreeze<Value>(value: Value): Value {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
