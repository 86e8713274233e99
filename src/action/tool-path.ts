import type { ExecOptions, ExecResult, Sandbox } from '../sandbox/sandbox.js';

/**
 * The sandbox with `entries` put before the image's PATH in every command,
 * so a command finds the toolchain the job's setup steps installed in the
 * (mounted) tool cache, as the failed step did. The image's own PATH is
 * asked once, since the engine replaces PATH as a whole when one is given.
 */
export function withToolPath(sandbox: Sandbox, entries: readonly string[]): Sandbox {
  if (entries.length === 0) return sandbox;
  let path: Promise<string> | undefined;
  const imagePath = async (): Promise<string> => {
    const asked = await sandbox.exec('printf %s "$PATH"', { timeoutSeconds: 30 });
    return asked.exitCode === 0 && asked.stdout !== '' ? asked.stdout : '/usr/local/bin:/usr/bin:/bin';
  };
  return {
    get kind() {
      return sandbox.kind;
    },
    get preparation() {
      return sandbox.preparation;
    },
    get id() {
      return sandbox.id;
    },
    get workdir() {
      return sandbox.workdir;
    },
    async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
      if (options.env?.PATH !== undefined) return sandbox.exec(command, options);
      path ??= imagePath();
      const PATH = [...entries, await path].join(':');
      return sandbox.exec(command, { ...options, env: { ...options.env, PATH } });
    },
    readFile: (file) => sandbox.readFile(file),
    writeFile: (file, content, mode) => sandbox.writeFile(file, content, mode),
    copyIn: (hostDir) => sandbox.copyIn(hostDir),
    copyOut: (hostDir) => sandbox.copyOut(hostDir),
    dispose: () => sandbox.dispose(),
  };
}
