import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A package registry behind HTTPS whose certificate a private CA signed, as a
 * company's mirror or a TLS-inspecting proxy looks to npm: one package, its
 * packument and its tarball. The CA is made here with openssl; `caFile` is
 * what an operator would give SELFDEBUG_EXTRA_CA_CERTS.
 */
export class TlsRegistry {
  readonly requests: string[] = [];

  private constructor(
    private readonly server: Server,
    private readonly dir: string,
    readonly hostname: string,
    readonly caFile: string,
    readonly tarball: { name: string; version: string; integrity: string },
  ) {}

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `https://${this.hostname}:${this.port}/`;
  }

  get tarballUrl(): string {
    const { name, version } = this.tarball;
    return `${this.url}${name}/-/${name}-${version}.tgz`;
  }

  static async start(hostname: string, name = 'sdtls', version = '1.0.0'): Promise<TlsRegistry> {
    const dir = await mkdtemp(join(tmpdir(), 'selfdebug-tls-registry-'));
    const openssl = (...args: string[]) => run('openssl', args, { cwd: dir });
    const key = ['-newkey', 'rsa:2048', '-nodes'];
    await openssl(
      'req',
      '-x509',
      ...key,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=selfdebug test CA',
    );
    await openssl('req', ...key, '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${hostname}`);
    await writeFile(join(dir, 'ext'), `subjectAltName=DNS:${hostname}\nbasicConstraints=CA:FALSE\n`);
    await openssl(
      ...['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial'],
      ...['-out', 'server.pem', '-days', '2', '-extfile', 'ext'],
    );
    const tgz = await packageTarball(dir, name, version);
    const integrity = `sha512-${createHash('sha512').update(tgz).digest('base64')}`;
    const shasum = createHash('sha1').update(tgz).digest('hex');
    let registry: TlsRegistry | null = null;
    const server = createServer(
      {
        key: await readFile(join(dir, 'server.key')), // The chain as a TLS-inspecting proxy sends it: the leaf, then the private CA.
        cert: Buffer.concat([await readFile(join(dir, 'server.pem')), await readFile(join(dir, 'ca.pem'))]),
      },
      (request, response) => {
        registry!.requests.push(request.url ?? '');
        if (request.url === `/${name}`) {
          const dist = { tarball: registry!.tarballUrl, integrity, shasum };
          const body = {
            name,
            'dist-tags': { latest: version },
            versions: { [version]: { name, version, dist } },
          };
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        } else if (request.url === `/${name}/-/${name}-${version}.tgz`) {
          response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tgz);
        } else response.writeHead(404).end('{}');
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    registry = new TlsRegistry(server, dir, hostname, join(dir, 'ca.pem'), { name, version, integrity });
    return registry;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** npm's tarball layout: everything under `package/`. */
async function packageTarball(dir: string, name: string, version: string): Promise<Buffer> {
  await mkdir(join(dir, 'pkg', 'package'), { recursive: true });
  await writeFile(
    join(dir, 'pkg', 'package', 'package.json'),
    JSON.stringify({ name, version, main: 'index.js' }),
  );
  await writeFile(join(dir, 'pkg', 'package', 'index.js'), `module.exports = () => '${name} ${version}';\n`);
  await run('tar', ['-czf', join(dir, 'package.tgz'), '-C', join(dir, 'pkg'), 'package']);
  return readFile(join(dir, 'package.tgz'));
}
