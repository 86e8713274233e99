import { run } from 'probot';
import selfdebugApp from '../../../src/index.js';

/**
 * The App as `npm start` runs it (Probot's own `run`, settings from the
 * environment), started from source so the tests need no build.
 */
await run(selfdebugApp);
