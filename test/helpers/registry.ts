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
export interface RegistryLogin {
  username: string;
  password: string;
}

export class LocalRegistry {
  private constructor(
    readonly host: string,
    private readonly child: ChildProcess,
    private readonly dir: string,
    private readonly login: RegistryLogin | null,
  ) {}

  /**
   * With `login`, the registry answers only that user (htpasswd, as private registries do);
   * the engine sends the login over plain HTTP to a registry on loopback.
   */
  static async start(login: RegistryLogin | null = null): Promise<LocalRegistry> {
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
    ];
    if (login) {
      await writeFile(join(dir, 'htpasswd'), `${login.username}:${await bcrypt(login.password)}\n`);
      config.push('auth:', '  htpasswd:', '    realm: selfdebug-test', `    path: ${join(dir, 'htpasswd')}`);
    }
    await writeFile(join(dir, 'config.yml'), `${config.join('\n')}\n`);
    const child = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: 'ignore' });
    const registry = new LocalRegistry(`127.0.0.1:${port}`, child, dir, login);
    await registry.ready();
    return registry;
  }

  /** The docker CLI's config folder that holds this registry's login once something was pushed. */
  get cliConfig(): string {
    return join(this.dir, 'docker-cli');
  }

  /**
   * Tags a local image into this registry and pushes it; returns the pushed reference.
   * A registry with a login is pushed to through a docker CLI config of its own, so the
   * login never lands in this host's ~/.docker.
   */
  async push(image: string, name: string): Promise<string> {
    const reference = `${this.host}/${name}`;
    const config = this.login ? ['--config', this.cliConfig] : [];
    if (this.login) {
      const login = spawn('docker', [
        ...config,
        'login',
        '-u',
        this.login.username,
        '--password-stdin',
        this.host,
      ]);
      login.stdin.end(this.login.password);
      const code = await new Promise((resolve) => login.on('exit', resolve));
      if (code !== 0) throw new Error(`docker login ${this.host} exited with ${code}`);
    }
    await run('docker', ['tag', image, reference]);
    await run('docker', [...config, 'push', reference], { maxBuffer: 16 * 1024 * 1024 });
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
      // A registry with a login answers 401 to the anonymous probe: up all the same.
      return fetch(`http://${this.host}/v2/`).then(
        (response) => response.ok || (this.login !== null && response.status === 401),
        () => false,
      );
    };
    await until(`docker-registry to answer on ${this.host}`, answers, { timeoutMs: 30_000, intervalMs: 100 });
  }
}

/** A bcrypt hash, the only kind the registry's htpasswd accepts, from the host's crypt(3) (libxcrypt). */
async function bcrypt(password: string): Promise<string> {
  const script =
    'import crypt, sys; print(crypt.crypt(sys.stdin.read(), crypt.mksalt(crypt.METHOD_BLOWFISH)))';
  const child = spawn('python3', ['-W', 'ignore', '-c', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(password);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  const hash = out.trim();
  if (code !== 0 || !hash.startsWith('$2'))
    throw new Error(`python3 could not make a bcrypt hash (exit ${code})`);
  return hash;
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
