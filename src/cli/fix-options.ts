import { loopLimitsSchema } from '../loop/task.js';
import {
  MAX_ATTEMPTS_LIMIT,
  type OptionSpec,
  parseOptions,
  SHARED_OPTIONS,
  type SharedValues,
  sharedValues,
  UsageError,
} from './option-values.js';

export { UsageError };

/** `selfdebug fix` as typed; `undefined` means "not given: keep the environment's setting". */
export interface FixOptions extends SharedValues {
  /** Unset when the folder's .github/selfdebug.yml names the command. */
  command: string | undefined;
  dir: string;
  setup: string[];
  /** `FILE[:JOB]`: derive the environment from that workflow job, as the App does for a failed run. */
  workflow: string | undefined;
  description: string | undefined;
  patch: string | undefined;
  replay: string | undefined;
  record: string | undefined;
  /** Hosts setup may reach beyond the defaults (`--allow-host`, repeatable), trusted as the operator's. */
  allowHosts: string[];
  /** A PEM bundle every container trusts (SELFDEBUG_EXTRA_CA_CERTS). */
  caCerts: string | undefined;
  /** KEY=VALUE lines for setup only (SELFDEBUG_SETUP_ENV_FILE). */
  setupEnvFile: string | undefined;
}

export type FixRequest = { kind: 'help' } | { kind: 'run'; options: FixOptions };

const DEFAULT_LIMITS = loopLimitsSchema.parse({});

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
  "With no --image or sandbox.image, the image follows --workflow or the folder's toolchain files",
  '(package.json engines, .nvmrc, pyproject.toml, go.mod, …) through SELFDEBUG_TOOLCHAIN_IMAGES.',
  '',
  'Options:',
  '  --command CMD       The command that fails and must pass (default: `command` in the file)',
  '  --dir DIR           The folder with the code (default: the current folder)',
  '  --setup CMD         Installs what the command needs, e.g. "npm ci" (repeatable; replaces `setup`)',
  '  --workflow FILE[:JOB]  Derive image, setup and services from a workflow job, as the App does',
  '                      (the steps before the one that runs --command; JOB may be left out if there is one)',
  '  --description TEXT  What is wrong, in your words (default: "The command `CMD` fails.")',
  '  --sandbox KIND      docker (default, isolated) or local (unsafe: your user, your network)',
  '  --image IMAGE       The Docker image to run in, pulled if missing (SELFDEBUG_SANDBOX_IMAGE)',
  '  --allow-host HOST   A host setup may reach too, e.g. a registry mirror (repeatable; HOST or HOST:PORT)',
  '  --ca-certs FILE     PEM certificates setup and the command trust (SELFDEBUG_EXTRA_CA_CERTS)',
  '  --setup-env-file FILE  KEY=VALUE lines set for setup only, e.g. npm_config_registry (SELFDEBUG_SETUP_ENV_FILE)',
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
  'The folders of --patch and --record must exist; if writing fails at the end anyway, the file goes',
  'to a temporary folder and its path is printed.',
  'Exit codes: 0 fixed, 1 not fixed, 2 usage, configuration or environment error (a setup step or the',
  'command cannot run: command not found, a host refused), 130 cancelled (Ctrl-C).',
].join('\n');

const OPTIONS = {
  ...SHARED_OPTIONS,
  command: { type: 'string' },
  dir: { type: 'string' },
  setup: { type: 'string', multiple: true },
  workflow: { type: 'string' },
  description: { type: 'string' },
  patch: { type: 'string' },
  replay: { type: 'string' },
  record: { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  'ca-certs': { type: 'string' },
  'setup-env-file': { type: 'string' },
} as const satisfies Record<string, OptionSpec>;

const refuse = (message: string) => new UsageError(message, 'fix');

/** Turns the arguments after `fix` into options; pure, and every problem is a UsageError. */
export function parseFixOptions(argv: readonly string[]): FixRequest {
  const parsed = parseOptions(argv, OPTIONS, 'fix', refuse);
  if (parsed.help) return { kind: 'help' };
  if (parsed.positionals.length > 0) {
    throw new UsageError(
      `"fix" takes no arguments, got: ${parsed.positionals.join(' ')}. ` +
        'Quote the command as one value: --command "python3 main.py".',
    );
  }
  const { sandbox, ...shared } = sharedValues(parsed, refuse);
  return {
    kind: 'run',
    options: {
      command: parsed.text('command'),
      dir: parsed.text('dir') ?? '.',
      setup: parsed.list('setup'),
      workflow: parsed.text('workflow'),
      description: parsed.text('description'),
      sandbox,
      ...shared,
      patch: parsed.text('patch'),
      replay: parsed.text('replay'),
      record: parsed.text('record'),
      allowHosts: parsed.list('allow-host'),
      caCerts: parsed.text('ca-certs'),
      setupEnvFile: parsed.text('setup-env-file'),
    },
  };
}
