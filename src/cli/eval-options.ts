import { QUIXBUGS_DEFAULT_PATH } from '../eval/quixbugs.js';
import { SCRIPTED_KINDS, type ScriptedKind } from '../eval/scripted-models.js';
import { loopLimitsSchema } from '../loop/task.js';
import {
  MAX_ATTEMPTS_LIMIT,
  type OptionSpec,
  parseOptions,
  SHARED_OPTIONS,
  type SharedValues,
  sharedValues,
  UsageError,
  wholeNumber,
} from './option-values.js';

/** The person typed something `selfdebug eval` cannot run; the message says what to type instead. */
export class EvalUsageError extends UsageError {
  constructor(message: string) {
    super(message, 'eval');
  }
}

/** `selfdebug eval` as typed; `undefined` means "not given: keep the environment's setting". */
export interface EvalOptions extends SharedValues {
  dir: string;
  out: string | undefined;
  fresh: boolean;
  tasks: string[];
  concurrency: number;
  baseline: boolean;
  /** One-shot also sampled to the loop's tokens (docs/eval.md#at-equal-cost); only with the baseline. */
  equalBudget: boolean;
  scripted: ScriptedKind | undefined;
}

export type EvalRequest = { kind: 'help' } | { kind: 'run'; options: EvalOptions };

const MAX_CONCURRENCY = 32;
const DEFAULT_LIMITS = loopLimitsSchema.parse({});

export const EVAL_USAGE = [
  'Usage: selfdebug eval DIR [options]',
  '',
  'Runs every task of a suite through the self-debugging loop and, in the same run, through a',
  'one-shot baseline (one attempt, no retry decision, no reflection), each task in its own fresh',
  'sandbox, and writes a table of fixed / attempts / tokens / cost / time per task with the fix',
  'rate of the loop against one-shot: Markdown (also printed) and JSON.',
  '',
  'DIR is a folder of tasks (NAME/task.yml + NAME/broken/ + NAME/fixed/, e.g. eval/tasks) or',
  `the QuixBugs folder (e.g. ${QUIXBUGS_DEFAULT_PATH}). The format is in docs/eval.md.`,
  '',
  'Results are saved after each task; running the same command again skips the tasks done.',
  '',
  'Options:',
  '  --out DIR           Where results.json and results.md go (default: eval-results/<suite>)',
  '  --fresh             Forget earlier results in --out and run every task again',
  '  --task NAME         Only this task (repeatable)',
  '  --concurrency N     Tasks run at once, each in its own sandbox (default 1)',
  '  --no-baseline       Skip the one-shot baseline',
  "  --no-equal-budget   Skip one-shot sampled to the loop's tokens (it may cost as much as the loop)",
  `  --scripted KIND     No model server: ${SCRIPTED_KINDS.join(', ')} (built from each task's known fix)`,
  '  --sandbox KIND      docker (default, isolated) or local (unsafe: your user, your network)',
  '  --image IMAGE       The Docker image the tasks run in (SELFDEBUG_SANDBOX_IMAGE)',
  `  --max-attempts N    The loop's attempts per task, 1 to ${MAX_ATTEMPTS_LIMIT} (default ${DEFAULT_LIMITS.maxAttempts})`,
  "  --timeout SECONDS   Time limit of each run of a command, instead of each task's own",
  '  --model NAME        The model (SELFDEBUG_MODEL)',
  '  --base-url URL      An OpenAI-compatible server (SELFDEBUG_MODEL_BASE_URL)',
  '  -h, --help          Show this help',
  '',
  'The API key comes from SELFDEBUG_MODEL_API_KEY or OPENAI_API_KEY; prices (USD per million',
  'tokens, for the cost column) from SELFDEBUG_MODEL_PRICE_INPUT and SELFDEBUG_MODEL_PRICE_OUTPUT.',
  'Exit codes: 0 the eval ran (whatever the score), 1 it could not run, 2 usage or configuration',
  'error, 130 cancelled (Ctrl-C; the results so far are kept).',
].join('\n');

const OPTIONS = {
  ...SHARED_OPTIONS,
  out: { type: 'string' },
  fresh: { type: 'boolean' },
  task: { type: 'string', multiple: true },
  concurrency: { type: 'string' },
  'no-baseline': { type: 'boolean' },
  'no-equal-budget': { type: 'boolean' },
  scripted: { type: 'string' },
} as const satisfies Record<string, OptionSpec>;

const refuse = (message: string) => new EvalUsageError(message);

/** Turns the arguments after `eval` into options; pure, and every problem is an EvalUsageError. */
export function parseEvalOptions(argv: readonly string[]): EvalRequest {
  const parsed = parseOptions(argv, OPTIONS, 'eval', refuse);
  if (parsed.help) return { kind: 'help' };
  const [dir, ...extra] = parsed.positionals;
  if (dir === undefined) {
    throw new EvalUsageError(
      `Missing the suite folder: selfdebug eval eval/tasks, or selfdebug eval ${QUIXBUGS_DEFAULT_PATH}.`,
    );
  }
  if (extra.length > 0) throw new EvalUsageError(`"eval" takes one folder, got also: ${extra.join(' ')}.`);
  const scripted = parsed.text('scripted');
  if (scripted !== undefined && !isScriptedKind(scripted)) {
    throw new EvalUsageError(`--scripted must be one of ${SCRIPTED_KINDS.join(', ')}, got "${scripted}".`);
  }
  const { sandbox, ...shared } = sharedValues(parsed, refuse);
  if (scripted !== undefined && (shared.model !== undefined || parsed.text('base-url') !== undefined)) {
    throw new EvalUsageError('--scripted needs no model server: leave out --model and --base-url.');
  }
  const concurrencyRange = { min: 1, max: MAX_CONCURRENCY };
  return {
    kind: 'run',
    options: {
      dir,
      out: parsed.text('out'),
      fresh: parsed.flag('fresh'),
      tasks: parsed.list('task'),
      concurrency: wholeNumber('--concurrency', parsed.text('concurrency'), concurrencyRange, refuse) ?? 1,
      baseline: !parsed.flag('no-baseline'),
      equalBudget: !parsed.flag('no-equal-budget'),
      scripted,
      sandbox,
      ...shared,
    },
  };
}

function isScriptedKind(value: string): value is ScriptedKind {
  return (SCRIPTED_KINDS as readonly string[]).includes(value);
}
