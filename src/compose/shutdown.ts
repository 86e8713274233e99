import type { Logger } from '../util/logger.js';

type Stop = () => Promise<void>;

/** Kept on the process object: one set of signal handlers per process, however often the App is loaded. */
const STOPS = Symbol.for('selfdebug.shutdown');

type ProcessWithStops = NodeJS.Process & { [STOPS]?: Set<Stop> };

/**
 * Runs `stop` on the first SIGTERM or SIGINT (a deploy, Ctrl-C), together
 * with every other stop registered in this process, then exits. A second
 * signal exits at once. The handlers are installed once per process;
 * loading the App again (tests, Probot's dev reloads) only adds its stop.
 * Returns a function that takes the stop back.
 */
export function onShutdown(stop: Stop, logger: Logger, target: NodeJS.Process = process): () => void {
  const holder = target as ProcessWithStops;
  let stops = holder[STOPS];
  if (!stops) {
    const registered = new Set<Stop>();
    stops = registered;
    holder[STOPS] = registered;
    let stopping = false;
    const handle = (signal: NodeJS.Signals) => {
      if (stopping) {
        logger.warn({ signal }, 'second signal: exiting without waiting for jobs');
        target.exit(1);
        return;
      }
      stopping = true;
      logger.info({ signal }, 'stopping: no new jobs; running jobs finish or go back to the queue');
      void Promise.allSettled([...registered].map((each) => each())).then((results) => {
        const failed = results.filter((result) => result.status === 'rejected');
        for (const failure of failed)
          logger.error({ error: String(failure.reason) }, 'could not stop cleanly');
        target.exit(failed.length > 0 ? 1 : 0);
      });
    };
    target.on('SIGTERM', handle);
    target.on('SIGINT', handle);
  }
  const registered = stops;
  registered.add(stop);
  return () => registered.delete(stop);
}
