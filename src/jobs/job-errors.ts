import { SelfdebugError } from '../errors/selfdebug-error.js';

/** A job that cannot run as asked; the message is posted for the person who asked. */
export class JobRefusedError extends SelfdebugError {
  constructor(message: string) {
    super('job-refused', message);
  }
}
