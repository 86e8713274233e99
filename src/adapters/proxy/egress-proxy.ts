import type { lookup as dnsLookup } from 'node:dns';
import type { Server as HttpServer } from 'node:http';
import type { Server as NetServer } from 'node:net';
import { RequestError, Server } from 'proxy-chain';
import { type Logger, silentLogger } from '../../util/logger.js';
import { EgressLog, type EgressRecord, type EgressTally } from './egress-log.js';
import { openTarget, pinnedLookup, relayUnixSocket, resolve } from './egress-network.js';
import {
  checkTarget,
  type EgressPolicy,
  hostAddresses,
  isForbiddenAddress,
  isHostAddress,
  isTrusted,
  normalizeHost,
  tunnelPortRefusal,
} from './egress-policy.js';
import { tlsTunnel } from './tls-tunnel.js';

export type { EgressRecord, EgressTally } from './egress-log.js';

/** Connections setup may hold open through the proxy at once, unless the operator says otherwise. */
const DEFAULT_MAX_CONNECTIONS = 128;
/** How long a tunnel's client may take to send its whole ClientHello, unless told otherwise. */
const DEFAULT_HELLO_TIMEOUT_MS = 10_000;

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
  /**
   * Most connections (tunnels and plain HTTP) open at once; a request on one
   * past it is refused with the reason. Kept below what the forwarder can
   * hold, so the refusal is the proxy's, with a reason, never the forwarder's silence.
   */
  maxConnections?: number;
  /** How long a tunnel may wait for its ClientHello. */
  helloTimeoutMs?: number;
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

/** Records a refusal and throws proxy-chain's RequestError, whose message is the answer's body. */
type Refuse = (reason: string, advice: string, status?: number) => never;

/** What decide hands back to proxy-chain: a pinned lookup for plain HTTP, the inspecting tunnel for CONNECT. */
type Decision = { dnsLookup: typeof dnsLookup; localAddress?: string } | { customConnectServer: HttpServer };

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
const TUNNEL_PORT_ADVICE =
  'Send plain HTTP through the proxy as an absolute URI (GET http://host/...); the operator can open another ' +
  'TLS port with SELFDEBUG_EGRESS_TLS_PORTS.';
const LIMIT_ADVICE =
  'Setup opened more connections at once than the proxy allows: lower the tool’s parallelism, or ask the ' +
  'operator to raise SELFDEBUG_EGRESS_MAX_CONNECTIONS.';

/**
 * The allowlisting proxy of the setup phase, on proxy-chain (CONNECT and
 * plain HTTP). For each request it checks host and port against the
 * policy, resolves the name itself, refuses private and local addresses
 * and the App host's own unless the operator trusts the host (and its own
 * list opened the port), and connects to the addresses it checked, so a
 * name that resolves differently a moment later (DNS rebinding) still goes
 * where it was judged to go. A CONNECT goes only to a TLS port, and its
 * tunnel opens only for a ClientHello naming the CONNECT's host. One proxy
 * per job, on a socket that goes when the proxy is closed: there are no
 * credentials to steal, and nothing left to use after the job.
 */
export class EgressProxy {
  private readonly log = new EgressLog();
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
    server.on('connectionClosed', ({ connectionId, stats }) =>
      proxy!.log.end(connectionId, { in: stats?.trgRxBytes ?? 0, out: stats?.trgTxBytes ?? 0 }),
    );
    return proxy;
  }

  /** A sample of the latest requests (bounded, however many came). */
  records(): EgressRecord[] {
    return this.log.records();
  }

  /** Every target's counts of allowed and refused requests (bounded). */
  targets(): EgressTally[] {
    return this.log.targets();
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
  private async decide(request: ProxyRequest, options: EgressProxyOptions): Promise<Decision> {
    const record = this.log.begin(request.connectionId, newRecord(request));
    const refuse: Refuse = (reason, advice, status = 403) => {
      record.allowed = false;
      record.reason = reason;
      options.logger?.info({ target: `${record.host}:${record.port}`, reason }, 'egress refused');
      // Only a policy's refusal counts toward stopping setup: a full proxy (503) is a moment's wait, not a wrong host.
      if (status === 403) options.onRefusal?.({ target: `${record.host}:${record.port}`, reason, advice });
      throw new RequestError(`selfdebug refused ${record.host}:${record.port}: ${reason}. ${advice}`, status);
    };
    const addresses = await this.judge(request, record, options, refuse);
    record.allowed = true;
    (options.logger ?? silentLogger).debug(
      { target: `${record.host}:${record.port}`, addresses },
      'egress allowed',
    );
    if (!request.isHttp) return this.tunnel(record, addresses, options, refuse);
    return {
      dnsLookup: pinnedLookup(addresses) as unknown as typeof dnsLookup,
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    };
  }

  /** The addresses a request may go to, once every check passed; else the refusal of the first that failed. */
  private async judge(
    request: ProxyRequest,
    record: EgressRecord,
    options: EgressProxyOptions,
    refuse: Refuse,
  ): Promise<string[]> {
    const open = this.server.getConnectionIds().length;
    const limit = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    if (open > limit)
      refuse(`${open} connections are open, past the proxy's limit of ${limit}`, LIMIT_ADVICE, 503);
    const verdict = checkTarget(options.policy, record.host, record.port);
    if (!verdict.allowed) return refuse(verdict.reason, ALLOWLIST_ADVICE);
    const tunnelPort = request.isHttp ? null : tunnelPortRefusal(options.policy, record.port);
    if (tunnelPort) refuse(tunnelPort, TUNNEL_PORT_ADVICE);
    const named = request.isHttp ? hostHeaderMismatch(request.request.headers.host, record) : null;
    if (named) refuse(named, HOST_HEADER_ADVICE);
    const addresses = await resolve(record.host, options.lookup).catch(() => null);
    if (addresses === null) return refuse(`${record.host} could not be resolved`, UNRESOLVED_ADVICE);
    const local = localRefusal(addresses, options);
    // Trust covers what the operator's own list opens, never a port a repository added to a trusted host.
    if (local && !(verdict.by === 'operator' && isTrusted(options.policy, record.host)))
      refuse(local, LOCAL_ADVICE);
    return addresses;
  }

  /** The target connected, then proxy-chain's 200, then the ClientHello checked before a byte goes on. */
  private async tunnel(
    record: EgressRecord,
    addresses: string[],
    options: EgressProxyOptions,
    refuse: Refuse,
  ): Promise<Decision> {
    const target = await openTarget(record.host, record.port, addresses, options.localAddress).catch(
      (error: NodeJS.ErrnoException) =>
        refuse(`could not connect (${error.code ?? error.message})`, 'Check that the host is up.', 502),
    );
    const server = tlsTunnel({
      host: record.host,
      target,
      helloTimeoutMs: options.helloTimeoutMs ?? DEFAULT_HELLO_TIMEOUT_MS,
      onRefused: (reason) => {
        record.allowed = false;
        record.reason = reason;
        options.logger?.info({ target: `${record.host}:${record.port}`, reason }, 'egress tunnel closed');
      },
      onClosed: (bytes) => {
        record.bytesIn += bytes.in;
        record.bytesOut += bytes.out;
      },
    });
    return { customConnectServer: server as unknown as HttpServer };
  }
}

function newRecord(request: ProxyRequest): EgressRecord {
  return {
    host: request.hostname.toLowerCase(),
    port: request.port,
    method: request.request.method ?? 'GET',
    allowed: false,
    reason: null,
    bytesIn: 0,
    bytesOut: 0,
    at: new Date().toISOString(),
  };
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
 * A plain HTTP request names its target twice, in the absolute URI of its
 * request line (where proxy-chain connects) and in the Host header (which
 * server the far end serves): a Host naming another site would let setup
 * reach any site that shares an allowlisted host's front end.
 */
function hostHeaderMismatch(
  header: string | string[] | undefined,
  { host, port }: { host: string; port: number },
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
