import { parseArgs } from 'node:util';

const CLI_COMMANDS = ['help', 'doctor', 'fix', 'eval', 'worker', 'excerpt', 'config'] as const;

export type CliRequest =
  | { kind: 'help' }
  | { kind: 'version' }
  /** `model`: `doctor --model`, which checks the model server instead of the Docker engine. */
  | { kind: 'doctor'; model?: true; github?: true }
  /** `config` reads its own arguments (`check [FILE]`): `argv` is everything after the word "config". */
  | { kind: 'config'; argv: string[] }
  /** `fix` reads its own options: `argv` is everything after the word "fix". */
  | { kind: 'fix'; argv: string[] }
  /** `eval` reads its own options: `argv` is everything after the word "eval". */
  | { kind: 'eval'; argv: string[] }
  /** `worker` reads its own options (only --help): `argv` is everything after the word "worker". */
  | { kind: 'worker'; argv: string[] }
  /** `excerpt` reads its own options: `argv` is everything after the word "excerpt". */
  | { kind: 'excerpt'; argv: string[] }
  /** The person typed something we cannot run; `message` says what and lists what we can. */
  | { kind: 'usage-error'; message: string };

export const USAGE = [
  'Usage: selfdebug <command> [options]',
  '',
  'Commands:',
  '  fix          Debug a failing command in a local folder: selfdebug fix --command "npm test"',
  '               (selfdebug fix --help lists its options)',
  '  eval         Score the loop against one-shot on a suite of tasks: selfdebug eval eval/tasks',
  '               (selfdebug eval --help lists its options)',
  '  excerpt      Print the lines of a CI log that explain its failure: selfdebug excerpt job.log',
  '               (selfdebug excerpt --help lists its options)',
  "  worker       Run the App's jobs from a shared queue (SELFDEBUG_QUEUE=sqlite or redis) until SIGTERM",
  '  doctor       Check everything a run needs, one line each with the fix: Docker engine, sandbox',
  '               image and limits, model server, GitHub App credentials, webhook secret, queue,',
  '               webhook proxy (exits 1 on any ✘)',
  '  doctor --github  The same, and make a GitHub installation token (needs GitHub on the network)',
  '  doctor --model   Check the model server in detail: tools, JSON Schema output, context length, speed',
  '  config check [FILE]  Validate .github/selfdebug.yml (default: ./.github/selfdebug.yml) and print',
  "               the effective configuration, with the operator's ceilings applied (exits 2 if invalid)",
  '  help         Show this help',
  '',
  'Options:',
  '  -h, --help     Show this help',
  '  -v, --version  Print the version',
].join('\n');

const VALID = `Valid commands: ${CLI_COMMANDS.join(', ')} (options: --help, --version).`;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** Commands that read their own options: the rest of argv is theirs. */
const OWN_OPTIONS = ['fix', 'eval', 'worker', 'excerpt', 'config'] as const;

/** What `doctor` checks besides the usual, by its flag. */
const DOCTOR_FLAGS = {
  '--github': { kind: 'doctor', github: true },
  '--model': { kind: 'doctor', model: true },
} as const satisfies Record<string, CliRequest>;

/** Turns argv (without node and the script) into what to run; never throws and never prints. */
export function parseArguments(argv: readonly string[]): CliRequest {
  // Before the general parse, which would take fix's own options for unknown ones.
  const [first, second] = argv;
  const own = OWN_OPTIONS.find((command) => command === first);
  if (own !== undefined) return { kind: own, argv: argv.slice(1) };
  if (first === 'doctor' && (second === '--github' || second === '--model')) {
    if (argv.length === 2) return { ...DOCTOR_FLAGS[second] };
    return {
      kind: 'usage-error',
      message: `"doctor ${second}" takes no arguments, got: ${argv.slice(2).join(' ')}`,
    };
  }
  // Lenient parsing plus our own check: strict mode's errors are long and only a message string.
  const { values, positionals, tokens } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const problem = optionProblem(tokens);
  if (problem !== null) return { kind: 'usage-error', message: problem };
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  return commandRequest(positionals);
}

type Token = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

/** The first option we do not know, or that was given a value. */
function optionProblem(tokens: readonly Token[]): string | null {
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (!Object.hasOwn(OPTIONS, token.name)) return `Unknown option "${token.rawName}". ${VALID}`;
    if (token.value !== undefined) return `Option "${token.rawName}" takes no value.`;
  }
  return null;
}

/** What the words left after the options ask for: help, or plain `doctor`. */
function commandRequest(positionals: readonly string[]): CliRequest {
  const [command, ...extra] = positionals;
  if (command === undefined || command === 'help') return { kind: 'help' };
  if (command !== 'doctor') {
    return { kind: 'usage-error', message: `Unknown command "${command}". ${VALID}` };
  }
  if (extra.length > 0) {
    return { kind: 'usage-error', message: `"doctor" takes no arguments, got: ${extra.join(' ')}` };
  }
  return { kind: 'doctor' };
}
