import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, expect } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { parseRepoConfigText } from '../../src/config/repo-config.js';
import { planEnvironment } from '../../src/environment/plan-environment.js';
import { environmentLines } from '../../src/report/environment-summary.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { describeWithDocker, removeStoreImages, TEST_SANDBOX } from '../helpers/docker.js';
import { attackSuite } from './attack-table.js';
import { type TlsStandIn, testCertificates, tlsStandIn } from './tls-stand-in.js';

const attack = attackSuite('network');
const LIMIT = 4;
const TUNNELS = 10;

/** Opens TUNNELS CONNECTs through the forwarder at once and holds them; prints each answer's status line. */
const HOLD_TUNNELS = `
import json, socket, sys
target = sys.argv[1]
held, statuses = [], []
for _ in range(${TUNNELS}):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=60)
    s.sendall(("CONNECT %s HTTP/1.1\\r\\nHost: %s\\r\\n\\r\\n" % (target, target)).encode())
    answer = b""
    while b"\\r\\n\\r\\n" not in answer:
        chunk = s.recv(4096)
        if not chunk:
            break
        answer += chunk
    statuses.append(answer.split(b"\\r\\n")[0].decode())
    held.append(s)
print(json.dumps(statuses))
`;

describeWithDocker('the forwarder and the proxy under more connections than the limit', () => {
  const run = randomBytes(6).toString('hex');
  let dir: string;
  let cacheDir: string;
  let standIn: TlsStandIn;
  let prepared: Sandbox | null = null;
  let statuses: string[] = [];

  beforeAll(async () => {
    standIn = await tlsStandIn(await testCertificates('mirror.test'));
    dir = await mkdtemp(join(tmpdir(), 'selfdebug-egress-forwarder-'));
    cacheDir = await mkdtemp(join(tmpdir(), 'selfdebug-egress-cache-'));
    await writeFile(join(dir, 'hold.py'), HOLD_TUNNELS);
    const target = `mirror.test:${standIn.port}`;
    const parsed = parseRepoConfigText(`setup: ["python3 hold.py ${target} # ${run}"]`);
    if (!parsed.ok) throw new Error(parsed.message);
    const plan = await planEnvironment(parsed.config, null, dir, { derive: false, allowedImages: [] });
    const provider = new DockerSandboxProvider(
      parseSandboxConfig({
        ...TEST_SANDBOX,
        egressHosts: [target],
        egressTrustedHosts: ['mirror.test'],
        egressTlsPorts: [standIn.port],
        egressMaxConnections: LIMIT,
        environmentCacheEntries: 5,
        environmentCacheDir: cacheDir,
      }),
      new Docker(),
      undefined,
      undefined,
      { egressLookup: (hostname) => (hostname === 'mirror.test' ? '127.0.0.1' : null) },
    );
    prepared = await provider.open({
      jobId: `egress-forwarder-${run}`,
      workspace: dir,
      environment: plan.request,
    });
    const setupRun = prepared.preparation?.setup[0]?.result;
    if (setupRun?.exitCode !== 0) throw new Error(`the setup script failed: ${setupRun?.output}`);
    statuses = JSON.parse(setupRun.stdout);
  }, 240_000);

  afterAll(async () => {
    await prepared?.dispose().catch(() => {});
    if (cacheDir) await removeStoreImages(cacheDir);
    await standIn?.close();
    await Promise.all(
      [dir, cacheDir].filter(Boolean).map((path) => rm(path, { recursive: true, force: true })),
    );
  }, 120_000);

  attack(
    'setup: more tunnels through the forwarder than the proxy allows',
    'the proxy refuses past its limit, below the forwarder’s capacity, with the reason in the transcript',
    () => {
      // Every connection got an answer from the proxy (none hung or was dropped by the forwarder).
      expect(statuses).toHaveLength(TUNNELS);
      const opened = statuses.filter((status) => / 200 /.test(status)).length;
      expect(opened).toBeGreaterThan(0);
      expect(opened).toBeLessThanOrEqual(LIMIT);
      expect(statuses.slice(opened).every((status) => /^HTTP\/1\.1 503 /.test(status))).toBe(true);
      const transcript = environmentLines(prepared!.preparation!).join('\n');
      expect(transcript).toMatch(/connections are open, past the proxy's limit of 4/);
    },
  );
});
