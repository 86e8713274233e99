import { ProbotOctokit, run } from 'probot';
import selfdebugApp from '../../../src/index.js';

/**
 * The App as `npm start` runs it (Probot's own `run`, settings from the
 * environment), started from source so the tests need no build.
 * E2E_OCTOKIT_THROTTLE=off turns off Octokit's write pacing (one write a
 * second, one comment every three, as GitHub asks of integrators), so
 * bench/e2e can show the job's own cost beside the paced one.
 */
const Unthrottled = ProbotOctokit.defaults((options: object) => ({
  ...options,
  throttle: { enabled: false },
}));

await run(selfdebugApp, process.env.E2E_OCTOKIT_THROTTLE === 'off' ? { Octokit: Unthrottled } : {});
