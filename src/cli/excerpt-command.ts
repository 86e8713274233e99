import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_MAX_LINES, excerptLog, formatExcerpt } from '../ci-logs/index.js';
import type { OutputStream } from './output-stream.js';

export interface ExcerptIO {
  stdout: OutputStream;
  stderr: OutputStream;
  /** What `-` reads; process.stdin unless a test passes its own. */
  stdin?: AsyncIterable<Uint8Array | string>;
}

const EXCERPT_USAGE = [
  'Usage: selfdebug excerpt <log-file | -> [--max-lines N] [--json]',
  '',
  'Prints the lines of a CI log that explain its failure, with their line numbers:',
  'the failing step, errors, failing tests with their messages, stack traces, summaries.',
  'Reads GitHub Actions job logs and plain logs from other tools; "-" reads standard input.',
  '',
  'Options:',
  `  --max-lines N  Keep at most N lines (default ${DEFAULT_MAX_LINES})`,
  '  --json         Print one JSON object: {"failingStep", "exitCode", "lines": [{"n", "text"}], "truncated"}',
  '  -h, --help     Show this help',
].join('\n');

const OPTIONS = {
  'max-lines': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `selfdebug excerpt`: 0 printed, 1 the log could not be read, 2 misused. */
export async function runExcerpt(argv: readonly string[], io: ExcerptIO): Promise<number> {
  const parsed = parseOptions(argv);
  if (typeof parsed === 'string') {
    io.stderr.write(`selfdebug excerpt: ${parsed}\nRun "selfdebug excerpt --help" for usage.\n`);
    return 2;
  }
  if (parsed.help) {
    io.stdout.write(`${EXCERPT_USAGE}\n`);
    return 0;
  }
  const source =
    parsed.path === '-'
      ? (io.stdin ?? process.stdin)
      : createReadStream(parsed.path, { highWaterMark: 1 << 20 });
  let excerpt: Awaited<ReturnType<typeof excerptLog>>;
  try {
    excerpt = await excerptLog(source, { maxLines: parsed.maxLines });
  } catch (error) {
    io.stderr.write(`selfdebug excerpt: cannot read ${parsed.path}: ${describe(error)}\n`);
    return 1;
  }
  if (parsed.json) {
    const { failingStep, exitCode, lines, truncated } = excerpt;
    io.stdout.write(`${JSON.stringify({ failingStep, exitCode, lines, truncated })}\n`);
  } else {
    io.stdout.write(`${formatExcerpt(excerpt)}\n`);
  }
  return 0;
}

interface ExcerptRequest {
  help: boolean;
  path: string;
  maxLines: number;
  json: boolean;
}

/** The request, or what is wrong with the arguments. */
function parseOptions(argv: readonly string[]): ExcerptRequest | string {
  let values: { 'max-lines'?: string; json?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    return describe(error);
  }
  if (values.help) return { help: true, path: '', maxLines: DEFAULT_MAX_LINES, json: false };
  if (positionals.length !== 1) {
    return positionals.length === 0
      ? 'name a log file, or "-" to read standard input.'
      : `expected one log file, got: ${positionals.join(' ')}`;
  }
  const text = values['max-lines'];
  const maxLines = text === undefined ? DEFAULT_MAX_LINES : Number(text);
  if (!Number.isInteger(maxLines) || maxLines < 1 || !/^\d+$/.test(text ?? '1')) {
    return `--max-lines takes a whole number of at least 1, got "${text}".`;
  }
  return { help: false, path: positionals[0]!, maxLines, json: values.json === true };
}

function describe(error: unknown): string {
  if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return 'no such file';
  return error instanceof Error ? error.message : String(error);
}
