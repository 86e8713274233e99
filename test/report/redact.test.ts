import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../../src/report/redact.js';

// Token-shaped strings are assembled at run time, so no scanner mistakes this file for a leak.
const body = (length: number, alphabet = 'aB3dE5gH7jK9mN1pQ2sT4vW6yZ8') =>
  Array.from({ length }, (_unused, index) => alphabet[(index * 7) % alphabet.length]).join('');
const token = (prefix: string, length = 36) => `${prefix}${body(length)}`;

const redact = (text: string) => new Redactor().redact(text);

describe('Redactor patterns', () => {
  it.each([
    ['GitHub installation token', token('gh' + 's_')],
    ['GitHub personal token', token('gh' + 'p_')],
    ['GitHub OAuth token', token('gh' + 'o_')],
    ['GitHub user-to-server token', token('gh' + 'u_')],
    ['GitHub refresh token', token('gh' + 'r_', 76)],
    ['GitHub fine-grained token', `github_${'pat_'}11ABCDEFG0_${body(59)}`],
    ['OpenAI key', token('sk' + '-', 48)],
    ['OpenAI project key', `sk${'-proj-'}${body(40)}_${body(30)}-${body(20)}`],
    ['AWS access key id', `AKIA${'IOSFODNN7EXAMPLE'}`],
    ['AWS temporary key id', `ASIA${'ZZZZ1234ABCD5678'}`],
    ['Slack bot token', `xox${'b-'}123456789012-1234567890123-${body(24)}`],
    ['Slack user token', `xox${'p-'}123456789012-${body(30)}`],
  ])('replaces a %s whole, prefix included', (_name, secret) => {
    const text = `before ${secret} after`;
    expect(redact(text)).toBe(`before ${REDACTED} after`);
  });

  it('finds tokens glued to a name by an underscore, as in environment dumps', () => {
    const secret = token('gh' + 's_');
    expect(redact(`MY_TOKEN_${secret} KEY_AKIA${'IOSFODNN7EXAMPLE'}`)).toBe(
      `MY_TOKEN_${REDACTED} KEY_${REDACTED}`,
    );
  });

  it('keeps the name of an aws_secret_access_key assignment and hides its value', () => {
    const value = `wJalrXUtnFEMI/K7MDENG/bPxRfiCY${'EXAMPLEKEY'}`;
    expect(redact(`aws_secret_access_key = ${value}\nregion = eu-west-1`)).toBe(
      `aws_secret_access_key = ${REDACTED}\nregion = eu-west-1`,
    );
    expect(redact(`AWS_SECRET_ACCESS_KEY=${value}`)).toBe(`AWS_SECRET_ACCESS_KEY=${REDACTED}`);
    expect(redact(`{"aws_secret_access_key": "${value}"}`)).toBe(`{"aws_secret_access_key": "${REDACTED}"}`);
  });

  it('replaces a private key block, header to footer', () => {
    const key = ['-----BEGIN RSA PRIVATE KEY-----', body(64), body(64), '-----END RSA PRIVATE KEY-----'].join(
      '\n',
    );
    expect(redact(`key:\n${key}\ndone`)).toBe(`key:\n${REDACTED}\ndone`);
    const openssh = `-----BEGIN OPENSSH PRIVATE KEY-----\n${body(70)}\n-----END OPENSSH PRIVATE KEY-----`;
    expect(redact(`a ${openssh} b ${openssh} c`)).toBe(`a ${REDACTED} b ${REDACTED} c`);
  });

  it('redacts to the end of the text when a private key has no footer (output cut mid-key)', () => {
    expect(redact(`ok\n-----BEGIN PRIVATE KEY-----\n${body(64)}\n[... cut ...]`)).toBe(`ok\n${REDACTED}`);
  });

  it('leaves a public key or certificate alone', () => {
    const text = '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----';
    expect(redact(text)).toBe(text);
  });

  it.each([
    ['Authorization: Bearer abc.def.ghi', `Authorization: Bearer ${REDACTED}`],
    ['authorization: basic dXNlcjpwYXNz', `authorization: basic ${REDACTED}`],
    ['-H "Authorization: token 1234567890abcdef"', `-H "Authorization: token ${REDACTED}"`],
    ["{'Authorization': 'Bearer xyz123'}", `{'Authorization': 'Bearer ${REDACTED}'}`],
  ])('hides the value of %j', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it('hides the credentials of a URL but keeps its scheme and host', () => {
    expect(redact('git clone https://x-access-token:s3cr3tvalue@github.com/acme/reports.git')).toBe(
      `git clone https://${REDACTED}@github.com/acme/reports.git`,
    );
    expect(redact('DATABASE_URL=postgres://app:hunter22@db:5432/app')).toBe(
      `DATABASE_URL=postgres://${REDACTED}@db:5432/app`,
    );
  });

  it('leaves ordinary text, hashes and ids alone', () => {
    const text = [
      'commit 9fceb02d0ae598e95dc970b74767f19372d61af8',
      'sha256:3b0f2c8a4d9e1f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2',
      'id 123e4567-e89b-12d3-a456-426614174000',
      'pip install scikit-learn task-runner sk-learn',
      'see https://github.com/acme/reports/pull/13 and mail ops@example.com',
      'Authorization is required',
      'AKIA is a prefix; AKIAshort is not a key',
      'ghp_short and sk-short are too short to be keys',
    ].join('\n');
    expect(redact(text)).toBe(text);
  });
});

describe('Redactor secrets', () => {
  it('replaces every occurrence of a listed value', () => {
    const redactor = new Redactor(['correct-horse-battery', 'npm_abcdefgh12345']);
    expect(redactor.redact('a correct-horse-battery b correct-horse-battery c npm_abcdefgh12345')).toBe(
      `a ${REDACTED} b ${REDACTED} c ${REDACTED}`,
    );
  });

  it('ignores empty, missing and short values, which would match ordinary words', () => {
    const redactor = new Redactor(['', null, undefined, 'secret', 'true']);
    expect(redactor.redact('a secret that is true')).toBe('a secret that is true');
  });

  it('replaces the longer of two overlapping values whole', () => {
    const redactor = new Redactor(['abcdefgh', 'abcdefgh-ijklmnop']);
    expect(redactor.redact('x abcdefgh-ijklmnop y abcdefgh')).toBe(`x ${REDACTED} y ${REDACTED}`);
  });

  it('also finds a value percent-encoded in a URL', () => {
    const redactor = new Redactor(['p@ss word/1234']);
    expect(redactor.redact('https://h/?key=p%40ss%20word%2F1234')).toBe(`https://h/?key=${REDACTED}`);
  });

  it('is idempotent: redacting twice changes nothing more', () => {
    const redactor = new Redactor(['correct-horse-battery']);
    const once = redactor.redact(`correct-horse-battery ${token('gh' + 's_')} Authorization: Bearer zzz`);
    expect(redactor.redact(once)).toBe(once);
  });
});

describe("Redactor echo rules, for a server's error text", () => {
  it('hides the word after token or bearer only when asked, keeping the keyword', () => {
    const echoed = `Bad credentials for token ${body(19)} and bearer ${body(12)}`;
    expect(new Redactor([], { wordAfterToken: true }).redact(echoed)).toBe(
      `Bad credentials for token ${REDACTED} and bearer ${REDACTED}`,
    );
    // A transcript keeps its words: "Unexpected token" is not a credential there.
    expect(redact('SyntaxError: Unexpected token }')).toBe('SyntaxError: Unexpected token }');
  });

  it('hides a masked key and a short configured key only when asked', () => {
    const text = `Incorrect API key provided: ${'sk' + '-'}test-****CRET; key abc12 refused`;
    expect(new Redactor(['abc12'], { maskedKeys: true }).redact(text)).toBe(
      `Incorrect API key provided: ${REDACTED}; key ${REDACTED} refused`,
    );
    expect(new Redactor(['abc12']).redact(text)).toBe(text);
  });
});

describe('Redactor on megabyte inputs', () => {
  // No timing assertion: each pattern is linear, and a catastrophic one would not finish at all.
  const megabyte = 1_000_000;
  const repeat = (unit: string) => unit.repeat(Math.ceil(megabyte / unit.length));

  it.each([
    ['word characters', repeat('a')],
    ['dotted words (URL scheme shapes)', repeat('a.')],
    ['scheme separators without credentials', repeat('a://b:')],
    ['token prefixes without bodies', repeat('ghp_sk-xoxb-AKIA')],
    ['fine-grained token prefixes', repeat('github_pat_')],
    ['private key headers without footers', repeat('-----BEGIN RSA PRIVATE KEY-----')],
    ['header names without values', repeat('Authorization: Bearer\n')],
    ['assignments without values', repeat('aws_secret_access_key = \n')],
    ['log lines', repeat('2026-03-01T10:00:00Z INFO worker 9fceb02d0ae598e95dc970b74767f19372d61af8 done\n')],
  ])('completes on 1 MB of %s', (_name, text) => {
    const redactor = new Redactor(['correct-horse-battery', 'another-secret-value']);
    const result = redactor.redact(text);
    expect(result.length).toBeGreaterThan(0);
  });

  it('completes on 1 MB of keywords and masked key prefixes with the echo rules', () => {
    const redactor = new Redactor(['abcd'], { wordAfterToken: true, maskedKeys: true });
    expect(redactor.redact(repeat('token bearer\tsk-*abc')).length).toBeGreaterThan(0);
  });

  it('completes on 1 MB of blanks with secrets that are mostly blanks (their blanks made the split-tolerant pattern ambiguous)', () => {
    const secrets = [
      `${' '.repeat(12)}hunter22`,
      `a b c d e f g h${'\t'.repeat(9)}`,
      `${'\n'.repeat(20)}password`,
    ];
    const redactor = new Redactor(secrets);
    const result = redactor.redact(`${repeat(' \t\n')}hunter22 and a  b c d e f g h`);
    expect(result).not.toContain('hunter22');
    expect(result).not.toContain('g h');
    expect(result.endsWith(REDACTED)).toBe(true);
  });

  it('finds a token at the end of 1 MB of output', () => {
    const secret = token('gh' + 's_');
    const result = redact(`${repeat('building...\n')}${secret}\n`);
    expect(result).not.toContain(secret);
    expect(result.endsWith(`${REDACTED}\n`)).toBe(true);
  });
});
