import { lookup as dnsLookup, type LookupAddress, type LookupOneOptions } from 'node:dns';
import { chmod } from 'node:fs/promises';
import { connect, createServer, isIP, type Server as NetServer, type Socket } from 'node:net';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** The addresses of a name: the override's, an IP literal as it is, else every DNS answer. */
export async function resolve(
  host: string,
  override?: (hostname: string) => string | null,
): Promise<string[]> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return [bare];
  const overridden = override?.(bare);
  if (overridden) return [overridden];
  const addresses = await new Promise<LookupAddress[]>((done, fail) =>
    dnsLookup(bare, { all: true }, (error, found) => (error ? fail(error) : done(found))),
  );
  if (addresses.length === 0) throw new Error(`no address for ${bare}`);
  return addresses.map((entry) => entry.address);
}

/**
 * A lookup for proxy-chain's connection that answers with the addresses
 * that were checked, and only those (all of them, so Node can fall back
 * from IPv6 to IPv4 as it would with DNS). It answers asynchronously, as
 * DNS does: an answer given at once makes a connect that fails at once
 * (ENETUNREACH, EINVAL) emit its error before http's agent listens for it,
 * an uncaught exception that would end the App.
 */
export function pinnedLookup(addresses: readonly string[]) {
  const entries = addresses.map((address) => ({ address, family: isIP(address) }));
  return (_hostname: string, options: LookupOneOptions | LookupCallback, callback?: LookupCallback) => {
    const done = (typeof options === 'function' ? options : callback)!;
    const all = typeof options === 'object' && (options as { all?: boolean }).all;
    const first = entries[0]!;
    setImmediate(() => {
      if (all) done(null, entries);
      else done(null, first.address, first.family);
    });
  };
}

/**
 * A tunnel's connection to the addresses that were checked, open before
 * the client is told 200, so a target that cannot be reached is a 502 as
 * with any proxy, not a tunnel that closes at once.
 */
export function openTarget(
  host: string,
  port: number,
  addresses: readonly string[],
  localAddress?: string,
): Promise<Socket> {
  return new Promise((resolved, rejected) => {
    const socket = connect({
      host: host.replace(/^\[|\]$/g, ''),
      port,
      lookup: pinnedLookup(addresses) as never,
      ...(localAddress ? { localAddress } : {}),
    });
    socket.once('error', rejected);
    socket.once('connect', () => {
      socket.off('error', rejected);
      resolved(socket);
    });
  });
}

/**
 * proxy-chain drops connections without a remote address, which is every
 * Unix-socket connection, so containers' connections arrive on a socket
 * whose server only pipes bytes to the proxy's loopback port.
 */
export async function relayUnixSocket(path: string, port: number): Promise<NetServer> {
  const relay = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.once('error', end).once('close', end);
    upstream.once('error', end).once('close', end);
  });
  await new Promise<void>((resolve, reject) => {
    relay.once('error', reject);
    relay.listen(path, resolve);
  });
  // Containers connect as their own uid through a bind mount of the socket's folder.
  await chmod(path, 0o666);
  return relay;
}
