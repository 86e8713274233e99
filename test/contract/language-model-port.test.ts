import { GuardedModel } from '../../src/cli/guarded-model.js';
import { ModelUnreachableError } from '../../src/errors/model-errors.js';
import type { EvalTask } from '../../src/eval/eval-task.js';
import { oneShotModel } from '../../src/eval/one-shot.js';
import { scriptedModel } from '../../src/eval/scripted-models.js';
import type { LanguageModel } from '../../src/model/language-model.js';
import { RecordingModel } from '../../src/model/recording-model.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { startLlamaCppFake } from '../fakes/model-servers/llama-cpp.js';
import { startOllamaFake } from '../fakes/model-servers/ollama.js';
import { thinkingModel } from '../fakes/thinking-model.js';
import { closedAddress, modelFor, silentServer } from '../helpers/model-clients.js';
import { type LanguageModelPortSubject, languageModelPortContract } from './language-model-port-contract.js';

/*
 * The LanguageModel port contract against every implementation that needs
 * no server of its own: the scripted model the loop tests use, and each
 * wrapper the CLI and the eval put around a model. language-model.test.ts
 * runs it against the OpenAI adapter behind each fake server.
 */

const BASE_URL = 'http://127.0.0.1:9/v1';

/** Scripted answers that never come on their own (an hour's delay, cleared by the abort). */
const pendingScript = () => new ScriptedModel([{ content: 'too late', delayMs: 3_600_000 }]);
const unreachableScript = () =>
  new ScriptedModel([new ModelUnreachableError(`Could not reach ${BASE_URL} (ECONNREFUSED) after 1 try.`)]);

/** The scripted model wrapped by `wrap`, failing and stalling the way the scripted model does. */
function scriptedSubject(wrap: (inner: ScriptedModel) => LanguageModel): LanguageModelPortSubject {
  return {
    model: wrap(thinkingModel()),
    expected: { callsTools: true, reportsUsage: true },
    pending: () => wrap(pendingScript()),
    unreachable: () => wrap(unreachableScript()),
  };
}

languageModelPortContract('ScriptedModel', async () => scriptedSubject((model) => model));

languageModelPortContract('RecordingModel over a ScriptedModel (--record)', async () =>
  scriptedSubject((model) => new RecordingModel(model)),
);

languageModelPortContract('GuardedModel over a ScriptedModel (--replay)', async () =>
  scriptedSubject((model) => new GuardedModel(model, { replay: { path: 'session.json', model } })),
);

languageModelPortContract('the eval’s one-shot model over a ScriptedModel', async () =>
  scriptedSubject((model) => oneShotModel(model)),
);

languageModelPortContract(
  'the eval’s policy model (scripted oracle)',
  async () => {
    const task: EvalTask = {
      name: 'contract',
      language: 'python',
      description: 'greeting is used before it is defined',
      command: 'python3 app.py',
      setup: [],
      timeoutSeconds: undefined,
      oracle: [{ path: 'app.py', search: 'print(greeting)', replace: 'greeting = 1\nprint(greeting)' }],
      prepare: () => Promise.reject(new Error('the contract runs no task')),
    };
    return {
      model: scriptedModel('oracle', task),
      // It answers every purpose with its policy's JSON, never with a tool call.
      expected: { callsTools: false, reportsUsage: true },
    };
    // Its answers are computed from the task at once: there is no pending answer to abort and no address to miss.
  },
  { pending: false, unreachable: false },
);

/** A model over a fake server, wrapped, with its pending and unreachable twins wrapped the same way. */
async function serverSubject(
  start: () => Promise<{ url: string; close: () => Promise<void> }>,
  config: Parameters<typeof modelFor>[1],
  expected: LanguageModelPortSubject['expected'],
  wrap: (inner: LanguageModel) => LanguageModel,
): Promise<LanguageModelPortSubject> {
  const [server, silent, closed] = await Promise.all([start(), silentServer(), closedAddress()]);
  return {
    model: wrap(modelFor(server, config)),
    expected,
    pending: () => wrap(modelFor(silent, config)),
    unreachable: () => wrap(modelFor(closed, config)),
    close: async () => {
      await Promise.all([server.close(), silent.close()]);
    },
  };
}

languageModelPortContract('the CLI’s stack: GuardedModel over RecordingModel over llama.cpp', () =>
  serverSubject(
    () => startLlamaCppFake({ jinja: true, contextSize: 8192 }),
    { model: 'local' },
    { callsTools: true, reportsUsage: true, window: { contextTokens: 8192, source: 'server' } },
    (inner) => new GuardedModel(new RecordingModel(inner), { baseUrl: 'http://127.0.0.1:1/v1' }),
  ),
);

languageModelPortContract('the eval’s one-shot model over Ollama', () =>
  serverSubject(
    () => startOllamaFake({ contextLength: 32_768 }),
    { model: 'qwen2.5-coder:7b' },
    { callsTools: true, reportsUsage: true, window: { contextTokens: 32_768, source: 'server' } },
    (inner) => oneShotModel(inner),
  ),
);
