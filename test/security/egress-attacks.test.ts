import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { type EgressPolicy, hostAddresses } from '../../src/adapters/proxy/egress-policy.js';
import { EgressProxy } from '../../src/adapters/proxy/egress-proxy.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { applyOperatorCeilings, parseRepoConfigText } from '../../src/config/repo-config.js';
import { planEnvironment } from '../../src/environment/plan-environment.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { describeWithDocker, removeStoreImages, TEST_SANDBOX } from '../helpers/docker.js';
import { attackSuite } from './attack-table.js';
import { NETWORK_PROBE, type ProbeConfig, type ProbeResults } from './network-probe.js';
import {
  proxyRequests,
  redisCommand,
  redisHasKey,
  sendThroughProxy,
  tcpWitness,
  udpWitness,
  type Witness,
} from './network-witness.js';
import { withProxyOnSocket } from './proxy-on-socket.js';

const attack = attackSuite('network');
const nonce = () => randomBytes(6).toString('hex');
const REFUSED = /^HTTP\/1\.1 403 /;

/** The host's first non-loopback IPv4 address: a public one on a real server, where the App's port answers too. */
function ownIPv4(): string | null {
  const all = Object.values(networkInterfaces()).flatMap((entries) => entries ?? []);
  return all.find((entry) => !entry.internal && entry.family === 'IPv4')?.address ?? null;
}

/** A proxy on its own socket for one attack. */
function withProxy(
  policy: EgressPolicy,
  lookup: (hostname: string) => string | null,
  body: (socketPath: string, proxy: EgressProxy) => Promise<void>,
): Promise<void> {
  return withProxyOnSocket({ policy, lookup }, body);
}

/** Each target asked for by CONNECT and by plain HTTP; every answer must be the proxy's 403. */
async function expectRefused(socketPath: string, targets: string[], afterConnect = ''): Promise<string[]> {
  const bodies: string[] = [];
  for (const target of targets) {
    const { connect, http } = proxyRequests(target);
    for (const request of [connect, http]) {
      const answer = await sendThroughProxy(socketPath, request, afterConnect);
      expect(answer.status, `${request.split('\r\n')[0]} → ${answer.status} ${answer.body}`).toMatch(REFUSED);
      bodies.push(answer.body);
    }
  }
  return bodies;
}

/** Witnesses that saw nothing: the proof that an attack reached no one. */
function expectUntouched(...witnesses: (Witness | null)[]): void {
  for (const witness of witnesses) {
    if (!witness) continue;
    expect(
      { at: `${witness.host}:${witness.port}`, connections: witness.connections, received: witness.received },
      'a witness was reached',
    ).toEqual({ at: `${witness.host}:${witness.port}`, connections: 0, received: '' });
  }
}

/**
 * What stands on 127.0.0.1:6379: a witness when the port is free, else the
 * Redis that listens there. Every attack on it carries a SET of a key of its
 * own, so either way it shows whether that attack arrived.
 */
async function redisWatch(): Promise<{
  newKey(): string;
  check(key: string): Promise<void>;
  close(): Promise<void>;
}> {
  const witness = await tcpWitness('127.0.0.1', 6379);
  return {
    newKey: () => `selfdebug-egress-attack-${nonce()}`,
    async check(key) {
      if (witness) expect(witness.received, 'the witness on 127.0.0.1:6379 got the key').not.toContain(key);
      else expect(await redisHasKey(key), `the Redis on 127.0.0.1:6379 holds ${key}`).not.toBe(true);
    },
    close: async () => witness?.close(),
  };
}

describe('the setup proxy, attacked through its socket', () => {
  // Each attack has its own witness, so one that got through fails only itself.
  const fresh = async () => (await tcpWitness())!;

  attack(
    'setup proxy: a host not on the allowlist (and no DNS asked for it)',
    'allowlist checked before any lookup',
    async () => {
      const witness = await fresh();
      const asked: string[] = [];
      try {
        await withProxy(
          { allowedHosts: ['registry.test'] },
          (name) => {
            asked.push(name);
            return '127.0.0.1';
          },
          async (socketPath) => {
            const bodies = await expectRefused(socketPath, [
              'evil.test:443',
              `evil.test:${witness.port}`,
              'registry.test.evil.test:443',
              'evil.test%2eregistry.test:443',
            ]);
            expect(bodies.join('\n')).toMatch(/is not on the allowlist/);
            // The refusal says what to change: the repository's allowlist.
            expect(
              bodies.every((body) => /Add it \(host or host:port\) to sandbox\.allowed_hosts/.test(body)),
            ).toBe(true);
          },
        );
        // A name that is refused is never resolved: no lookup carries it to a resolver.
        expect(asked).toEqual([]);
        expectUntouched(witness);
      } finally {
        await witness.close();
      }
    },
  );

  attack(
    'setup proxy: an allowlisted name resolving to loopback, private, link-local (169.254.169.254) or ULA',
    'address checked after resolution',
    async () => {
      const witness = await fresh();
      const answers: Record<string, string> = {
        'loop.test': '127.0.0.1',
        'zero.test': '0.0.0.0',
        'lan.test': '10.1.2.3',
        'home.test': '192.168.1.1',
        'cgnat.test': '100.64.0.1',
        'metadata.test': '169.254.169.254',
        'ula.test': 'fd00::5',
        'linklocal6.test': 'fe80::1',
        'mapped.test': '::ffff:127.0.0.1',
        'loop6.test': '::1',
      };
      try {
        await withProxy(
          // Each name on the allowlist with the witness's port (a TLS port too), so only the address check stands in the way.
          {
            allowedHosts: Object.keys(answers).map((name) => `${name}:${witness.port}`),
            tlsPorts: [witness.port],
          },
          (name) => answers[name] ?? null,
          async (socketPath) => {
            const targets = Object.keys(answers).map((name) => `${name}:${witness.port}`);
            const bodies = await expectRefused(socketPath, targets);
            expect(bodies.every((body) => /private or local address/.test(body))).toBe(true);
            // Not the repository's allowlist, which cannot open these: only the operator's trust can.
            expect(bodies.every((body) => /SELFDEBUG_EGRESS_TRUSTED_HOSTS/.test(body))).toBe(true);
            expect(bodies.some((body) => /Add it .* to sandbox\.allowed_hosts/.test(body))).toBe(false);
          },
        );
        expectUntouched(witness);
      } finally {
        await witness.close();
      }
    },
  );

  attack('setup proxy: CONNECT or HTTP to a port other than 80 and 443', 'port allowlist', async () => {
    const witness = await fresh();
    try {
      // mirror.test is allowlisted and even trusted with the loopback: only the port stands in the way.
      await withProxy(
        { allowedHosts: ['mirror.test'], explicitHosts: ['mirror.test'] },
        (name) => (name === 'mirror.test' ? '127.0.0.1' : null),
        async (socketPath) => {
          const bodies = await expectRefused(socketPath, [
            `mirror.test:${witness.port}`,
            'mirror.test:22',
            'mirror.test:25',
            'mirror.test:8080',
          ]);
          expect(bodies.every((body) => /port \d+ is not allowed/.test(body))).toBe(true);
        },
      );
      expectUntouched(witness);
    } finally {
      await witness.close();
    }
  });

  attack('setup proxy: the Redis port on the loopback (6379)', 'port allowlist, address check', async () => {
    const redis = await redisWatch();
    const key = redis.newKey();
    try {
      await withProxy(
        // cache.test names the port but not trust; mirror.test is trusted but not on 6379.
        { allowedHosts: ['mirror.test', 'cache.test:6379'], explicitHosts: ['mirror.test'] },
        (name) => (name === 'mirror.test' || name === 'cache.test' ? '127.0.0.1' : null),
        async (socketPath) => {
          await expectRefused(
            socketPath,
            [
              '127.0.0.1:6379',
              'localhost:6379',
              'mirror.test:6379',
              'cache.test:6379',
              '[::ffff:127.0.0.1]:6379',
            ],
            redisCommand('SET', key, 'pwned'),
          );
        },
      );
      await redis.check(key);
    } finally {
      await redis.close();
    }
  });

  attack(
    'setup proxy: DNS rebinding (public at the check, 127.0.0.1 at the connection)',
    'connection pinned to the checked address',
    async () => {
      const witness = await fresh();
      let calls = 0;
      try {
        await withProxy(
          { allowedHosts: [`rebind.test:${witness.port}`], tlsPorts: [witness.port] },
          // A rebinding resolver: a public address once, the loopback ever after.
          (name) => (name === 'rebind.test' ? (calls++ === 0 ? '203.0.113.10' : '127.0.0.1') : null),
          async (socketPath, proxy) => {
            const { connect, http } = proxyRequests(`rebind.test:${witness.port}`);
            // Allowed for the public answer; the connection goes there (and, bound to 127.0.0.1, fails locally).
            const first = await sendThroughProxy(socketPath, http);
            expect(first.status).not.toMatch(/ 200 /);
            for (const request of [connect, http, connect])
              expect((await sendThroughProxy(socketPath, request)).status).toMatch(REFUSED);
            // One lookup per request, all by the proxy's check: nothing resolved the name again to connect.
            expect(calls).toBe(4);
            expect(proxy.records().map((record) => record.allowed)).toEqual([true, false, false, false]);
          },
        );
        expectUntouched(witness);
      } finally {
        await witness.close();
      }
    },
  );

  attack(
    'setup proxy: an allowed target whose connection fails at once (to end the App with an uncaught error)',
    'lookup answers asynchronously; the error is a 502',
    async () => {
      const uncaught: unknown[] = [];
      const record = (error: unknown) => uncaught.push(error);
      process.on('uncaughtException', record);
      try {
        await withProxy(
          { allowedHosts: ['far.test', 'far6.test'] },
          // Public addresses; bound to 127.0.0.1, the kernel refuses the connect itself (as ENETUNREACH would).
          (name) => ({ 'far.test': '203.0.113.20', 'far6.test': '2001:db8::20' })[name] ?? null,
          async (socketPath) => {
            for (const target of ['far.test:80', 'far6.test:80', 'far.test:443']) {
              const { connect, http } = proxyRequests(target);
              for (const request of [http, connect])
                expect((await sendThroughProxy(socketPath, request)).status).not.toMatch(/ 200 /);
            }
            // Still answering afterwards.
            expect(
              (await sendThroughProxy(socketPath, proxyRequests('evil.test:443').connect)).status,
            ).toMatch(REFUSED);
          },
        );
        await new Promise((resolve) => setImmediate(resolve));
        expect(uncaught).toEqual([]);
      } finally {
        process.off('uncaughtException', record);
      }
    },
  );

  attack(
    "setup proxy: the App host's own addresses (every interface, public ones too)",
    "host's interface addresses refused",
    async () => {
      const address = ownIPv4();
      const own = address ? await tcpWitness(address) : null;
      const port = own?.port ?? 443;
      try {
        const mine = hostAddresses();
        const names = Object.fromEntries(mine.map((entry, index) => [`own${index}.test`, entry]));
        await withProxy(
          // As an operator who allows every public host (here on the witness's port) would.
          { allowedHosts: [`*:${port}`], tlsPorts: [port] },
          (name) => names[name] ?? null,
          async (socketPath) => {
            const literals = mine.map((entry) => (entry.includes(':') ? `[${entry}]` : entry));
            const targets = [...Object.keys(names), ...literals].map((host) => `${host}:${port}`);
            await expectRefused(socketPath, targets);
          },
        );
        expectUntouched(own);
      } finally {
        await own?.close();
      }
    },
  );

  attack(
    'setup proxy: the loopback in other spellings (octal, hex, decimal, short, IPv6 forms, trailing dot)',
    'URL parsing + address check after resolution',
    async () => {
      const witness = await fresh();
      const spellings = [
        '0x7f000001',
        '2130706433',
        '0177.0.0.1',
        '0x7f.1',
        '127.1',
        '0',
        '0.0.0.0',
        '127.0.0.1.',
        'localhost',
        'localhost.',
        'LocalHost',
        '[::1]',
        '[0:0:0:0:0:0:0:1]',
        '[::]',
        '[::ffff:127.0.0.1]',
        '[::ffff:7f00:1]',
        '[0:0:0:0:0:ffff:7f00:1]',
        '[::ffff:0:127.0.0.1]',
        '[::127.0.0.1]',
        '[64:ff9b::127.0.0.1]',
        '[2002:7f00:1::]',
      ];
      try {
        await withProxy(
          // As an operator who allows every public host (here on the witness's port) would: only the address check is left.
          { allowedHosts: [`*:${witness.port}`], tlsPorts: [witness.port] },
          // What a resolver answers for names; numeric spellings go to getaddrinfo, which parses them locally.
          (name) => (/localhost\.?$/i.test(name) || name.endsWith('.') ? '127.0.0.1' : null),
          async (socketPath) => {
            const bodies = await expectRefused(
              socketPath,
              spellings.map((host) => `${host}:${witness.port}`),
            );
            expect(bodies.every((body) => /private or local address/.test(body))).toBe(true);
          },
        );
        expectUntouched(witness);
      } finally {
        await witness.close();
      }
    },
  );

  attack(
    'setup proxy: plain HTTP whose Host header names another host',
    'Host header must match the target',
    async () => {
      const witness = await fresh();
      try {
        await withProxy(
          { allowedHosts: [`mirror.test:${witness.port}`], explicitHosts: ['mirror.test'] },
          (name) => (name === 'mirror.test' ? '127.0.0.1' : null),
          async (socketPath) => {
            for (const host of ['evil.test', '127.0.0.1:6379', `mirror.test:${witness.port + 1}`]) {
              const answer = await sendThroughProxy(
                socketPath,
                `GET http://mirror.test:${witness.port}/ HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
              );
              expect(answer.status, answer.body).toMatch(REFUSED);
              expect(answer.body).toMatch(/Host header/);
            }
          },
        );
        expectUntouched(witness);
      } finally {
        await witness.close();
      }
    },
  );

  attack("setup proxy: using a finished job's proxy socket", 'per-job socket removed on close', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'selfdebug-egress-attack-'));
    const socketPath = join(dir, 'proxy.sock');
    try {
      const proxy = await EgressProxy.start({
        socketPath,
        policy: { allowedHosts: ['mirror.test'] },
        localAddress: '127.0.0.1',
      });
      expect(existsSync(socketPath)).toBe(true);
      await proxy.close();
      expect(existsSync(socketPath)).toBe(false);
      const answer = await sendThroughProxy(socketPath, proxyRequests('mirror.test:443').connect);
      expect(answer.status).toMatch(/^error (ENOENT|ECONNREFUSED)$/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** The host-side witnesses one phase's probe aims at; each phase has its own, so a hole shows where it is. */
interface PhaseWitnesses {
  host: Witness;
  ceiling: Witness;
  own: Witness | null;
  ownDirect: Witness | null;
  udp: Awaited<ReturnType<typeof udpWitness>>;
  /** What every attack of the phase tries to SET in Redis. */
  redisKey: string;
}

async function phaseWitnesses(): Promise<PhaseWitnesses> {
  const own = ownIPv4();
  return {
    host: (await tcpWitness())!,
    ceiling: (await tcpWitness())!,
    own: own ? await tcpWitness(own) : null,
    ownDirect: own ? await tcpWitness(own) : null,
    udp: await udpWitness(),
    redisKey: `selfdebug-egress-attack-${nonce()}`,
  };
}

async function closeWitnesses(witnesses: PhaseWitnesses | undefined): Promise<void> {
  if (!witnesses) return;
  const { host, ceiling, own, ownDirect, udp } = witnesses;
  await Promise.all([host, ceiling, own, ownDirect].map((witness) => witness?.close()));
  await udp.close();
}

/** The repository's own list: hosts beyond the ceiling, new ports on a trusted host, a host under a trusted domain. */
const repositoryAsks = (port: number) => [
  'evil.example.net',
  '127.0.0.1:6379',
  'mirror.test:6379',
  `mirror.test:${port}`,
  `cache.lan.test:${port}`,
  'cache.lan.test',
];

function probeConfig(witnesses: PhaseWitnesses): ProbeConfig {
  const { host, ceiling, own, ownDirect, udp, redisKey } = witnesses;
  const hostPort = host.port;
  return {
    hostPort,
    ownAddress: ownDirect ? { address: ownDirect.host, port: ownDirect.port } : null,
    udpPort: udp.port,
    redisKey,
    throughProxy: {
      not_allowlisted: ['evil.test:443', `evil.test:${hostPort}`, 'registry.npmjs.org.evil.test:443'],
      loopback: [
        `loop.test:${hostPort}`,
        `127.0.0.1:${hostPort}`,
        `[::1]:${hostPort}`,
        `localhost:${hostPort}`,
      ],
      other_port: [`mirror.test:${hostPort}`, 'mirror.test:22'],
      redis: ['127.0.0.1:6379', 'mirror.test:6379', 'cache.test:6379'],
      own_address: own ? [`own.test:${own.port}`, `${own.host}:${own.port}`] : ['own.test:443'],
      engine: ['127.0.0.1:2375', '127.0.0.1:2376', 'mirror.test:2375', 'engine.test:2375'],
      beyond_ceiling: repositoryAsks(ceiling.port).map((entry) =>
        entry.includes(':') ? entry : `${entry}:443`,
      ),
    },
  };
}

describeWithDocker('setup and loop containers on the real engine, attacking the network', () => {
  const docker = new Docker();
  const run = nonce();
  let dir: string;
  const witnesses: { setup?: PhaseWitnesses; loop?: PhaseWitnesses } = {};
  let engineWitnesses: (Witness | null)[] = [];
  let redis: Awaited<ReturnType<typeof redisWatch>> | undefined;
  let config: ProbeConfig;
  const sandboxes: Sandbox[] = [];
  let cacheDir: string | undefined;
  let ceilingNotes: string[] = [];
  let repositoryHosts: string[] = [];
  const results: { setup: ProbeResults; loop: ProbeResults; offline: ProbeResults } = {
    setup: {},
    loop: {},
    offline: {},
  };

  beforeAll(async () => {
    const setup = await phaseWitnesses();
    const loop = await phaseWitnesses();
    witnesses.setup = setup;
    witnesses.loop = loop;
    engineWitnesses = [await tcpWitness('127.0.0.1', 2375), await tcpWitness('127.0.0.1', 2376)];
    redis = await redisWatch();
    config = probeConfig(setup);
    dir = await mkdtemp(join(tmpdir(), 'selfdebug-egress-attack-'));
    await writeFile(join(dir, 'probe.py'), NETWORK_PROBE);
    await writeFile(join(dir, 'probe-config.json'), JSON.stringify(config));
    await writeFile(join(dir, 'probe-loop.json'), JSON.stringify(probeConfig(loop)));

    // The repository asks for more than the operator allows; its file goes the way every job's file goes.
    const parsed = parseRepoConfigText(
      [
        // The run's nonce keeps an earlier run's prepared environment (and its results) out of this one.
        `setup: ["python3 probe.py probe-config.json # ${run}"]`,
        'sandbox:',
        '  allowed_hosts:',
        ...repositoryAsks(setup.ceiling.port).map((host) => `    - "${host}"`),
      ].join('\n'),
    );
    if (!parsed.ok) throw new Error(parsed.message);
    const ceiled = applyOperatorCeilings(parsed.config, {
      maxMemoryMb: 4096,
      allowHostNetwork: false,
      allowRepoModelUrl: false,
      repoEgressCeiling: ['mirror.test', '*.lan.test', '*.example.org'],
    });
    ceilingNotes = ceiled.notes;
    const plan = await planEnvironment(ceiled.config, null, dir, { derive: false, allowedImages: [] });
    repositoryHosts = plan.request.allowedHosts;

    const names: Record<string, string> = {
      'mirror.test': '127.0.0.1',
      'loop.test': '127.0.0.1',
      'cache.test': '127.0.0.1',
      'engine.test': '127.0.0.1',
      'mirror.lan.test': '127.0.0.1',
      'cache.lan.test': '127.0.0.1',
      ...(setup.own ? { 'own.test': setup.own.host } : {}),
    };
    cacheDir = await mkdtemp(join(tmpdir(), 'selfdebug-egress-cache-'));
    const provider = new DockerSandboxProvider(
      parseSandboxConfig({
        ...TEST_SANDBOX,
        egressHosts: [
          'mirror.test',
          'mirror.lan.test',
          `loop.test:${setup.host.port}`,
          'cache.test:6379',
          'engine.test:2375',
          `own.test:${setup.own?.port ?? 443}`,
          ...(setup.own ? [`${setup.own.host}:${setup.own.port}`] : []),
        ],
        // A LAN domain the operator trusts for its mirror; a repository must not open its other hosts.
        egressTrustedHosts: ['mirror.test', '*.lan.test'],
        environmentCacheEntries: 5,
        environmentCacheDir: cacheDir,
      }),
      docker,
      undefined,
      undefined,
      { egressLookup: (hostname) => names[hostname] ?? null },
    );
    const prepared = await provider.open({
      jobId: `egress-attacks-${run}`,
      workspace: dir,
      environment: plan.request,
    });
    sandboxes.push(prepared);
    const setupRun = prepared.preparation?.setup[0]?.result;
    if (setupRun?.exitCode !== 0) throw new Error(`the setup probe failed: ${setupRun?.output}`);
    results.setup = JSON.parse(setupRun.stdout);
    const loopRun = await prepared.exec('python3 probe.py probe-loop.json', { timeoutSeconds: 120 });
    results.loop = JSON.parse(loopRun.stdout);

    // A job without an environment: the plain offline sandbox (network none).
    const offline = await new DockerSandboxProvider(parseSandboxConfig({ ...TEST_SANDBOX }), docker).open({
      jobId: `egress-attacks-offline-${run}`,
      workspace: dir,
    });
    sandboxes.push(offline);
    const offlineRun = await offline.exec('python3 probe.py probe-loop.json', { timeoutSeconds: 120 });
    results.offline = JSON.parse(offlineRun.stdout);
  }, 240_000);

  afterAll(async () => {
    await Promise.all(sandboxes.map((sandbox) => sandbox.dispose().catch(() => {})));
    if (cacheDir) {
      await removeStoreImages(cacheDir);
      await rm(cacheDir, { recursive: true, force: true });
    }
    await Promise.all(engineWitnesses.map((witness) => witness?.close()));
    await redis?.close();
    await closeWitnesses(witnesses.setup);
    await closeWitnesses(witnesses.loop);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 120_000);

  const loops = ['loop', 'offline'] as const;
  /** Every attempt of an attack in one container's results; an attack the probe never ran is a failure. */
  const attempts = (where: keyof typeof results, name: string) => {
    const found = results[where][name];
    expect(found, `${where} ran ${name}`).toBeDefined();
    return found!;
  };
  const allMatch = (where: keyof typeof results, name: string, pattern: RegExp) => {
    for (const outcome of attempts(where, name)) expect(outcome, `${where}: ${name}`).toMatch(pattern);
  };
  /** In the loop there is no proxy at all: the forwarder's port is closed. */
  const proxyGone = /^ConnectionRefusedError/;

  type Phase = 'setup' | 'loop';
  const phase = (where: Phase) => witnesses[where]!;
  /** The witnesses an attack aims at in one phase: only those must stay untouched for it to count as stopped. */
  const aimedAt = (where: Phase, name: string): (Witness | null)[] => {
    const { host, ceiling, own, ownDirect } = phase(where);
    if (name === 'own_address') return [own];
    if (name === 'direct_own_address') return [ownDirect];
    if (/engine/.test(name)) return engineWitnesses;
    if (/ceiling/.test(name)) return [ceiling];
    if (/redis|external|metadata/.test(name)) return [];
    return [host];
  };
  const containersOf = (where: Phase) => (where === 'setup' ? (['setup'] as const) : loops);

  const throughProxy = [
    ['not_allowlisted', 'a host not on the allowlist', 'allowlist'],
    ['loopback', 'the host loopback by name and address', 'address check after resolution'],
    ['other_port', 'a port other than 80 and 443', 'port allowlist'],
    ['redis', 'the Redis port (6379 on the loopback)', 'port allowlist, address check'],
    ['own_address', "the App host's own address", "host's interface addresses refused"],
    ['engine', 'the engine API over TCP (2375/2376 on the loopback)', 'port allowlist, address check'],
  ] as const;
  for (const [name, what, by] of throughProxy) {
    attack(`setup: ${what}, through the proxy`, by, async () => {
      allMatch('setup', name, /^(CONNECT|POST) HTTP\/1\.1 403 /);
      expectUntouched(...aimedAt('setup', name));
      await redis!.check(phase('setup').redisKey);
    });
    attack(`loop: ${what}, through where the proxy was`, 'no proxy, no forwarder', async () => {
      for (const where of loops) allMatch(where, name, proxyGone);
      expectUntouched(...aimedAt('loop', name));
      await redis!.check(phase('loop').redisKey);
    });
  }

  attack(
    'setup: repository hosts beyond the ceiling, or private ones under the operator’s trust',
    'operator ceiling; trust only on the operator’s own entries',
    async () => {
      expect(ceilingNotes.join('\n')).toMatch(/evil\.example\.net/);
      expect(repositoryHosts).not.toContain('evil.example.net');
      expect(repositoryHosts).not.toContain('127.0.0.1:6379');
      // Within the ceiling, so only the proxy keeps them from the loopback the operator trusts its mirrors with.
      expect(repositoryHosts).toEqual(expect.arrayContaining(['mirror.test:6379', 'cache.lan.test']));
      allMatch('setup', 'beyond_ceiling', /^(CONNECT|POST) HTTP\/1\.1 403 /);
      expectUntouched(phase('setup').ceiling);
      await redis!.check(phase('setup').redisKey);
    },
  );

  const NO_ROUTE = /unreachable|No route to host/i;
  const direct = [
    [
      'direct_host_loopback',
      "a server on the host's loopback, skipping the proxy",
      /^ConnectionRefusedError|^OSError/,
    ],
    // No route: ENETUNREACH for IPv4 (EHOSTUNREACH from gVisor's own stack); IPv6 has not even a source address.
    ['direct_own_address', "the host's own address, skipping the proxy", NO_ROUTE],
    [
      'direct_external',
      'an external address, skipping the proxy',
      /unreachable|No route to host|Cannot assign requested address/i,
    ],
    ['direct_metadata', 'cloud metadata (169.254.169.254), skipping the proxy', NO_ROUTE],
    ['direct_redis', 'Redis on 127.0.0.1:6379, skipping the proxy', /^ConnectionRefusedError/],
    ['direct_engine', 'the engine API over TCP (2375/2376), skipping the proxy', /^ConnectionRefusedError/],
  ] as const;
  for (const [name, what, pattern] of direct) {
    for (const where of ['setup', 'loop'] as const) {
      attack(`${where}: ${what}`, 'own network namespace, loopback only', async () => {
        for (const container of containersOf(where)) {
          expect(results[container].interfaces, `${container}'s interfaces`).toEqual(['lo']);
          if (name === 'direct_own_address' && !config.ownAddress) continue;
          allMatch(container, name, pattern);
          if (name === 'direct_engine') expect(attempts(container, 'engine_socket')).toEqual(['absent']);
        }
        expectUntouched(...aimedAt(where, name));
        await redis!.check(phase(where).redisKey);
      });
    }
  }

  for (const where of ['setup', 'loop'] as const) {
    attack(`${where}: a raw or packet socket`, 'CAP_NET_RAW dropped', () => {
      for (const container of containersOf(where)) {
        allMatch(container, 'raw_socket', /^PermissionError/);
        expect(attempts(container, 'raw_socket_capability')).toEqual(['no CAP_NET_RAW']);
      }
    });
    attack(
      `${where}: DNS exfiltration (system resolver, resolv.conf nameservers, a loopback resolver)`,
      'no resolver reachable',
      () => {
        for (const container of containersOf(where)) {
          allMatch(container, 'dns_system_resolver', /^gaierror/);
          for (const outcome of attempts(container, 'dns_query')) expect(outcome).not.toMatch(/^answered/);
          expect(attempts(container, 'dns_query').length).toBeGreaterThanOrEqual(4);
        }
        expect(phase(where).udp.datagrams, 'the host loopback resolver got a query').toBe(0);
      },
    );
  }
});
