import { lookup as dnsLookup, type LookupAddress, type LookupOneOptions } from 'node:dns';
import { chmod } from 'node:fs/promises';
import { connect, createServer, isIP, type Server as NetServer } from 'node:net';
import { RequestError, Server } from 'proxy-chain';
import { type Logger, silentLogger } from '../../util/logger.js';
import {
  checkTarget,
  type EgressPolicy,
  hostAddresses,
  isForbiddenAddress,
  isHostAddress,
  isTrusted,
  normalizeHost,
} from './egress-policy.js';

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
  /**
   * The local address outgoing connections leave from (the interface setup
   * traffic should use). Tests set 127.0.0.1, where the kernel refuses any
   * connection that would leave the host, so nothing a test lets through
   * can reach further than the loopback.
   */
  localAddress?: string;
  /** The App host's addresses, refused like private ones; default: every interface's, read at each request. */
  hostAddresses?: () => readonly string[];
  logger?: Logger;
  /** Told of each refusal as it happens (target host:port, reason, advice), so setup can stop a step that keeps asking. */
  onRefusal?: (refusal: { target: string; reason: string; advice: string }) => void;
}

/** What proxy-chain tells prepareRequestFunction about a request: the fields the proxy reads. */
interface ProxyRequest {
  connectionId: number;
  hostname: string;
  port: number;
  isHttp: boolean;
  request: { method?: string; headers: Record<string, string | string[] | undefined> };
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * What to do about a refusal, by its cause: the repository's allowlist opens names and ports, but a
 * name that leads to a private, local or App-host address is opened only by the operator.
 */
const ALLOWLIST_ADVICE =
  'Add it (host or host:port) to sandbox.allowed_hosts in .github/selfdebug.yml if setup needs it.';
const HOST_HEADER_ADVICE =
  'Send the request to the host its Host header names; a proxy request may not name another.';
const UNRESOLVED_ADVICE =
  "Check the name: the App's host could not resolve it, so setup cannot reach it either.";
const LOCAL_ADVICE =
  'sandbox.allowed_hosts cannot open private or local addresses; only the operator can, by listing the host in ' +
  'SELFDEBUG_EGRESS_TRUSTED_HOSTS (and in SELFDEBUG_EGRESS_HOSTS).';

/**
 * The allowlisting proxy of the setup phase, on proxy-chain (CONNECT and
 * plain HTTP). For each request it checks host and port against the
 * policy, resolves the name itself, refuses private and local addresses
 * and the App host's own unless the operator trusts the host (and its own
 * list opened the port), and hands proxy-chain a lookup pinned to the
 * addresses it checked, so a name that resolves differently a moment
 * later (DNS rebinding) still goes where it was judged to go. One proxy
 * per job, on a socket that goes when the proxy is closed: there are no
 * credentials to steal, and nothing left to use after the job.
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

  /**
   * proxy-chain calls this for CONNECT and for plain HTTP alike, with the
   * target it will connect to (parsed by the WHATWG URL parser, so
   * `http://0x7f000001/` arrives as 127.0.0.1; CONNECT's authority stays as
   * written and is resolved here like any name).
   */
  private async decide(
    request: ProxyRequest,
    options: EgressProxyOptions,
  ): Promise<{ dnsLookup: typeof dnsLookup; localAddress?: string }> {
    const record = this.recordOf(request);
    const refuse = (reason: string, advice: string): never => {
      record.reason = reason;
      options.logger?.info({ target: `${record.host}:${record.port}`, reason }, 'egress refused');
      options.onRefusal?.({ target: `${record.host}:${record.port}`, reason, advice });
      throw new RequestError(`selfdebug refused ${record.host}:${record.port}: ${reason}. ${advice}`, 403);
    };
    const verdict = checkTarget(options.policy, record.host, record.port);
    if (!verdict.allowed) refuse(verdict.reason, ALLOWLIST_ADVICE);
    if (request.isHttp) {
      const named = hostHeaderMismatch(request.request.headers.host, record.host, record.port);
      if (named) refuse(named, HOST_HEADER_ADVICE);
    }
    const addresses = await resolve(record.host, options.lookup).catch(() => null);
    if (addresses === null) return refuse(`${record.host} could not be resolved`, UNRESOLVED_ADVICE);
    const local = localRefusal(addresses, options);
    // Trust covers what the operator's own list opens, never a port a repository added to a trusted host.
    if (local && !(verdict.allowed && verdict.by === 'operator' && isTrusted(options.policy, record.host)))
      refuse(local, LOCAL_ADVICE);
    record.allowed = true;
    (options.logger ?? silentLogger).debug(
      { target: `${record.host}:${record.port}`, addresses },
      'egress allowed',
    );
    return {
      dnsLookup: pinnedLookup(addresses) as unknown as typeof dnsLookup,
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    };
  }

  /** The request's record, refused until decide lets it through; its bytes are counted when its connection closes. */
  private recordOf(request: ProxyRequest): EgressRecord {
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
    return record;
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
 * Why one of a name's addresses is private, local or the App host's own, if
 * one is: every address must be acceptable, or a client could be steered to
 * the bad one.
 */
function localRefusal(addresses: string[], options: EgressProxyOptions): string | null | undefined {
  const own = (options.hostAddresses ?? hostAddresses)();
  return addresses.map((address) => isForbiddenAddress(address) ?? isHostAddress(address, own)).find(Boolean);
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

/**
 * A plain HTTP request names its target twice, in the request line (where
 * proxy-chain connects) and in the Host header (which server the far end
 * serves): a Host naming another site would let setup reach any site that
 * shares an allowlisted host's front end.
 */
function hostHeaderMismatch(
  header: string | string[] | undefined,
  host: string,
  port: number,
): string | null {
  if (header === undefined) return null;
  const value = Array.isArray(header) ? header.join(',') : header;
  let named: URL;
  try {
    named = new URL(`http://${value}`);
  } catch {
    return `the Host header "${value.slice(0, 100)}" is not a host`;
  }
  const namedPort = named.port === '' ? 80 : Number(named.port);
  return normalizeHost(named.hostname) === normalizeHost(host) && namedPort === port
    ? null
    : `the Host header names ${value.slice(0, 100)}, not ${host}:${port}`;
}

/** The addresses of a name: the override's, an IP literal as it is, else every DNS answer. */
async function resolve(host: string, override?: (hostname: string) => string | null): Promise<string[]> {
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
function pinnedLookup(addresses: readonly string[]) {
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
