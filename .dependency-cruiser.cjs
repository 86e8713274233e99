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

const { ROOMS } = require('./scripts/rooms.cjs');

/** Where a room's modules live: a folder of src/, or src/index.ts itself. */
const roomPath = (room) => (room === 'index.ts' ? '^src/index\\.ts$' : `^src/${room}/`);
const roomAlternatives = (rooms) =>
  rooms.map((room) => (room === 'index.ts' ? 'index\\.ts$' : `${room}/`)).join('|');

/** One rule per room, from scripts/rooms.cjs: it imports only itself and the rooms listed for it. */
const mayImport = Object.entries(ROOMS).map(([room, allowed]) => ({
  name: `may-import:${room}`,
  severity: 'error',
  comment: `src/${room} may import only ${allowed.join(', ') || 'nothing of ours'} (scripts/rooms.cjs, docs/architecture.md).`,
  from: { path: roomPath(room) },
  to: { path: '^src/', pathNot: `^src/(${roomAlternatives([room, ...allowed])})` },
}));

/** A module outside every listed room: a new room needs its line in scripts/rooms.cjs. */
const everyRoomListed = {
  name: 'every-room-listed',
  severity: 'error',
  comment: 'A new room: add it and what it may import to scripts/rooms.cjs, then run `npm run picture`.',
  from: { path: '^src/', pathNot: `^src/(${roomAlternatives(Object.keys(ROOMS))})` },
  to: {},
};

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

module.exports = {
  forbidden: [
    ...mayImport,
    everyRoomListed,
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
      name: 'action-points-inward',
      severity: 'error',
      comment:
        'The Action reads its inputs and the run, fixes through ports and reports: it reaches GitHub only ' +
        'through the ActionCodeHost src/compose builds, so it imports no Octokit or other SDK (types ' +
        'included), no adapter, and nothing of the App (its handlers, src/index.ts) or the CLI.',
      from: { path: '^src/action/' },
      to: { path: [SDK, PROBOT, '^src/(adapters|app|cli)/', '^src/index\\.ts$'] },
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
