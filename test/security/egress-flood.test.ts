import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect } from 'vitest';
import { egressTargets } from '../../src/adapters/docker/environment-preparer.js';
import { OTHER_TARGETS } from '../../src/adapters/proxy/egress-log.js';
import type { EgressProxy } from '../../src/adapters/proxy/egress-proxy.js';
import { environmentLines } from '../../src/report/environment-summary.js';
import { NO_PREPARATION } from '../../src/sandbox/environment.js';
import { attackSuite } from './attack-table.js';
import { proxyRequests, sendThroughProxy } from './network-witness.js';
import { withProxyOnSocket } from './proxy-on-socket.js';
import { connectThroughProxy, type TlsStandIn, testCertificates, tlsStandIn } from './tls-stand-in.js';

const attack = attackSuite('network');

/** The collector, so the heap is measured as what stays reachable, not what has not been collected yet. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Refused CONNECTs to `count` names of their own, `parallel` at a time, each on a connection of its own. */
async function flood(socketPath: string, from: number, count: number, parallel = 32): Promise<void> {
  let next = from;
  const statuses = new Map<string, number>();
  const worker = async () => {
    while (next < from + count) {
      const name = `flood-${next++}.evil.test:443`;
      const { status } = await sendThroughProxy(socketPath, proxyRequests(name).connect);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  expect(Object.fromEntries(statuses)).toEqual({ 'HTTP/1.1 403 Forbidden': count });
}

/** What the proxy holds about requests: its sample and its tallies. */
const held = (proxy: EgressProxy) => ({ records: proxy.records().length, targets: proxy.targets().length });

describe('the setup proxy under a flood', () => {
  attack(
    'setup proxy: a flood of refused CONNECTs to grow the App’s memory',
    'counts per target (capped) and a bounded sample',
    async () => {
      const gc = collector();
      await withProxyOnSocket({ policy: { allowedHosts: ['mirror.test'] } }, async (socketPath, proxy) => {
        // Enough to fill the sample and the tallies, so what follows can only replace, never add.
        await flood(socketPath, 0, 2_000);
        gc();
        const before = { heap: process.memoryUsage().heapUsed, ...held(proxy) };
        await flood(socketPath, 2_000, 20_000);
        gc();
        const after = { heap: process.memoryUsage().heapUsed, ...held(proxy) };
        expect(after.records).toBe(before.records);
        expect(after.targets).toBe(before.targets);
        const total = proxy.targets().reduce((sum, tally) => sum + tally.refused, 0);
        expect(total).toBe(22_000);
        expect(proxy.targets().find((tally) => tally.target === OTHER_TARGETS)?.refused).toBeGreaterThan(
          20_000,
        );
        // 20 000 records kept whole would take several MB; a flat log leaves only the collector's noise.
        const grownMb = (after.heap - before.heap) / 1024 / 1024;
        console.log(`egress flood: 20000 refused CONNECTs, heap grew ${grownMb.toFixed(2)} MB; held`, after);
        expect(grownMb).toBeLessThan(2);
      });
    },
    600_000,
  );

  attack(
    'setup proxy: more connections at once than the proxy allows',
    'an explicit limit, refused with its reason',
    async () => {
      const credentials = await testCertificates('mirror.test');
      const standIn: TlsStandIn = await tlsStandIn(credentials);
      const policy = {
        allowedHosts: [`mirror.test:${standIn.port}`],
        explicitHosts: ['mirror.test'],
        tlsPorts: [standIn.port],
      };
      const target = `mirror.test:${standIn.port}`;
      try {
        await withProxyOnSocket(
          { policy, lookup: () => '127.0.0.1', maxConnections: 3, helloTimeoutMs: 300_000 },
          async (socketPath, proxy) => {
            // Three tunnels held open, waiting for their ClientHello: the limit is reached.
            const open = await Promise.all([1, 2, 3].map(() => connectThroughProxy(socketPath, target)));
            expect(open.map((tunnel) => tunnel.status.split('\r\n')[0])).toEqual(
              Array(3).fill('HTTP/1.1 200 Connection Established'),
            );
            const refused = await sendThroughProxy(socketPath, proxyRequests(target).connect);
            expect(refused.status).toMatch(/^HTTP\/1\.1 503 /);
            expect(refused.body).toMatch(/4 connections are open, past the proxy's limit of 3/);
            expect(refused.body).toMatch(/SELFDEBUG_EGRESS_MAX_CONNECTIONS/);
            // One closes: the next request gets through again.
            const closed = new Promise((resolve) => open[0]!.socket.once('close', resolve));
            open[0]!.socket.destroy();
            await closed;
            await standIn.closedCount(1);
            const again = await connectThroughProxy(socketPath, target);
            expect(again.status).toMatch(/^HTTP\/1\.1 200 /);
            for (const tunnel of [...open, again]) tunnel.socket.destroy();
            expect(proxy.targets()).toContainEqual(
              expect.objectContaining({ target, refused: 1, reason: expect.stringMatching(/limit of 3/) }),
            );
            // The refusal and its reason reach the setup transcript, as every egress record does.
            const lines = environmentLines({ ...NO_PREPARATION, egress: egressTargets(proxy) });
            expect(lines.join('\n')).toMatch(
              new RegExp(`refused ${target}: 4 connections are open, past the proxy's limit of 3`),
            );
          },
        );
      } finally {
        await standIn.close();
      }
    },
  );
});
