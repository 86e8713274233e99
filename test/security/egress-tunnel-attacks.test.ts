import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { EgressPolicy } from '../../src/adapters/proxy/egress-policy.js';
import type { EgressProxy, EgressProxyOptions } from '../../src/adapters/proxy/egress-proxy.js';
import { attackSuite } from './attack-table.js';
import { proxyRequests, sendThroughProxy, tcpWitness } from './network-witness.js';
import { withProxyOnSocket } from './proxy-on-socket.js';
import {
  capturedClientHello,
  connectThroughProxy,
  type TlsStandIn,
  testCertificates,
  tlsOver,
  tlsStandIn,
  writeAndWaitForClose,
} from './tls-stand-in.js';

const attack = attackSuite('network');
/** The one name the tests give the loopback stand-ins, as an operator's mirror would be named. */
const MIRROR = 'mirror.test';
const lookup = (name: string) => (name.toLowerCase().replace(/\.$/, '') === MIRROR ? '127.0.0.1' : null);

/**
 * A proxy on its own socket, its outgoing connections bound to 127.0.0.1,
 * with the stand-in's port as its TLS port and mirror.test trusted on it:
 * only the checks inside the tunnel stand between a client and the stand-in.
 */
function withTunnelProxy(
  port: number,
  body: (socketPath: string, proxy: EgressProxy) => Promise<void>,
  extra: Partial<EgressProxyOptions> = {},
): Promise<void> {
  const policy: EgressPolicy = {
    allowedHosts: [`${MIRROR}:${port}`],
    explicitHosts: [MIRROR],
    tlsPorts: [port],
  };
  return withProxyOnSocket({ policy, lookup, ...extra }, body);
}

/** The latest record's reason: what the transcript says about the attack. */
const lastReason = (proxy: EgressProxy) => proxy.records().at(-1)?.reason ?? null;

describe('the setup proxy, attacked inside its tunnels', () => {
  let credentials: Awaited<ReturnType<typeof testCertificates>>;
  let standIn: TlsStandIn;
  beforeAll(async () => {
    credentials = await testCertificates(MIRROR);
    standIn = await tlsStandIn(credentials);
  });
  afterAll(async () => standIn?.close());

  /** What reached the stand-in during `body`, once the `tunnels` connections the proxy made to it have closed. */
  async function reachedDuring(tunnels: number, body: () => Promise<void>) {
    const before = {
      bytes: standIn.bytesReceived,
      names: standIn.serverNames.length,
      closed: standIn.closed,
    };
    await body();
    await standIn.closedCount(before.closed + tunnels);
    return {
      bytes: standIn.bytesReceived - before.bytes,
      names: standIn.serverNames.slice(before.names),
    };
  }

  attack(
    'setup proxy: a legitimate TLS handshake to an allowed host',
    'SNI matches the CONNECT host',
    async () => {
      await withTunnelProxy(standIn.port, async (socketPath, proxy) => {
        const pairs = [
          [MIRROR, MIRROR],
          ['Mirror.Test.', MIRROR],
          [MIRROR, 'MIRROR.test'],
        ] as const;
        const reached = await reachedDuring(pairs.length, async () => {
          for (const [host, servername] of pairs) {
            const { status, socket } = await connectThroughProxy(socketPath, `${host}:${standIn.port}`);
            expect(status).toMatch(/^HTTP\/1\.1 200 /);
            // A real handshake with the test CA: the client checks the certificate as any would.
            expect(await tlsOver(socket, servername, credentials.ca)).toBe('reached over TLS');
          }
        });
        expect(reached.names.map((name) => name?.toLowerCase())).toEqual([MIRROR, MIRROR, MIRROR]);
        expect(proxy.records().map((record) => [record.allowed, record.reason])).toEqual(
          pairs.map(() => [true, null]),
        );
        expect(proxy.targets().reduce((sum, tally) => sum + tally.allowed, 0)).toBe(pairs.length);
        expect(proxy.targets().every((tally) => tally.bytes > 0)).toBe(true);
      });
    },
  );

  attack(
    'setup proxy: CONNECT to port 80 (or any port that is not a TLS port)',
    'tunnels to TLS ports only',
    async () => {
      const witness = (await tcpWitness())!;
      try {
        await withTunnelProxy(
          standIn.port,
          async (socketPath, proxy) => {
            for (const port of [80, witness.port]) {
              const answer = await sendThroughProxy(
                socketPath,
                proxyRequests(`${MIRROR}:${port}`).connect,
                'GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n',
              );
              expect(answer.status).toMatch(/^HTTP\/1\.1 403 /);
              expect(answer.body).toMatch(/tunnels go to TLS ports only/);
            }
            // Plain HTTP to the same host and port goes by absolute URI, where the Host header is checked.
            const http = await sendThroughProxy(socketPath, proxyRequests(`${MIRROR}:${witness.port}`).http);
            expect(http.status).toMatch(/^HTTP\/1\.1 200 /);
            expect(proxy.records().map((record) => record.allowed)).toEqual([false, false, true]);
          },
          // The operator allows the witness's port for plain HTTP, but not as a TLS port.
          {
            policy: {
              allowedHosts: [MIRROR, `${MIRROR}:${witness.port}`],
              explicitHosts: [MIRROR],
              tlsPorts: [standIn.port],
            },
          },
        );
        expect(witness.connections).toBe(1);
        expect(witness.received).not.toMatch(/evil\.test/);
      } finally {
        await witness.close();
      }
    },
  );

  attack(
    'setup proxy: SNI fronting (a ClientHello naming another host in an allowed CONNECT)',
    'SNI must match the CONNECT host',
    async () => {
      await withTunnelProxy(standIn.port, async (socketPath, proxy) => {
        const reached = await reachedDuring(3, async () => {
          for (const servername of ['evil.test', 'mirror.test.evil.test', '']) {
            const { status, socket } = await connectThroughProxy(socketPath, `${MIRROR}:${standIn.port}`);
            expect(status).toMatch(/^HTTP\/1\.1 200 /);
            expect(await tlsOver(socket, servername, credentials.ca)).toMatch(/^error|^closed$/);
          }
        });
        // Not a byte of the ClientHello reached the stand-in.
        expect(reached).toEqual({ bytes: 0, names: [] });
        expect(proxy.records().map((record) => record.reason)).toEqual([
          `the TLS ClientHello names evil.test, not ${MIRROR}`,
          `the TLS ClientHello names mirror.test.evil.test, not ${MIRROR}`,
          `a TLS ClientHello without a server name (SNI) for ${MIRROR}`,
        ]);
        expect(proxy.targets()).toEqual([
          expect.objectContaining({ target: `${MIRROR}:${standIn.port}`, allowed: 0, refused: 3 }),
        ]);
      });
    },
  );

  attack(
    'setup proxy: bytes that are not TLS inside a tunnel to a TLS port',
    'ClientHello required first',
    async () => {
      await withTunnelProxy(standIn.port, async (socketPath, proxy) => {
        const reached = await reachedDuring(2, async () => {
          for (const bytes of ['GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n', 'SSH-2.0-OpenSSH_9.6\r\n']) {
            const { socket } = await connectThroughProxy(socketPath, `${MIRROR}:${standIn.port}`);
            expect(await writeAndWaitForClose(socket, Buffer.from(bytes))).toBe('');
            expect(lastReason(proxy)).toMatch(/^not a TLS ClientHello/);
          }
        });
        expect(reached).toEqual({ bytes: 0, names: [] });
      });
    },
  );

  attack(
    'setup proxy: a tunnel that never sends its ClientHello',
    'bounded wait for the ClientHello',
    async () => {
      await withTunnelProxy(
        standIn.port,
        async (socketPath, proxy) => {
          const reached = await reachedDuring(1, async () => {
            const { socket } = await connectThroughProxy(socketPath, `${MIRROR}:${standIn.port}`);
            // Half a ClientHello, then nothing: the proxy closes the tunnel when its wait ends.
            const hello = await capturedClientHello(MIRROR);
            expect(await writeAndWaitForClose(socket, hello.subarray(0, 40))).toBe('');
          });
          expect(reached.bytes).toBe(0);
          expect(lastReason(proxy)).toBe('no whole TLS ClientHello within 0.2 s');
        },
        { helloTimeoutMs: 200 },
      );
    },
  );

  attack(
    'setup proxy: a ClientHello split across records and writes',
    'the whole ClientHello is read, then handed on',
    async () => {
      await withTunnelProxy(standIn.port, async (socketPath, proxy) => {
        const hello = await capturedClientHello(MIRROR);
        const reached = await reachedDuring(1, async () => {
          const { socket } = await connectThroughProxy(socketPath, `${MIRROR}:${standIn.port}`);
          const cut = 60;
          // The handshake in two records, the second sent in two writes.
          const first = Buffer.concat([Buffer.from([22, 3, 1, 0, cut]), hello.subarray(5, 5 + cut)]);
          const rest = hello.subarray(5 + cut);
          const second = Buffer.concat([Buffer.from([22, 3, 1, rest.length >> 8, rest.length & 255]), rest]);
          socket.write(first);
          socket.write(second.subarray(0, 10));
          socket.end(second.subarray(10));
          await writeAndWaitForClose(socket);
        });
        // The stand-in read the ClientHello as its client wrote it, and saw the name it carried.
        expect(reached.names).toEqual([MIRROR]);
        expect(reached.bytes).toBe(hello.length + 5);
        expect(proxy.records()[0]).toMatchObject({ allowed: true, reason: null });
      });
    },
  );
});
