import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EgressProxy, type EgressProxyOptions } from '../../src/adapters/proxy/egress-proxy.js';

/**
 * A proxy as a job gets it, on its own Unix socket, with outgoing
 * connections bound to 127.0.0.1: whatever a bug let through could only
 * reach this host's loopback (where the witnesses listen), never beyond.
 */
export async function withProxyOnSocket(
  options: Omit<EgressProxyOptions, 'socketPath' | 'localAddress'>,
  body: (socketPath: string, proxy: EgressProxy) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'selfdebug-egress-attack-'));
  const socketPath = join(dir, 'proxy.sock');
  const proxy = await EgressProxy.start({ ...options, socketPath, localAddress: '127.0.0.1' });
  try {
    await body(socketPath, proxy);
  } finally {
    await proxy.close();
    await rm(dir, { recursive: true, force: true });
  }
}
