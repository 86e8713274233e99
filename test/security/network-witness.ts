import { createSocket } from 'node:dgram';
import { connect, createServer, type Server } from 'node:net';

/** A TCP server that answers nothing and remembers every connection and byte that reached it. */
export interface Witness {
  host: string;
  port: number;
  connections: number;
  received: string;
  close(): Promise<void>;
}

/** Listens on host:port (0: any free port); null when the port is taken, so the caller checks another way. */
export async function tcpWitness(host = '127.0.0.1', port = 0): Promise<Witness | null> {
  const sockets = new Set<import('node:net').Socket>();
  const witness: Witness = { host, port, connections: 0, received: '', close: async () => {} };
  const server: Server = createServer((socket) => {
    witness.connections++;
    sockets.add(socket);
    socket.on('data', (chunk) => {
      witness.received += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    // An answer, so a client that got through shows it rather than waiting.
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 7\r\nconnection: close\r\n\r\nreached');
  });
  const listening = await new Promise<boolean>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? resolve(false) : reject(error),
    );
    server.listen(port, host, () => resolve(true));
  });
  if (!listening) return null;
  witness.port = (server.address() as { port: number }).port;
  witness.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return witness;
}

/** A UDP socket on the loopback that counts datagrams (a stand-in resolver). */
export async function udpWitness(): Promise<{ port: number; datagrams: number; close(): Promise<void> }> {
  const socket = createSocket('udp4');
  const witness = {
    port: 0,
    datagrams: 0,
    close: () => new Promise<void>((resolve) => socket.close(resolve)),
  };
  socket.on('message', () => {
    witness.datagrams++;
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  witness.port = socket.address().port;
  return witness;
}

/**
 * The first line of the proxy's answer to one raw request sent over its Unix
 * socket, and what followed it if the proxy connected. A tunnel that opens
 * gets `afterConnect` written through it, as an attacker would.
 */
export async function sendThroughProxy(
  socketPath: string,
  request: string,
  afterConnect = '',
): Promise<{ status: string; body: string }> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    let data = '';
    let tunnelled = false;
    const done = () => {
      socket.destroy();
      const [head = '', ...rest] = data.split('\r\n');
      resolve({ status: head, body: rest.join('\r\n') });
    };
    // A bound on a proxy that stops answering; every test here ends long before it.
    socket.setTimeout(20_000, done);
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      if (!tunnelled && / 200 /.test(data.split('\r\n')[0] ?? '') && afterConnect) {
        tunnelled = true;
        socket.write(afterConnect);
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (data === '') data = `error ${error.code}`;
      done();
    });
    socket.on('close', done);
    socket.write(request);
  });
}

/** `CONNECT target` and `GET http://target/`: the two ways a client asks a proxy for a host. */
export function proxyRequests(target: string, headers = ''): { connect: string; http: string } {
  return {
    connect: `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${headers}\r\n`,
    http: `GET http://${target}/ HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n${headers}\r\n`,
  };
}

/** A Redis command in the wire format, to be sent wherever an attack gets through to a port. */
export function redisCommand(...words: string[]): string {
  return `*${words.length}\r\n${words.map((word) => `$${Buffer.byteLength(word)}\r\n${word}\r\n`).join('')}`;
}

/**
 * Whether the Redis on 127.0.0.1:6379 holds `key`: how an attack that
 * tried to SET it is shown to have reached nothing. Null when no Redis
 * listens there (the caller then holds the port with a witness instead).
 */
export async function redisHasKey(key: string): Promise<boolean | null> {
  return new Promise((resolve) => {
    const socket = connect(6379, '127.0.0.1');
    let reply = '';
    socket.setTimeout(10_000, () => {
      socket.destroy();
      resolve(null);
    });
    socket.on('error', () => resolve(null));
    // Whatever answers without a Redis reply is not a Redis (a promise resolves once: a reply wins).
    socket.on('close', () => resolve(null));
    socket.on('connect', () => socket.write(redisCommand('EXISTS', key)));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (!reply.endsWith('\r\n')) return;
      socket.destroy();
      resolve(reply.startsWith(':') ? reply !== ':0\r\n' : null);
    });
  });
}
