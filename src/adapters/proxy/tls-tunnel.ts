import { createServer, type Server, type Socket } from 'node:net';
import { MAX_CLIENT_HELLO_BYTES, readClientHello } from './client-hello.js';
import { normalizeHost } from './egress-policy.js';

export interface TlsTunnelOptions {
  /** The host the CONNECT named: the ClientHello must name the same one. */
  host: string;
  /** The connection to the checked address, already open. */
  target: Socket;
  /** How long the client may take to send a whole ClientHello. */
  helloTimeoutMs: number;
  /** The tunnel was closed before anything reached the target, and why. */
  onRefused(reason: string): void;
  /** The tunnel ended; what the target received and sent. */
  onClosed(bytes: { in: number; out: number }): void;
}

/** Bytes held while a ClientHello is incomplete: its largest size plus the headers of the records carrying it. */
const MAX_HELD_BYTES = 2 * MAX_CLIENT_HELLO_BYTES;

/**
 * What proxy-chain hands a CONNECT's client socket to (its
 * `customConnectServer`, told of the socket by a 'connection' event once it
 * has answered 200). The first bytes are held until they make a whole
 * ClientHello, waiting a bounded time; a ClientHello naming the CONNECT's
 * host lets the held bytes, then the rest, through to the target. Anything
 * else (another name, no name, bytes that are not TLS) closes both ends
 * before a byte reaches the target: a front end serving many sites behind
 * one allowlisted name picks the site by SNI, so an unchecked tunnel would
 * reach them all.
 */
export function tlsTunnel(options: TlsTunnelOptions): Server {
  return createServer({ pauseOnConnect: false }, (client) => inspect(client, options));
}

function inspect(client: Socket, options: TlsTunnelOptions): void {
  const { target } = options;
  let held = Buffer.alloc(0);
  let settled = false;
  const refuse = (reason: string) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    options.onRefused(reason);
    client.destroy();
    target.destroy();
  };
  const timer = setTimeout(
    () => refuse(`no whole TLS ClientHello within ${options.helloTimeoutMs / 1000} s`),
    options.helloTimeoutMs,
  );
  const onData = (chunk: Buffer) => {
    held = Buffer.concat([held, chunk]);
    const verdict = readClientHello(held);
    if (verdict.state === 'invalid') return refuse(`not a TLS ClientHello: ${verdict.reason}`);
    if (verdict.state === 'incomplete')
      return held.length > MAX_HELD_BYTES ? refuse('no whole TLS ClientHello in the first bytes') : undefined;
    const mismatch = serverNameMismatch(verdict.serverName, options.host);
    if (mismatch) return refuse(mismatch);
    settled = true;
    clearTimeout(timer);
    client.off('data', onData);
    relay(client, held, options);
  };
  client.on('data', onData);
  // Before the relay the client's end is the tunnel's end: proxy-chain's sockets stay half open otherwise.
  const gone = () => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    client.destroy();
    target.destroy();
  };
  client.once('end', gone).once('close', gone).on('error', gone);
  target.once('close', () => {
    client.destroy();
    options.onClosed({ in: target.bytesRead, out: target.bytesWritten });
  });
  target.on('error', () => client.destroy());
}

/** Why the ClientHello's server name is not the CONNECT's host, if it is not (case and a trailing dot aside). */
export function serverNameMismatch(serverName: string | null, host: string): string | null {
  if (serverName === null) return `a TLS ClientHello without a server name (SNI) for ${host}`;
  return normalizeHost(serverName) === normalizeHost(host)
    ? null
    : `the TLS ClientHello names ${serverName.slice(0, 100)}, not ${host}`;
}

/** The held bytes first, then both ways as they come; either end closing closes the other. */
function relay(client: Socket, held: Buffer, { target }: TlsTunnelOptions): void {
  target.write(held);
  client.pipe(target);
  target.pipe(client);
  client.once('close', () => target.destroy());
}
