/**
 * Credentials planted in output, one of each kind a job can leak: realistic
 * shapes with made-up values (the strings are assembled so that no scanner
 * mistakes this file for a leak). `text` is how it appears in output;
 * `hidden` are the parts that must never be shown.
 */
export interface Planted {
  kind: string;
  text: string;
  hidden: string[];
}

const alnum = (length: number, seed = 7): string => {
  const alphabet = 'A1b2C3d4E5f6G7h8J9k0LmNpQrStUvWxYz';
  return Array.from({ length }, (_, index) => alphabet[(index * seed + 3) % alphabet.length]).join('');
};
const hex = (length: number): string =>
  Array.from({ length }, (_, index) => '0123456789abcdef'[(index * 7 + 5) % 16]).join('');

/** Values the job is configured with (installation token, API key, `secret_env`). */
export const CONFIGURED = {
  plain: 'q9Lw2-configured-value-Zr81',
  base64: 'base64-configured-Secret-77',
  percent: 'p@ss/w0rd+configured=1&x',
  split: 'split-configured-secret-value-42',
  chunked: 'chunked-configured-secret-value-99',
};

const pem = [
  `-----BEGIN RSA ${'PRIVATE'} KEY-----`,
  `MIIEowIBAAKCAQEA${alnum(48, 5)}`,
  alnum(64, 11),
  alnum(64, 13),
  `${alnum(40, 17)}==`,
  `-----END RSA ${'PRIVATE'} KEY-----`,
].join('\n');

const token = (prefix: string, body: string): string => `${prefix}${body}`;
const ghp = token('ghp_', alnum(36, 3));
const ghs = token('ghs_', alnum(36, 5));
const pat = token('github_pat_', `${alnum(22, 9)}_${alnum(59, 11)}`);
const glpat = token('glpat-', alnum(20, 13));
const npm = token('npm_', alnum(36, 15));
const slack = token('xoxb-', `123456789012-1234567890123-${alnum(24, 17)}`);
const stripe = token('sk_live_', alnum(24, 19));
const stripeRestricted = token('rk_live_', alnum(24, 21));
const google = token('AIza', `Sy${alnum(33, 23)}`);
const jwt = [
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9',
  'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0',
  'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
].join('.');
const awsId = token('AKIA', 'Q3Z7KD4PWX2M8RTL');
const awsSecret = `wJalrXUtnFEMI/K7MDENG/${alnum(18, 25)}`;
const sendgrid = token('SG.', `${alnum(22, 27)}.${alnum(43, 29)}`);
const twilio = token('SK', hex(32));
const openai = token('sk-proj-', `${alnum(58, 31)}T3BlbkFJ${alnum(58, 33)}`);
const anthropic = token('sk-ant-api03-', `${alnum(93, 35)}AA`);
const azureKey = `${alnum(86, 37)}==`;
const huggingface = token('hf_', 'AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh');
const docker = token('dckr_pat_', alnum(27, 39));
const bearer = alnum(40, 41);
const password = 'Sup3rS3cretPassw0rd';
const pgPassword = 'Pg5ecretPassw0rd9';

const base64Of = (text: string) => Buffer.from(text).toString('base64');
const basicHeader = base64Of(`deploy:${CONFIGURED.base64}`);

export const PLANTED: readonly Planted[] = [
  { kind: 'AWS access key id', text: `AWS_ACCESS_KEY_ID=${awsId}`, hidden: [awsId] },
  { kind: 'AWS secret access key', text: `aws_secret_access_key = ${awsSecret}`, hidden: [awsSecret] },
  { kind: 'GitHub ghp_', text: `remote: token ${ghp} rejected`, hidden: [ghp] },
  { kind: 'GitHub ghs_', text: `GITHUB_TOKEN=${ghs}`, hidden: [ghs] },
  { kind: 'GitHub github_pat_', text: `using ${pat}`, hidden: [pat] },
  { kind: 'GitLab glpat-', text: `gitlab token: ${glpat}`, hidden: [glpat] },
  { kind: 'npm npm_', text: `//registry.npmjs.org/:_authToken=${npm}`, hidden: [npm] },
  { kind: 'Slack xoxb-', text: `slack: ${slack}`, hidden: [slack] },
  { kind: 'Stripe sk_live_', text: `stripe.api_key = "${stripe}"`, hidden: [stripe] },
  { kind: 'Stripe rk_live_', text: `key ${stripeRestricted}`, hidden: [stripeRestricted] },
  { kind: 'Google API key', text: `https://maps.googleapis.com/maps/api?key=${google}`, hidden: [google] },
  { kind: 'JWT', text: `Cookie: session=${jwt}`, hidden: [jwt, jwt.split('.')[1]!] },
  { kind: 'private key PEM block', text: pem, hidden: [pem.split('\n')[1]!, pem.split('\n')[3]!] },
  {
    kind: 'basic-auth URL credentials',
    text: `fatal: unable to access 'https://deploy:${password}@git.example.com/app.git/'`,
    hidden: [password],
  },
  { kind: 'SendGrid', text: `sendgrid: ${sendgrid}`, hidden: [sendgrid] },
  { kind: 'Twilio API key', text: `twilio key ${twilio}`, hidden: [twilio] },
  { kind: 'OpenAI sk-proj-', text: `openai.AuthenticationError: ${openai}`, hidden: [openai] },
  { kind: 'Anthropic sk-ant-', text: `x-api-key: ${anthropic}`, hidden: [anthropic] },
  {
    kind: 'Azure connection string',
    text: `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${azureKey};EndpointSuffix=core.windows.net`,
    hidden: [azureKey.slice(0, 40)],
  },
  {
    kind: 'database connection string',
    text: `could not connect to postgres://app:${pgPassword}@db.internal:5432/app`,
    hidden: [pgPassword],
  },
  { kind: 'Authorization header', text: `> Authorization: Bearer ${bearer}`, hidden: [bearer] },
  { kind: 'Hugging Face hf_', text: `HF: ${huggingface}`, hidden: [huggingface] },
  { kind: 'Docker PAT', text: `docker login -p ${docker}`, hidden: [docker] },
  { kind: 'configured value, plain', text: `value is ${CONFIGURED.plain}.`, hidden: [CONFIGURED.plain] },
  {
    kind: 'configured value, base64',
    text: `echo: ${base64Of(CONFIGURED.base64)}\nproxy header Basic ${basicHeader}`,
    hidden: [base64Of(CONFIGURED.base64).replace(/=+$/, ''), basicHeader.slice(12, 30)],
  },
  {
    kind: 'configured value, percent-encoded',
    text: `GET /login?password=${encodeURIComponent(CONFIGURED.percent)}`,
    hidden: [encodeURIComponent(CONFIGURED.percent), encodeURIComponent(CONFIGURED.percent).toLowerCase()],
  },
  {
    kind: 'configured value, split across lines',
    text: `secret: ${CONFIGURED.split.slice(0, 14)}\n  ${CONFIGURED.split.slice(14)}`,
    hidden: [CONFIGURED.split.slice(0, 14), CONFIGURED.split.slice(14)],
  },
];

/** The chunked value arrives in two pieces of streamed output; the test joins them as the sandbox does. */
export const CHUNKS = [
  `first part ${CONFIGURED.chunked.slice(0, 17)}`,
  `${CONFIGURED.chunked.slice(17)} second part`,
];
