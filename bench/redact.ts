import { Redactor } from '../src/report/redact.js';
import { markdownTable } from './stats.js';

/**
 * The redactor on megabytes of hostile output: inputs built to make a
 * backtracking pattern work hard (runs of every rule's prefix, near-misses
 * of configured values, long whitespace, an unterminated private key), at
 * 1, 4 and 16 MB. Linear means the time per MB stays about the same as the
 * size grows; ordinary log text is the baseline. Three configured values,
 * as a job with an installation token, an API key and one `secret_env` has.
 */
const SIZES_MB = [1, 4, 16];
const CONFIGURED = [
  'ghs_installationTokenValue0123456789',
  'sk-configured-api-key-abcdefghijklmnop',
  'aaaaaaab-value',
];

const INPUTS: Record<string, string> = {
  'ordinary log lines': 'PASSED tests/test_io.py::test_parse_row[3] in 0.01s (setup 0.00s)\n',
  'token prefixes, no token':
    'ghp_ sk- xoxb- glpat- npm_ AIza eyJ SG. AKIA sk_live_ hf_ dckr_pat_ https://a:b@ ',
  'prefix runs (sk-sk-…)': 'sk-sk-sk-xoxb-xoxb-eyJeyJ.eyJ.glpat-glpat-',
  'near-miss configured value': 'aaaaaaa a\taaaaaaa\n',
  'assignments without values': 'API_TOKEN= aws_secret_access_key: Authorization: Bearer ',
  'whitespace runs': `secret_access_key${' '.repeat(200)}\n`,
  'unterminated private key': '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n',
  'URL-like runs': 'postgres://u:p@h mongodb://x@ a://b://c:// https://user:',
};

export async function benchRedact(): Promise<string> {
  const redactor = new Redactor(CONFIGURED);
  const rows: string[][] = [];
  for (const [name, unit] of Object.entries(INPUTS)) {
    const perMb: number[] = [];
    for (const megabytes of SIZES_MB) {
      const text = unit.repeat(Math.ceil((megabytes * 2 ** 20) / unit.length)).slice(0, megabytes * 2 ** 20);
      redactor.redact(text.slice(0, 65_536)); // warm the patterns up
      const start = process.hrtime.bigint();
      redactor.redact(text);
      perMb.push(Number(process.hrtime.bigint() - start) / 1e6 / megabytes);
    }
    const ratio = (perMb.at(-1) ?? 0) / (perMb[0] ?? 1);
    rows.push([name, ...perMb.map((ms) => ms.toFixed(0)), ratio.toFixed(2)]);
  }
  return [
    '## Redaction (`bench/redact.ts`)',
    '',
    'Milliseconds per MB for `Redactor.redact` (secretlint recommended preset + our patterns + 3 configured',
    'values in all their forms) on repeated hostile units. Linear: the 16 MB ÷ 1 MB ratio stays near 1.',
    '',
    markdownTable(['input', 'ms/MB at 1 MB', 'ms/MB at 4 MB', 'ms/MB at 16 MB', '16 MB ÷ 1 MB'], rows),
  ].join('\n');
}
