/**
 * The house rules of docs/architecture.md, checked by `npm run deps` (part
 * of `npm run check`): arrows point inward, only adapters (and the
 * composition root that builds them) touch the SDKs, and no folder imports
 * one that imports it back.
 */

/** Clients of the outside world: Docker, the model server, git, GitHub, Redis, SQLite, HTTP, the proxy, Prometheus. */
const SDK_NAMES = [
  'dockerode',
  'docker-modem',
  'openai',
  'simple-git',
  '@octokit/[^/]+',
  'octokit',
  'bullmq',
  'ioredis',
  'better-sqlite3',
  'undici',
  'proxy-chain',
  'tar-fs',
  'tar-stream',
  'prom-client',
];
/** A package's resolved file (or its @types declarations), as dependency-cruiser reports npm imports. */
const inPackage = (names) => `(^|/)node_modules/(@types/)?(${names.join('|')})/`;
const SDK = inPackage(SDK_NAMES);
const PROBOT = inPackage(['probot']);

/** Rooms that hold logic and ports only: they never see an adapter or an SDK. */
/**
 * Rooms that keep an index.ts: every import from outside the room goes through it, so the index is the
 * room's whole surface. The other rooms have no index (nothing imports one: `no-orphans` would fail).
 */
const INDEXED_ROOMS = [
  'fix',
  'triggers',
  'errors',
  'report',
  'ci-logs',
  'adapters/github',
  'adapters/git',
  'adapters/openai',
  'adapters/prometheus',
];

/** One rule per indexed room: from outside it, only its index.ts. */
const throughTheIndex = INDEXED_ROOMS.map((room) => ({
  name: `through-the-index:${room}`,
  severity: 'error',
  comment: `Outside src/${room}/, import its index.ts: the index is the room's surface.`,
  from: { path: '^src/', pathNot: `^src/${room}/` },
  to: { path: `^src/${room}/`, pathNot: `^src/${room}/index\\.ts$` },
}));

/** A room missing from INDEXED_ROOMS has no index: importing one means the list above is out of date. */
const noOtherIndex = {
  name: 'no-unlisted-index',
  severity: 'error',
  comment:
    'A room index not listed in INDEXED_ROOMS (.dependency-cruiser.cjs): list it, or import the files.',
  from: {},
  to: {
    path: '^src/.+/index\\.ts$',
    pathNot: `^src/(${INDEXED_ROOMS.join('|')})/index\\.ts$`,
  },
};

const INNER =
  '^src/(loop|ci-logs|report|environment|config|errors|queue|sandbox|model|workspace|code-host|util|eval|metrics|jobs-page|doctor|triggers|fix)/';

module.exports = {
  forbidden: [
    ...throughTheIndex,
    noOtherIndex,
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module cycle: split the shared part into a file both can import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      scope: 'folder',
      comment: 'Two folders import each other: one of them must point inward only.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'sdk-only-in-adapters',
      severity: 'error',
      comment:
        'Only src/adapters/* and the composition root (src/compose) import an SDK; the rest talks to ports.',
      from: { path: '^src/', pathNot: '^src/(adapters|compose)/' },
      to: { path: SDK },
    },
    {
      name: 'probot-only-in-the-app-layer',
      severity: 'error',
      comment:
        'Probot is the App framework: its webhook handlers (src/app, src/index.ts) take its Context, ' +
        'adapters and the composition root use its Octokit; nothing else imports it.',
      from: { path: '^src/', pathNot: '^src/(adapters|compose|app)/|^src/index\\.ts$' },
      to: { path: PROBOT },
    },
    {
      name: 'inner-rooms-import-no-adapter',
      severity: 'error',
      comment: 'Logic and ports never import an adapter: the composition root passes one in.',
      from: { path: INNER },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'runner-and-app-import-no-adapter',
      severity: 'error',
      comment:
        'The job runner and the webhook handlers only sequence ports; src/compose builds the adapters.',
      from: { path: '^src/(jobs|app)/' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'the-app-builds-no-adapter',
      severity: 'error',
      comment:
        'The Probot app function wires handlers to a queue; src/compose builds the adapters it hands them.',
      from: { path: '^src/index\\.ts$' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'commands-build-no-adapter',
      severity: 'error',
      comment:
        'The CLI and the Action read arguments and settings and print; src/compose builds the adapters ' +
        'they run with (loading them on demand where a command may not need them).',
      from: { path: '^src/(cli|action)/' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'inner-rooms-point-inward',
      severity: 'error',
      comment: 'Logic rooms never import the runner, the handlers, the CLI or the composition root.',
      from: { path: INNER },
      to: { path: '^src/(jobs|app|cli|compose)/|^src/index\\.ts$' },
    },
    {
      name: 'adapters-point-inward',
      severity: 'error',
      comment:
        'Adapters implement ports; they never import the runner, the handlers, the CLI or the composition root.',
      from: { path: '^src/adapters/' },
      to: { path: '^src/(jobs|app|cli|compose)/|^src/index\\.ts$' },
    },
    {
      name: 'jobs-and-app-are-not-entry-points',
      severity: 'error',
      comment: 'The runner and the handlers never import the CLI or the composition root (it imports them).',
      from: { path: '^src/(jobs|app)/' },
      to: { path: '^src/(cli|compose)/' },
    },
    {
      name: 'jobs-page-renders-records',
      severity: 'error',
      comment:
        "The jobs page turns the queue's records into HTML with the report room's formats and redactor; " +
        'it reads the store through the port its handler is given, and knows nothing else.',
      from: { path: '^src/jobs-page/' },
      to: { path: '^src/', pathNot: '^src/(jobs-page|queue|report)/' },
    },
    {
      name: 'errors-at-the-bottom',
      severity: 'error',
      comment: 'Typed errors are imported by every room, so they import none.',
      from: { path: '^src/errors/' },
      to: { path: '^src/', pathNot: '^src/errors/' },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A module nothing imports is dead code, or an entry point to list here.',
      from: {
        orphan: true,
        pathNot: ['\\.d\\.ts$', '^src/index\\.ts$', '^src/cli/main\\.ts$'],
      },
      to: {},
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing (a typo, or a package missing from package.json).',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type import is an arrow in the picture too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
