import { describe, expect } from 'vitest';
import { attackSuite } from './attack-table.js';
import { proxyRequests, sendThroughProxy } from './network-witness.js';
import { withProxyOnSocket } from './proxy-on-socket.js';

const attack = attackSuite('network');

describe('the setup proxy, asked for addresses no registry has', () => {
  attack(
    'setup proxy: an allowlisted name resolving to a multicast or reserved address',
    'address checked after resolution',
    async () => {
      const answers: Record<string, string> = {
        'mdns.test': '224.0.0.251',
        'ssdp.test': '239.255.255.250',
        'classe.test': '240.0.0.1',
        'broadcast.test': '255.255.255.255',
        'ietf.test': '192.0.0.8',
        'bench.test': '198.18.0.1',
        'multicast6.test': 'ff02::1',
        'global6.test': 'ff0e::1',
        'discard6.test': '100::1',
        'mapped.test': '::ffff:239.255.255.250',
      };
      const names = Object.keys(answers);
      await withProxyOnSocket(
        // Each name on the operator's allowlist: only the address check is left.
        { policy: { allowedHosts: names }, lookup: (name) => answers[name] ?? null },
        async (socketPath, proxy) => {
          for (const name of names) {
            for (const target of [`${name}:443`, `${name}:80`]) {
              const { connect, http } = proxyRequests(target);
              const request = target.endsWith(':443') ? connect : http;
              const answer = await sendThroughProxy(socketPath, request);
              expect(answer.status, `${target}: ${answer.body}`).toMatch(/^HTTP\/1\.1 403 /);
              expect(answer.body).toContain(`${answers[name]} is a private or local address`);
            }
          }
          expect(proxy.targets().every((tally) => tally.allowed === 0)).toBe(true);
        },
      );
    },
  );
});
