import { createHash } from 'node:crypto';
import { lstat, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GitError, type GitOperation } from '../../errors/index.js';

/**
 * The workspace folder goes into the sandbox, and what comes back is
 * untrusted. A rewritten .git/config could name a filter, a pager or an
 * include that makes git run a program on the host the next time the adapter
 * calls it, so the file is fingerprinted after checkout and checked before
 * every later command. Nothing this adapter runs after checkout writes to it.
 */
export class ConfigSeal {
  private constructor(
    private readonly file: string,
    private readonly digest: string,
  ) {}

  static async of(dir: string): Promise<ConfigSeal> {
    const file = join(dir, '.git', 'config');
    return new ConfigSeal(file, await digestOf(file));
  }

  async check(operation: GitOperation): Promise<void> {
    const digest = await digestOf(this.file).catch(() => 'missing');
    // `.git` replaced by a link or gitfile, or a `commondir` file, would make git read another config.
    const gitDir = dirname(this.file);
    const intact =
      (await lstat(gitDir).then(
        (info) => info.isDirectory() && !info.isSymbolicLink(),
        () => false,
      )) &&
      (await lstat(join(gitDir, 'commondir')).then(
        () => false,
        () => true,
      ));
    if (digest !== this.digest || !intact) {
      throw new GitError(
        operation,
        "The workspace's .git/config changed after checkout, so selfdebug will not run git in it: " +
          'code in the sandbox may have tried to make git run a program on the host. Keep .git out of ' +
          'what is copied back from the sandbox, and run the job again.',
      );
    }
  }
}

async function digestOf(file: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}
