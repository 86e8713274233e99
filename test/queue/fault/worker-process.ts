/**
 * A worker process for the fault test: the production worker (serveJobs,
 * runJobHandler, runJob, the real git workspace and sandbox) composed with a
 * scripted model and a code host kept in a shared SQLite file. The parent
 * kills it with SIGKILL and starts others. bench/queue.ts runs it too, with
 * a higher FAULT_CONCURRENCY, to measure its memory.
 *
 * A line `hold` on stdin makes the next model call of this process block
 * and print `held`: the parent then knows a job is leased and mid-run when
 * it kills, instead of hoping a random moment lands inside one.
 */
import { createInterface } from 'node:readline';
import { BullmqJobStore } from '../../../src/adapters/bullmq/bullmq-store.js';
import { GitWorkspaceProvider } from '../../../src/adapters/git/git-workspace-provider.js';
import { SqliteJobStore } from '../../../src/adapters/sqlite/sqlite-store.js';
import { createSandboxProvider } from '../../../src/compose/sandbox-provider.js';
import { serveJobs } from '../../../src/compose/serve-jobs.js';
import { loadAppConfig } from '../../../src/config/app-config.js';
import { parseSandboxConfig } from '../../../src/config/load-config.js';
import { parseModelConfig } from '../../../src/config/model-config.js';
import { runJobHandler } from '../../../src/jobs/job-handler.js';
import type { LanguageModel } from '../../../src/model/language-model.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import type { JobStore } from '../../../src/queue/job-store.js';
import type { Logger } from '../../../src/util/logger.js';
import { SqliteCodeHost } from './sqlite-code-host.js';

const env = process.env;
const leaseMs = Number.parseInt(env.FAULT_LEASE_MS ?? '1500', 10);
const store: JobStore =
  env.FAULT_QUEUE === 'redis'
    ? new BullmqJobStore({
        url: env.REDIS_URL!,
        queueName: env.FAULT_QUEUE_NAME!,
        prefix: 'selfdebug-test',
        leaseMs,
      })
    : new SqliteJobStore(env.FAULT_QUEUE_PATH!, { leaseMs });
const host = new SqliteCodeHost(env.FAULT_HOST_PATH!);
const logger: Logger = {
  debug() {},
  info() {},
  warn: (fields, message) =>
    process.stderr.write(`[${process.pid}] warn ${message} ${JSON.stringify(fields)}\n`),
  error: (fields, message) =>
    process.stderr.write(`[${process.pid}] error ${message} ${JSON.stringify(fields)}\n`),
};
const sandboxConfig = parseSandboxConfig({
  kind: env.FAULT_SANDBOX === 'docker' ? 'docker' : 'local',
  image: env.SELFDEBUG_TEST_IMAGE ?? 'selfdebug-executor:test',
  commandTimeoutSeconds: 30,
});
const slow = Number.parseInt(env.FAULT_MODEL_DELAY_MS ?? '400', 10);

let holdNext = false;
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === 'hold') holdNext = true;
});
/** The first model call after `hold` never answers (the job stays leased until the process dies). */
function holding(model: ScriptedModel): LanguageModel {
  return {
    model: model.model,
    complete(request) {
      if (!holdNext) return model.complete(request);
      holdNext = false;
      process.stdout.write('held\n');
      return new Promise((_, reject) =>
        request.signal?.addEventListener('abort', () => reject(request.signal?.reason), { once: true }),
      );
    },
  };
}

const { stopped } = serveJobs({
  store,
  worker: {
    concurrency: Number.parseInt(env.FAULT_CONCURRENCY ?? '2', 10),
    maxContainers: Number.parseInt(env.FAULT_MAX_CONTAINERS ?? '3', 10),
    heartbeatMs: 200,
    pollMs: 100,
    handler: runJobHandler({
      codeHostFor: async () => host,
      tokenFor: async () => env.FAULT_TOKEN!,
      workspaces: new GitWorkspaceProvider({ allowedProtocols: ['http'], host: process.env }),
      sandboxProviderFor: (config) =>
        createSandboxProvider(config, { host: process.env, credentials: new Map(), logger }),
      // A fresh script per run: a job that is taken over starts its conversation again.
      modelFor: () =>
        holding(
          new ScriptedModel([
            {
              delayMs: slow,
              content: JSON.stringify({
                analysis: 'greeting is undefined',
                edits: [
                  {
                    path: 'app.py',
                    search: 'print(greeting)',
                    replace: 'greeting = "hello"\nprint(greeting)',
                  },
                ],
              }),
            },
            {
              delayMs: slow,
              content: JSON.stringify({
                summary: 'Define greeting',
                rootCause: 'A name was used before it was defined',
                changes: 'Defined it',
                confidence: 'high',
                risks: [],
              }),
            },
          ]),
        ),
      sandboxConfig,
      modelConfig: parseModelConfig({ apiKey: 'sk-test-secret-key-0123456789' }),
      appConfig: loadAppConfig({}),
      logger,
      environment: {},
    }),
  },
  shutdownMs: 10_000,
  logger,
});
// From here on SIGTERM is handled (before, it ends the process like a crash would).
process.stdout.write('ready\n');
await stopped;
