import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { until } from './until.js';

const run = promisify(execFile);

/**
 * A real image registry (Debian's `docker-registry`, the CNCF distribution
 * server) on 127.0.0.1 with its storage in a temporary folder. The engine
 * treats 127.0.0.0/8 registries as insecure by default, so plain HTTP works.
 */
export class LocalRegistry {
  private constructor(
    readonly host: string,
    private readonly child: ChildProcess,
    private readonly dir: string,
  ) {}

  static async start(): Promise<LocalRegistry> {
    const dir = await mkdtemp(join(tmpdir(), 'selfdebug-registry-'));
    const port = await freePort();
    const config = [
      'version: 0.1',
      'log:',
      '  level: error',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${join(dir, 'data')}`,
      '  delete:',
      '    enabled: true',
      'http:',
      `  addr: 127.0.0.1:${port}`,
    ].join('\n');
    await writeFile(join(dir, 'config.yml'), `${config}\n`);
    const child = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: 'ignore' });
    const registry = new LocalRegistry(`127.0.0.1:${port}`, child, dir);
    await registry.ready();
    return registry;
  }

  /** Tags a local image into this registry and pushes it; returns the pushed reference. */
  async push(image: string, name: string): Promise<string> {
    const reference = `${this.host}/${name}`;
    await run('docker', ['tag', image, reference]);
    await run('docker', ['push', reference], { maxBuffer: 16 * 1024 * 1024 });
    return reference;
  }

  async close(): Promise<void> {
    this.child.kill('SIGTERM');
    await new Promise((resolve) =>
      this.child.exitCode === null ? this.child.once('exit', resolve) : resolve(null),
    );
    await rm(this.dir, { recursive: true, force: true });
  }

  private async ready(): Promise<void> {
    const answers = async () => {
      if (this.child.exitCode !== null)
        throw new Error('docker-registry exited at start-up (is it installed?)');
      return fetch(`http://${this.host}/v2/`).then(
        (response) => response.ok,
        () => false,
      );
    };
    await until(`docker-registry to answer on ${this.host}`, answers, { timeoutMs: 30_000, intervalMs: 100 });
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

const MINI_IMAGE = 'selfdebug-mini:test';
const MINI_TOOLS = ['bash', 'sleep', 'cat', 'ls', 'rm', 'mkdir', 'env', 'awk', 'find', 'chown', 'rmdir'];

/**
 * A few-megabyte image (bash, coreutils and their libraries, copied from
 * this host) for pull tests: pushing and pulling the full test image would
 * spend half a minute compressing layers that prove nothing more.
 */
export async function miniImage(): Promise<string> {
  const present = await run('docker', ['image', 'inspect', MINI_IMAGE]).then(
    () => true,
    () => false,
  );
  if (present) return MINI_IMAGE;
  const script = [
    'set -euo pipefail',
    'root=$(mktemp -d)',
    'trap \'rm -rf "$root"\' EXIT',
    `for tool in ${MINI_TOOLS.join(' ')}; do`,
    '  path=$(type -P "$tool")',
    '  for file in "$path" $(ldd "$path" | grep -o "/[^ ]*"); do',
    '    mkdir -p "$root$(dirname "$file")"; cp -L "$file" "$root$file"',
    '  done',
    'done',
    'mkdir -p "$root/workspace" "$root/tmp" "$root/usr/bin" "$root/bin"',
    'chmod 1777 "$root/tmp"; chown 1000:1000 "$root/workspace"',
    `tar -C "$root" -c . | docker import --change 'USER 1000:1000' --change 'WORKDIR /workspace' ` +
      `--change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' --change 'CMD ["sleep", "infinity"]' - ${MINI_IMAGE} >/dev/null`,
  ].join('\n');
  await run('bash', ['-c', script]);
  return MINI_IMAGE;
}
