import { SelfdebugError, type SelfdebugErrorOptions } from './selfdebug-error.js';

/** The prepared environment could not be saved (a full disk, most often). */
export class EnvironmentSnapshotError extends SelfdebugError {
  constructor(detail: string, options: SelfdebugErrorOptions = {}) {
    super(
      'environment-snapshot',
      `Saving the prepared environment failed: ${detail}. Free disk space on the Docker engine's host ` +
        '(`docker system df`), or lower SELFDEBUG_ENVIRONMENT_CACHE_GB so fewer prepared environments are kept, then retry.',
      { retryable: true, ...options },
    );
  }
}
