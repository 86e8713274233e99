import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface IndexPackage {
  name: string;
  version: string;
  requires?: string[];
  /** Size of a data file inside the wheel, so downloads have a measurable size. */
  payloadBytes?: number;
}

/** `sdpkg-001` … `sdpkg-NNN`; every tenth depends on the one before it, so the resolver has work to do. */
export function generatedPackages(
  count: number,
  options: { prefix?: string; payloadBytes?: number } = {},
): IndexPackage[] {
  const prefix = options.prefix ?? 'sdpkg';
  return Array.from({ length: count }, (_, index) => {
    const name = `${prefix}-${String(index + 1).padStart(3, '0')}`;
    const requires = index % 10 === 9 ? [`${prefix}-${String(index).padStart(3, '0')}`] : [];
    return {
      name,
      version: '1.0.0',
      requires,
      ...(options.payloadBytes ? { payloadBytes: options.payloadBytes } : {}),
    };
  });
}

/** Writes the wheels with Python's own zipfile, RECORD hashes included, as pip checks them. */
const WHEEL_BUILDER = `
import base64, hashlib, json, os, sys, zipfile
out, packages = sys.argv[1], json.loads(sys.stdin.read())
def digest(data):
    return 'sha256=' + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()
for package in packages:
    name, version = package['name'], package['version']
    module = name.replace('-', '_')
    info = f'{module}-{version}.dist-info'
    metadata = f'Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n' + ''.join(f'Requires-Dist: {r}\\n' for r in package.get('requires', []))
    files = {
        f'{module}/__init__.py': f'VERSION = "{version}"\\n\\ndef hello():\\n    return "{name}"\\n'.encode(),
        f'{info}/METADATA': metadata.encode(),
        f'{info}/WHEEL': b'Wheel-Version: 1.0\\nGenerator: selfdebug-tests\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n',
    }
    if package.get('payloadBytes'):
        files[f'{module}/data.bin'] = os.urandom(package['payloadBytes'])
    record = ''.join(f'{path},{digest(data)},{len(data)}\\n' for path, data in files.items()) + f'{info}/RECORD,,\\n'
    with zipfile.ZipFile(os.path.join(out, f'{module}-{version}-py3-none-any.whl'), 'w', zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files.items():
            wheel.writestr(path, data)
        wheel.writestr(f'{info}/RECORD', record)
`;

function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/**
 * A Python package index (PEP 503 "simple" API) on 127.0.0.1 serving
 * generated, installable wheels: the package-registry stand-in for setup
 * through the egress proxy. Every request is recorded.
 */
export class PackageIndex {
  readonly requests: { path: string; at: number }[] = [];

  private constructor(
    private readonly server: Server,
    private readonly dir: string,
  ) {}

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The index URL under the name a proxy resolves to this server. */
  url(hostname = '127.0.0.1'): string {
    return `http://${hostname}:${this.port}/simple/`;
  }

  /** `host` is where it listens: another loopback address (127.0.0.2) is one that NO_PROXY does not cover. */
  static async start(options: { packages: IndexPackage[]; host?: string }): Promise<PackageIndex> {
    const dir = await mkdtemp(join(tmpdir(), 'selfdebug-index-'));
    if (options.packages.length > 0) {
      const child = run('python3', ['-c', WHEEL_BUILDER, dir]);
      child.child.stdin?.end(JSON.stringify(options.packages));
      await child;
    }
    const wheels = new Map<string, { file: string; sha256: string }[]>();
    for (const file of await readdir(dir)) {
      const sha256 = createHash('sha256')
        .update(await readFile(join(dir, file)))
        .digest('hex');
      const name = normalize(file.split('-')[0]!);
      wheels.set(name, [...(wheels.get(name) ?? []), { file, sha256 }]);
    }
    let index: PackageIndex | null = null;
    const server = createServer((request, response) => {
      index!.requests.push({ path: request.url ?? '', at: Date.now() });
      void serve(request.url ?? '/', dir, wheels).then(({ status, type, body }) => {
        response.writeHead(status, { 'content-type': type, 'content-length': body.length });
        response.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
    index = new PackageIndex(server, dir);
    return index;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
    await rm(this.dir, { recursive: true, force: true });
  }
}

async function serve(
  url: string,
  dir: string,
  wheels: Map<string, { file: string; sha256: string }[]>,
): Promise<{ status: number; type: string; body: Buffer }> {
  const html = (text: string) => ({ status: 200, type: 'text/html', body: Buffer.from(text) });
  const path = new URL(url, 'http://index').pathname;
  if (path === '/simple/' || path === '/simple')
    return html([...wheels.keys()].map((name) => `<a href="/simple/${name}/">${name}</a>`).join('\n'));
  const project = /^\/simple\/([^/]+)\/?$/.exec(path);
  if (project) {
    const files = wheels.get(normalize(project[1]!));
    if (files)
      return html(
        files.map(({ file, sha256 }) => `<a href="/files/${file}#sha256=${sha256}">${file}</a>`).join('\n'),
      );
  }
  const file = /^\/files\/([\w.-]+\.whl)$/.exec(path);
  if (file) {
    const body = await readFile(join(dir, file[1]!)).catch(() => null);
    if (body) return { status: 200, type: 'application/octet-stream', body };
  }
  return { status: 404, type: 'text/plain', body: Buffer.from('not found') };
}
