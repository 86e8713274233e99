import { SelfdebugError } from './selfdebug-error.js';

/** A job that cannot run as asked; the message is posted for the person who asked. */
export class JobRefusedError extends SelfdebugError {
  constructor(message: string) {
    super('job-refused', message);
  }
}

/**
 * The abort reason of a job someone stopped (`@selfdebug stop`, a newer
 * push). Its message is the reason alone, so reports read "stopped by @x".
 */
export class JobCancelledError extends SelfdebugError {
  constructor(reason: string) {
    super('job-cancelled', reason);
  }
}

/**
 * A worker no longer holds the job: its lease expired and another worker
 * may have taken over, or it handed the job back on shutdown. Anything the
 * job would still post is refused with this error, so the job never speaks
 * twice.
 */
export class LeaseLostError extends SelfdebugError {
  constructor(jobId: string, why: 'expired' | 'handed-back') {
    super(
      'lease-lost',
      why === 'expired'
        ? `This worker's lease on job ${jobId} ran out (it could not reach the queue in time); another worker takes the job over.`
        : `Job ${jobId} was handed back to the queue because this worker is shutting down; another worker runs it again.`,
      { retryable: true },
    );
  }
}

/** The queue's storage failed or is misconfigured; the message names what to check. */
export class QueueError extends SelfdebugError {
  constructor(message: string, options: { cause?: unknown; retryable?: boolean } = {}) {
    super('queue', message, options);
  }
}

/** A job whose trigger kind this version has no module for: queued by a newer selfdebug. */
export class UnknownTriggerError extends SelfdebugError {
  constructor(kind: string) {
    super(
      'unknown-trigger',
      `This job was started by a trigger of kind "${kind}", which this version of selfdebug does not know; ` +
        'run workers of the version that queued it, or ask again.',
    );
  }
}
