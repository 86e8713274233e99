import { GitPluginError, GitError as SimpleGitError, type SimpleGitOptions, simpleGit } from 'simple-git';
import type { Environment } from '../../config/read-environment.js';
import { GitError } from '../../errors/index.js';
import { Redactor } from '../../report/index.js';
import { gitEnvironment, SAFETY_CONFIG } from './git-environment.js';
import { tokenEnvironment, tokenSecrets } from './token-header.js';

export interface GitRunnerSettings {
  /** URL schemes git may use, e.g. ['https']. */
  allowedProtocols: readonly string[];
  /** A command silent for this long is stopped. */
  silenceTimeoutMs: number;
  /**
   * The variables selfdebug was started with: git gets PATH, HOME and the
   * proxy settings from them, and DEBUG says whether simple-git would log.
   */
  host: Environment;
}

export interface RunOptions {
  /** Sent as an HTTP header for this command only. */
  token?: string;
  /** Extra variables, such as the commit's author. */
  environment?: Record<string, string>;
}

/**
 * A git command exited with a failure. `output` (stdout then stderr) has been
 * scrubbed of the token, so this error may be kept as a cause and logged.
 */
export class GitCommandFailure extends Error {
  readonly command: string;
  readonly exitCode: number | undefined;
  readonly output: string;
  readonly timedOut: boolean;
  constructor(command: string, exitCode: number | undefined, output: string, timedOut: boolean) {
    super(`git ${command} failed${exitCode === undefined ? '' : ` (exit code ${exitCode})`}: ${output}`);
    this.name = 'GitCommandFailure';
    this.command = command;
    this.exitCode = exitCode;
    this.output = output;
    this.timedOut = timedOut;
  }
}

// Every argument given to git is built by this adapter, and the values that come
// from outside (sha, ref, branch, paths) are validated first; the options
// simple-git guards are the very ones that keep untrusted content inert.
const UNSAFE_ALLOWED: SimpleGitOptions['unsafe'] = {
  allowUnsafeHooksPath: true,
  allowUnsafeFsMonitor: true,
  allowUnsafeCredentialHelper: true,
  allowUnsafeAskPass: true,
  allowUnsafeConfigPaths: true,
  allowUnsafeConfigEnvCount: true,
};

/** Carries the exit code and raw streams past simple-git, which would otherwise keep only text. */
class ExitFailure extends SimpleGitError {
  constructor(
    readonly exitCode: number,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(undefined, 'git exited with a failure');
  }
}

/**
 * Runs git through simple-git with a clean environment and the safety
 * settings. simple-git waits 50 ms more for a process that printed nothing
 * (it cannot tell a closed pipe from a slow one), so the adapter's commands
 * leave out `--quiet` and `add` runs `--verbose`: a job makes about ten of them.
 */
export class GitRunner {
  private readonly environment: Record<string, string>;

  constructor(private readonly settings: GitRunnerSettings) {
    this.environment = gitEnvironment(settings.allowedProtocols, settings.host);
  }

  /** Runs `git <args>` in `directory` and returns its stdout. */
  async run(directory: string, args: string[], options: RunOptions = {}): Promise<string> {
    const secrets = options.token === undefined ? [] : tokenSecrets(options.token);
    if (secrets.length > 0 && simpleGitDebugOn(this.settings.host.DEBUG)) {
      // simple-git's debug log prints each process's environment, which carries the auth header.
      throw new GitError(
        'checkout',
        'DEBUG enables simple-git logging, which would print the GitHub token; unset DEBUG (or drop simple-git from it).',
      );
    }
    const git = simpleGit({
      baseDir: directory,
      config: [...SAFETY_CONFIG],
      unsafe: UNSAFE_ALLOWED,
      timeout: { block: this.settings.silenceTimeoutMs },
      trimmed: false,
      // simple-git treats a failure without stderr as success and keeps only text otherwise;
      // every non-zero exit is a failure here, with its code. A plugin's error (the timeout) stays.
      errors: (error, result) =>
        error instanceof GitPluginError || result.exitCode === 0
          ? error
          : new ExitFailure(
              result.exitCode,
              Buffer.concat(result.stdOut).toString('utf8'),
              Buffer.concat(result.stdErr).toString('utf8'),
            ),
    }).env({
      ...this.environment,
      ...options.environment,
      ...(options.token === undefined ? {} : tokenEnvironment(options.token)),
    });
    try {
      return await git.raw(args);
    } catch (error) {
      throw toFailure(args[0] ?? '', error, secrets);
    }
  }
}

function toFailure(command: string, error: unknown, secrets: string[]): GitCommandFailure {
  if (error instanceof ExitFailure) {
    const output = [error.stdout, error.stderr].map((text) => text.trim()).filter(Boolean);
    return new GitCommandFailure(
      command,
      error.exitCode,
      new Redactor(secrets).redact(output.join('\n')),
      false,
    );
  }
  const timedOut = error instanceof GitPluginError && error.plugin === 'timeout';
  const text = error instanceof Error ? error.message : String(error);
  return new GitCommandFailure(command, undefined, new Redactor(secrets).redact(text), timedOut);
}

function simpleGitDebugOn(debug: string | undefined): boolean {
  return (debug ?? '')
    .split(/[\s,]+/)
    .some(
      (pattern) => !pattern.startsWith('-') && pattern !== '' && /^(\*|simple-git(:.*|\*)?)$/.test(pattern),
    );
}
