import { parseArgs } from 'node:util';
import { SelfdebugError } from '../errors/selfdebug-error.js';
import { loopLimitsSchema } from '../loop/task.js';

/** The person typed something `selfdebug fix` cannot run; the message says what to type instead. */
export class UsageError extends SelfdebugError {
  constructor(message: string) {
    super('usage', `${message}\nRun "selfdebug fix --help" for the options.`);
  }
}

export type SandboxChoice = 'docker' | 'local';

/** `selfdebug fix` as typed; `undefined` means "not given: keep the environment's setting". */
export interface FixOptions {
  /** Unset when the folder's .github/selfdebug.yml names the command. */
  command: string | undefined;
  dir: string;
  setup: string[];
  description: string | undefined;
  sandbox: SandboxChoice | undefined;
  image: string | undefined;
  maxAttempts: number | undefined;
  timeoutSeconds: number | undefined;
  model: string | undefined;
  baseUrl: string | undefined;
  patch: string | undefined;
  replay: string | undefined;
  record: string | undefined;
}

export type FixRequest = { kind: 'help' } | { kind: 'run'; options: FixOptions };

export const MAX_ATTEMPTS_LIMIT = 20;
const DEFAULT_LIMITS = loopLimitsSchema.parse({});
const MAX_TIMEOUT_SECONDS = 86_400;

export const FIX_USAGE = [
  'Usage: selfdebug fix [--command "<cmd>"] [options]',
  '',
  'Runs <cmd> in a sandbox over a copy of --dir, and while it fails asks the model for a fix,',
  'applies it in the sandbox and runs <cmd> again. Only a fix that makes <cmd> pass is written',
  'back: the changed files into --dir, or a patch into --patch FILE.',
  '',
  'Settings come from the flags, then --dir/.github/selfdebug.yml (command, setup, sandbox.image,',
  'sandbox.allowed_hosts, limits), then the environment. Setup runs first with the network only',
  'through an allowlisting proxy, and the prepared environment is cached for the next run.',
  '',
  'Options:',
  '  --command CMD       The command that fails and must pass (default: `command` in the file)',
  '  --dir DIR           The folder with the code (default: the current folder)',
  '  --setup CMD         Installs what the command needs, e.g. "npm ci" (repeatable; replaces `setup`)',
  '  --description TEXT  What is wrong, in your words (default: "The command `CMD` fails.")',
  '  --sandbox KIND      docker (default, isolated) or local (unsafe: your user, your network)',
  '  --image IMAGE       The Docker image to run in, pulled if missing (SELFDEBUG_SANDBOX_IMAGE)',
  `  --max-attempts N    Fix attempts, 1 to ${MAX_ATTEMPTS_LIMIT} (default ${DEFAULT_LIMITS.maxAttempts})`,
  '  --timeout SECONDS   Time limit for each run of a command (SELFDEBUG_SANDBOX_TIMEOUT_SECONDS)',
  '  --model NAME        The model (SELFDEBUG_MODEL)',
  '  --base-url URL      An OpenAI-compatible server (SELFDEBUG_MODEL_BASE_URL)',
  '  --patch FILE        Write the fix as a patch to FILE and leave --dir untouched',
  '  --replay FILE       Answer from a recorded session instead of a model server',
  '  --record FILE       Save the model answers of this run as a replay file',
  '  -h, --help          Show this help',
  '',
  'The API key comes from SELFDEBUG_MODEL_API_KEY or OPENAI_API_KEY.',
  'Exit codes: 0 fixed, 1 not fixed, 2 usage or configuration error, 130 cancelled (Ctrl-C).',
].join('\n');

const OPTIONS = {
  command: { type: 'string' },
  dir: { type: 'string' },
  setup: { type: 'string', multiple: true },
  description: { type: 'string' },
  sandbox: { type: 'string' },
  image: { type: 'string' },
  'max-attempts': { type: 'string' },
  timeout: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  patch: { type: 'string' },
  replay: { type: 'string' },
  record: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionName = keyof typeof OPTIONS;

/** Turns the arguments after `fix` into options; pure, and every problem is a UsageError. */
export function parseFixOptions(argv: readonly string[]): FixRequest {
  // Lenient parsing plus our own checks: strict mode's errors are long and only a message string.
  const { values, positionals, tokens } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    checkToken(token, seen);
  }
  if (values.help === true) return { kind: 'help' };
  if (positionals.length > 0) {
    throw new UsageError(
      `"fix" takes no arguments, got: ${positionals.join(' ')}. ` +
        'Quote the command as one value: --command "python3 main.py".',
    );
  }

  const text = (name: OptionName): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  const command = text('command');
  const setup = values.setup;
  return {
    kind: 'run',
    options: {
      command,
      dir: text('dir') ?? '.',
      setup: Array.isArray(setup) ? setup.filter((value) => typeof value === 'string') : [],
      description: text('description'),
      sandbox: sandboxChoice(text('sandbox')),
      image: text('image'),
      maxAttempts: maxAttempts(text('max-attempts')),
      timeoutSeconds: timeoutSeconds(text('timeout')),
      model: text('model'),
      baseUrl: baseUrl(text('base-url')),
      patch: text('patch'),
      replay: text('replay'),
      record: text('record'),
    },
  };
}

interface OptionToken {
  name: string;
  rawName: string;
  value?: string | undefined;
  inlineValue?: boolean | undefined;
}

function checkToken({ name, rawName, value, inlineValue }: OptionToken, seen: Set<string>): void {
  if (!Object.hasOwn(OPTIONS, name)) {
    throw new UsageError(`Unknown option "${rawName}" for "fix".`);
  }
  const option = OPTIONS[name as OptionName];
  if (option.type === 'boolean') {
    if (value !== undefined) throw new UsageError(`Option "${rawName}" takes no value.`);
    return;
  }
  if (value === undefined) throw new UsageError(`Option "--${name}" needs a value.`);
  // parseArgs takes the next word as the value even when it is another option: almost always a slip.
  // `--description=--model…` stays possible for the rare value that really starts like an option.
  const swallowed = inlineValue ? undefined : /^--([\w-]+)/.exec(value)?.[1];
  if (swallowed !== undefined && Object.hasOwn(OPTIONS, swallowed)) {
    throw new UsageError(`Option "--${name}" needs a value, but the next word is the option "${value}".`);
  }
  if (value.trim() === '') throw new UsageError(`Option "--${name}" needs a non-empty value.`);
  if (!('multiple' in option) && seen.has(name)) {
    throw new UsageError(`Option "--${name}" was given more than once; give it once (only --setup repeats).`);
  }
  seen.add(name);
}

function sandboxChoice(value: string | undefined): SandboxChoice | undefined {
  if (value === undefined || value === 'docker' || value === 'local') return value;
  throw new UsageError(`--sandbox must be "docker" or "local", got "${value}".`);
}

function maxAttempts(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const attempts = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(attempts >= 1 && attempts <= MAX_ATTEMPTS_LIMIT)) {
    throw new UsageError(
      `--max-attempts must be a whole number from 1 to ${MAX_ATTEMPTS_LIMIT}, got "${value}".`,
    );
  }
  return attempts;
}

function timeoutSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  // Strict on purpose: Number() would accept "1e3", "0x10" or " " and let NaN through elsewhere.
  const seconds = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds > 0 && seconds <= MAX_TIMEOUT_SECONDS)) {
    throw new UsageError(
      `--timeout must be a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}, got "${value}".`,
    );
  }
  return seconds;
}

function baseUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let protocol: string;
  try {
    protocol = new URL(value).protocol;
  } catch {
    protocol = '';
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new UsageError(
      `--base-url must be an http(s) URL such as "http://127.0.0.1:11434/v1", got "${value}".`,
    );
  }
  return value;
}
