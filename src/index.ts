import type { Probot } from 'probot';
import { handleHelp } from './app/handle-help.js';
import { parseHandle } from './app/parse-mention.js';

/**
 * The Probot app: reads its settings once at load and wires each webhook to
 * its handler. Work beyond a quick reply belongs in a job, not here.
 */
export default function selfdebugApp(app: Probot): void {
  const handle = parseHandle(process.env.SELFDEBUG_HANDLE);
  app.on('issue_comment.created', (context) => handleHelp(context, { handle }));
}
