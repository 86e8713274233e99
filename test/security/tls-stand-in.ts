import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect as netConnect, createServer as netServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext, createServer, type Server, connect as tlsConnect } from 'node:tls';

/** A throwaway CA and a certificate it signed for `host`, made with the openssl CLI (.ci/run installs it). */
export async function testCertificates(host: string): Promise<{ ca: string; cert: string; key: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'selfdebug-test-ca-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    openssl(
      'req',
      '-x509',
      ...ec,
      '-subj',
      '/CN=selfdebug test CA',
      '-days',
      '1',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
    );
    openssl('req', ...ec, '-subj', `/CN=${host}`, '-keyout', 'server.key', '-out', 'server.csr');
    await writeFile(join(dir, 'san.ext'), `subjectAltName=DNS:${host}\n`);
    openssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      'san.ext',
      '-out',
      'server.pem',
    );
    const read = (name: string) => readFile(join(dir, name), 'utf8');
    return { ca: await read('ca.pem'), cert: await read('server.pem'), key: await read('server.key') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A TLS server on the loopback that answers "reached over TLS" and remembers what reached it. */
export interface TlsStandIn {
  port: number;
  /** TCP connections accepted, and the bytes each had received when it closed. */
  connections: number;
  bytesReceived: number;
  /** The server names ClientHellos asked for (null: none), in order. */
  serverNames: (string | null)[];
  /** Connections that have closed. */
  closed: number;
  /** Resolves once `count` connections in all have closed. */
  closedCount(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function tlsStandIn(credentials: { cert: string; key: string }): Promise<TlsStandIn> {
  const sockets = new Set<Socket>();
  let waiting: { count: number; resolve: () => void }[] = [];
  const server: Server = createServer({
    ...credentials,
    SNICallback: (name, done) => {
      standIn.serverNames.push(name || null);
      done(null, createSecureContext(credentials));
    },
  });
  const standIn: TlsStandIn = {
    port: 0,
    connections: 0,
    bytesReceived: 0,
    serverNames: [],
    closed: 0,
    closedCount: (count) =>
      standIn.closed >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiting.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  server.on('connection', (socket: Socket) => {
    standIn.connections++;
    sockets.add(socket);
    socket.on('close', () => {
      standIn.bytesReceived += socket.bytesRead;
      standIn.closed++;
      sockets.delete(socket);
      for (const waiter of waiting) if (standIn.closed >= waiter.count) waiter.resolve();
      waiting = waiting.filter((waiter) => standIn.closed < waiter.count);
    });
  });
  server.on('secureConnection', (socket) => socket.end('reached over TLS'));
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.port = (server.address() as { port: number }).port;
  return standIn;
}

/** A CONNECT through the proxy's socket; the socket once the proxy answered, with the answer's status line. */
export function connectThroughProxy(
  socketPath: string,
  target: string,
): Promise<{ status: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(socketPath);
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      resolve({ status: `${head.slice(0, end)}${head.slice(end + 4)}`, socket });
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  });
}

/** What a TLS client got over a tunnel: the server's answer, or the error that ended the handshake. */
export function tlsOver(socket: Socket, servername: string, ca: string): Promise<string> {
  return new Promise((resolve) => {
    const secure = tlsConnect({ socket, servername, ca });
    let answer = '';
    secure.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });
    secure.on('end', () => resolve(answer || 'closed'));
    secure.on('error', (error: NodeJS.ErrnoException) => resolve(`error ${error.code ?? error.message}`));
    secure.on('close', () => resolve(answer || 'closed'));
  });
}

/** Writes `bytes` into a tunnel and resolves with whatever came back once the far side closed it. */
export function writeAndWaitForClose(socket: Socket, ...writes: Buffer[]): Promise<string> {
  return new Promise((resolve) => {
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(answer));
    for (const bytes of writes) socket.write(bytes);
  });
}

/**
 * The first TLS record of a real ClientHello, as Node's TLS client sends it
 * (servername '' sends none): caught by a server that reads one record and hangs up.
 */
export async function capturedClientHello(servername: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let held = Buffer.alloc(0);
    const server = netServer((socket) => {
      socket.on('data', (chunk: Buffer) => {
        held = Buffer.concat([held, chunk]);
        if (held.length < 5 || held.length < 5 + held.readUInt16BE(3)) return;
        socket.destroy();
        server.close();
        resolve(held.subarray(0, 5 + held.readUInt16BE(3)));
      });
    });
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      const client = tlsConnect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false });
      client.on('error', () => {});
    });
    server.on('error', reject);
  });
}
