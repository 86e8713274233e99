import { runAction } from './run-action.js';

// The runner starts this file with `node` (action.yml `runs.main`); the exit code is the step's result.
const code = await runAction(process.env, { log: (line) => process.stdout.write(`${line}\n`) });
process.exitCode = code;
// Exit once the log is out (pipes are asynchronous on macOS runners): a keep-alive socket or a Docker
// connection left open must not hold the step until its timeout.
process.stdout.write('', () => process.exit(code));
