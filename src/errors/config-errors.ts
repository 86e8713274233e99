import { SelfdebugError, type SelfdebugErrorOptions } from './selfdebug-error.js';

/** A configuration value (environment or .github/selfdebug.yml) is invalid. */
export class ConfigError extends SelfdebugError {
  readonly source: string;
  constructor(source: string, details: string, options: SelfdebugErrorOptions = {}) {
    super(
      'config',
      `Invalid configuration in ${source}:\n${details}\nFix the values above and try again.`,
      options,
    );
    this.source = source;
  }
}

/** `.github/selfdebug.yml` in a folder is invalid; the message is the file's own report, with what to fix. */
export class RepoConfigFileError extends SelfdebugError {
  constructor(message: string) {
    super('config', message);
  }
}
