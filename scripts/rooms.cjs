/**
 * The rooms of src/ and what each may import: the one list behind the "may import" rules of
 * .dependency-cruiser.cjs (`npm run deps`) and the table docs/architecture.md shows
 * (written by scripts/architecture-picture.ts, checked by `npm run picture:check`).
 * A room is a folder of src/ (each adapter its own room); `index.ts` is src/index.ts.
 */

/** The ports every room may use, and what they may use: typed errors and helpers. */
const BASE = ['errors', 'util'];
const PORTS = ['code-host', 'sandbox', 'workspace', 'model'];
/** Rooms of logic (no adapter, no SDK) that the sequencing rooms build on. */
const LOGIC = [
  ...BASE,
  ...PORTS,
  'ci-logs',
  'ci-verdict',
  'environment',
  'loop',
  'config',
  'queue',
  'report',
  'metrics',
  'triggers',
];
const ADAPTERS = [
  'bullmq',
  'docker',
  'git',
  'github',
  'http',
  'local',
  'openai',
  'prometheus',
  'proxy',
  'sqlite',
].map((name) => `adapters/${name}`);
const without = (list, ...names) => list.filter((name) => !names.includes(name));

/** room → the rooms it may import (besides itself). */
const ROOMS = {
  'index.ts': ['compose', 'app', 'jobs', 'jobs-page', 'queue'],
  cli: [...LOGIC, 'compose', 'doctor', 'eval', 'fix'],
  action: [...LOGIC, 'compose', 'jobs', 'fix'],
  compose: [...LOGIC, ...ADAPTERS, 'jobs', 'app', 'jobs-page', 'doctor', 'fix'],
  app: [...LOGIC, 'jobs'],
  'jobs-page': ['ci-verdict', 'queue', 'report'],
  jobs: [...LOGIC, 'fix'],
  fix: LOGIC,
  eval: [...LOGIC, 'fix'],
  doctor: ['config', 'queue', ...BASE],
  report: without(LOGIC, 'report', 'metrics'),
  metrics: ['ci-verdict', 'queue', 'sandbox'],
  queue: ['ci-verdict', 'config', 'loop', 'triggers', ...BASE],
  triggers: without(LOGIC, 'triggers', 'report', 'queue', 'metrics'),
  config: ['environment', 'loop', 'sandbox', ...BASE],
  loop: ['ci-logs', 'environment', 'model', 'sandbox', 'workspace', ...BASE],
  environment: ['ci-logs', 'sandbox', ...BASE],
  'ci-logs': ['util'],
  'ci-verdict': [],
  'code-host': [...BASE, 'ci-verdict', 'workspace'],
  sandbox: BASE,
  workspace: [...BASE, 'sandbox'],
  model: BASE,
  util: [],
  errors: [],
  ...Object.fromEntries(
    ADAPTERS.map((adapter) => [adapter, without([...LOGIC, 'adapters/http', 'adapters/proxy'], adapter)]),
  ),
};

module.exports = { ROOMS };
