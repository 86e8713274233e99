import { parseArgs } from 'node:util';
import { SelfdebugError } from '../errors/index.js';

/** The person typed something a command cannot run; the message says what to type instead. */
export class UsageError extends SelfdebugError {
  constructor(message: string, command = 'fix') {
    super('usage', `${message}\nRun "selfdebug ${command} --help" for the options.`);
  }
}

/*
 * What `fix` and `eval` check the same way: the options as typed (parseArgs
 * runs lenient, so these checks are the strict part) and the values shared
 * by both commands. Each takes the error to throw, so a message ends with
 * the right command's help.
 */

export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
}

interface OptionToken {
  kind: string;
  name?: string;
  rawName?: string;
  value?: string | undefined;
  inlineValue?: boolean | undefined;
}

type Refuse = (message: string) => Error;

/** Unknown options, missing, empty or swallowed values, and options given twice that do not repeat. */
function checkOptionTokens(
  tokens: readonly OptionToken[],
  options: Record<string, OptionSpec>,
  command: string,
  refuse: Refuse,
): void {
  const seen = new Set<string>();
  const repeatable = Object.keys(options).filter((name) => options[name]?.multiple);
  for (const { kind, name = '', rawName = name, value, inlineValue } of tokens) {
    if (kind !== 'option') continue;
    const option = Object.hasOwn(options, name) ? options[name] : undefined;
    if (!option) throw refuse(`Unknown option "${rawName}" for "${command}".`);
    if (option.type === 'boolean') {
      if (value !== undefined) throw refuse(`Option "${rawName}" takes no value.`);
      continue;
    }
    if (value === undefined) throw refuse(`Option "--${name}" needs a value.`);
    // parseArgs takes the next word as the value even when it is another option: almost always a slip.
    // `--description=--model…` stays possible for the rare value that really starts like an option.
    const swallowed = inlineValue ? undefined : /^--([\w-]+)/.exec(value)?.[1];
    if (swallowed !== undefined && Object.hasOwn(options, swallowed)) {
      throw refuse(`Option "--${name}" needs a value, but the next word is the option "${value}".`);
    }
    if (value.trim() === '') throw refuse(`Option "--${name}" needs a non-empty value.`);
    if (!option.multiple && seen.has(name)) {
      const repeats = repeatable.map((entry) => `--${entry}`).join(', ');
      throw refuse(`Option "--${name}" was given more than once; give it once (only ${repeats} repeats).`);
    }
    seen.add(name);
  }
}

export function wholeNumber(
  flag: string,
  value: string | undefined,
  range: { min: number; max: number },
  refuse: Refuse,
): number | undefined {
  if (value === undefined) return undefined;
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= range.min && number <= range.max)) {
    throw refuse(`${flag} must be a whole number from ${range.min} to ${range.max}, got "${value}".`);
  }
  return number;
}

const MAX_TIMEOUT_SECONDS = 86_400;

function timeoutSeconds(value: string | undefined, refuse: Refuse): number | undefined {
  if (value === undefined) return undefined;
  // Strict on purpose: Number() would accept "1e3", "0x10" or " " and let NaN through elsewhere.
  const seconds = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds > 0 && seconds <= MAX_TIMEOUT_SECONDS)) {
    throw refuse(
      `--timeout must be a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}, got "${value}".`,
    );
  }
  return seconds;
}

function baseUrl(value: string | undefined, refuse: Refuse): string | undefined {
  if (value === undefined) return undefined;
  let protocol = '';
  try {
    protocol = new URL(value).protocol;
  } catch {}
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw refuse(`--base-url must be an http(s) URL such as "http://127.0.0.1:11434/v1", got "${value}".`);
  }
  return value;
}

type SandboxChoice = 'docker' | 'local';

function sandboxChoice(value: string | undefined, refuse: Refuse): SandboxChoice | undefined {
  if (value === undefined || value === 'docker' || value === 'local') return value;
  throw refuse(`--sandbox must be "docker" or "local", got "${value}".`);
}

export const MAX_ATTEMPTS_LIMIT = 20;

/** The options `fix` and `eval` share, meaning the same in both. */
export const SHARED_OPTIONS = {
  sandbox: { type: 'string' },
  image: { type: 'string' },
  'max-attempts': { type: 'string' },
  timeout: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Record<string, OptionSpec>;

/** A command's arguments, checked, and read by option name. */
export interface ParsedOptions<Name extends string> {
  positionals: string[];
  help: boolean;
  text(name: Name): string | undefined;
  flag(name: Name): boolean;
  /** Every value of a repeatable option, in the order given. */
  list(name: Name): string[];
}

/** Lenient parsing plus our own checks: strict mode's errors are long and only a message string. */
export function parseOptions<Options extends Record<string, OptionSpec>>(
  argv: readonly string[],
  options: Options,
  command: string,
  refuse: Refuse,
): ParsedOptions<Extract<keyof Options, string>> {
  const parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: false, tokens: true });
  checkOptionTokens(parsed.tokens, options, command, refuse);
  const values: Record<string, unknown> = parsed.values;
  return {
    positionals: parsed.positionals,
    help: values.help === true,
    text: (name) => {
      const value = values[name];
      return typeof value === 'string' ? value : undefined;
    },
    flag: (name) => values[name] === true,
    list: (name) => {
      const value = values[name];
      return Array.isArray(value) ? value.filter((entry) => typeof entry === 'string') : [];
    },
  };
}

/** The values of SHARED_OPTIONS; `undefined` means "not given: keep the environment's setting". */
export interface SharedValues {
  sandbox: SandboxChoice | undefined;
  image: string | undefined;
  maxAttempts: number | undefined;
  timeoutSeconds: number | undefined;
  model: string | undefined;
  baseUrl: string | undefined;
}

export function sharedValues(
  parsed: ParsedOptions<keyof typeof SHARED_OPTIONS>,
  refuse: Refuse,
): SharedValues {
  const attemptsRange = { min: 1, max: MAX_ATTEMPTS_LIMIT };
  return {
    sandbox: sandboxChoice(parsed.text('sandbox'), refuse),
    image: parsed.text('image'),
    maxAttempts: wholeNumber('--max-attempts', parsed.text('max-attempts'), attemptsRange, refuse),
    timeoutSeconds: timeoutSeconds(parsed.text('timeout'), refuse),
    model: parsed.text('model'),
    baseUrl: baseUrl(parsed.text('base-url'), refuse),
  };
}
