import { lookup as dnsLookup, type LookupAddress, type LookupOneOptions } from 'node:dns';
import { chmod } from 'node:fs/promises';
import { connect, createServer, isIP, type Server as NetServer } from 'node:net';
import { RequestError, Server } from 'proxy-chain';
import { type Logger, silentLogger } from '../../util/logger.js';
import { checkTarget, type EgressPolicy, isForbiddenAddress, isTrusted } from './egress-policy.js';

export interface EgressRecord {
  host: string;
  port: number;
  method: string;
  allowed: boolean;
  reason: string | null;
  bytesIn: number;
  bytesOut: number;
  at: string;
}

export interface EgressProxyOptions {
  /** A Unix socket to listen on (how containers reach it); else 127.0.0.1 on `port` (0: any). */
  socketPath?: string;
  port?: number;
  policy: EgressPolicy;
  /** Names resolved before DNS is asked (null: ask DNS). */
  lookup?: (hostname: string) => string | null;
  logger?: Logger;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * The allowlisting proxy of the setup phase, on proxy-chain (CONNECT and
 * plain HTTP). For each request it checks host and port against the
 * policy, resolves the name itself, refuses private and local addresses
 * unless the operator trusts the host, and hands proxy-chain a lookup
 * pinned to the address it checked, so a name that resolves differently a
 * moment later (DNS rebinding) still goes where it was judged to go.
 */
export class EgressProxy {
  private readonly log: EgressRecord[] = [];
  private readonly byConnection = new Map<number, EgressRecord>();

  private relay: NetServer | null = null;

  private constructor(
    private readonly server: Server,
    readonly address: string,
  ) {}

  static async start(options: EgressProxyOptions): Promise<EgressProxy> {
    let proxy: EgressProxy | null = null;
    const server = new Server({
      port: options.port ?? 0,
      host: '127.0.0.1',
      prepareRequestFunction: (request) => proxy!.decide(request, options),
    });
    await server.listen();
    proxy = new EgressProxy(server, options.socketPath ?? `127.0.0.1:${server.port}`);
    if (options.socketPath) proxy.relay = await relayUnixSocket(options.socketPath, server.port);
    server.on('connectionClosed', ({ connectionId, stats }) => proxy!.account(connectionId, stats));
    return proxy;
  }

  records(): EgressRecord[] {
    return this.log.map((record) => ({ ...record }));
  }

  async close(): Promise<void> {
    const relay = this.relay;
    if (relay) await new Promise((resolve) => relay.close(resolve));
    await this.server.close(true);
  }

  private async decide(
    request: { connectionId: number; hostname: string; port: number; request: { method?: string } },
    options: EgressProxyOptions,
  ): Promise<{ dnsLookup: typeof dnsLookup }> {
    const record: EgressRecord = {
      host: request.hostname.toLowerCase(),
      port: request.port,
      method: request.request.method ?? 'GET',
      allowed: false,
      reason: null,
      bytesIn: 0,
      bytesOut: 0,
      at: new Date().toISOString(),
    };
    this.log.push(record);
    this.byConnection.set(request.connectionId, record);
    const refuse = (reason: string): never => {
      record.reason = reason;
      options.logger?.info({ target: `${record.host}:${record.port}`, reason }, 'egress refused');
      throw new RequestError(
        `selfdebug refused ${record.host}:${record.port}: ${reason}. Add it to sandbox.allowed_hosts in .github/selfdebug.yml if it is needed.`,
        403,
      );
    };
    const verdict = checkTarget(options.policy, record.host, record.port);
    if (!verdict.allowed) refuse(verdict.reason);
    const address = await resolve(record.host, options.lookup).catch(() => null);
    if (address === null) return refuse(`${record.host} could not be resolved`);
    const forbidden = isForbiddenAddress(address);
    if (forbidden && !isTrusted(options.policy, record.host)) refuse(forbidden);
    record.allowed = true;
    (options.logger ?? silentLogger).debug(
      { target: `${record.host}:${record.port}`, address },
      'egress allowed',
    );
    return { dnsLookup: pinnedLookup(address) as unknown as typeof dnsLookup };
  }

  private account(
    connectionId: number,
    stats: { trgRxBytes: number | null; trgTxBytes: number | null } | undefined,
  ) {
    const record = this.byConnection.get(connectionId);
    this.byConnection.delete(connectionId);
    if (!record || !stats) return;
    record.bytesIn += stats.trgRxBytes ?? 0;
    record.bytesOut += stats.trgTxBytes ?? 0;
  }
}

/**
 * proxy-chain drops connections without a remote address, which is every
 * Unix-socket connection, so containers' connections arrive on a socket
 * whose server only pipes bytes to the proxy's loopback port.
 */
async function relayUnixSocket(path: string, port: number): Promise<NetServer> {
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

/** One address for a name: the override, an IP literal as it is, else the first DNS answer. */
async function resolve(host: string, override?: (hostname: string) => string | null): Promise<string> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return bare;
  const overridden = override?.(bare);
  if (overridden) return overridden;
  const addresses = await new Promise<LookupAddress[]>((done, fail) =>
    dnsLookup(bare, { all: true }, (error, found) => (error ? fail(error) : done(found))),
  );
  // Every address the name has must be acceptable, or a client could be steered to the bad one.
  const bad = addresses.find((entry) => isForbiddenAddress(entry.address) !== null);
  return (bad ?? addresses[0])!.address;
}

/** A lookup for proxy-chain's connection that always answers with the address that was checked. */
function pinnedLookup(address: string) {
  const family = isIP(address);
  return (_hostname: string, options: LookupOneOptions | LookupCallback, callback?: LookupCallback) => {
    const done = (typeof options === 'function' ? options : callback)!;
    const all = typeof options === 'object' && (options as { all?: boolean }).all;
    if (all) done(null, [{ address, family }]);
    else done(null, address, family);
  };
}
