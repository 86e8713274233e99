import type { Logger } from '../util/logger.js';

/**
 * A write to the code host that may fail without stopping the job: the
 * failure is logged and the value is null. The transcript is rebuilt from
 * the job's report on the next write, so nothing shown is lost for good.
 */
export type LoggedWrite = <T>(what: string, action: () => Promise<T>) => Promise<T | null>;

export function loggedWrite(logger: Logger, jobId: string): LoggedWrite {
  return async (what, action) => {
    try {
      return await action();
    } catch (error) {
      logger.warn(
        { job: jobId, error: error instanceof Error ? error.message : String(error) },
        `could not ${what}`,
      );
      return null;
    }
  };
}
