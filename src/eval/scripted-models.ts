import type { Reflection } from '../loop/schemas.js';
import type { LanguageModel, ModelRequest, ModelResponse } from '../model/language-model.js';
import type { EvalTask } from './eval-task.js';

/**
 * Models that need no server, built from each task's oracle: they check the
 * eval itself (a suite whose oracle does not score every task is broken) and
 * the loop's advantage over one attempt, in CI where no model is reachable.
 */
export const SCRIPTED_KINDS = ['oracle', 'do-nothing', 'second-attempt', 'one-in-three'] as const;
export type ScriptedKind = (typeof SCRIPTED_KINDS)[number];

/** A file no task has, so writing it applies cleanly and changes nothing that matters. */
const NOTE_PATH = 'SELFDEBUG_NOTES.md';

const REFLECTION: Reflection = {
  summary: 'Scripted answer from the eval',
  rootCause: 'Known from the task',
  changes: 'See the diff',
  confidence: 'high',
  risks: [],
};

/**
 * - `oracle` answers every attempt with the known fix;
 * - `do-nothing` writes a note that fixes nothing and then declines to retry;
 * - `second-attempt` writes the note first and the known fix from the second attempt on;
 * - `one-in-three` answers each attempt with the known fix or the note as a hash of the task, the
 *   sample and the attempt says, one time in three: a model whose fresh samples differ, as a real
 *   one's do, reproducibly.
 *
 * `sample` numbers the models the eval builds for one task (0 the loop's, 1… one-shot's samples).
 */
export function scriptedModel(kind: ScriptedKind, task: EvalTask, sample = 0): LanguageModel {
  return new PolicyModel(`scripted-${kind}`, (request, generateCount) => {
    switch (request.purpose) {
      case 'generate': {
        const useOracle =
          kind === 'oracle' ||
          (kind === 'second-attempt' && generateCount >= 2) ||
          (kind === 'one-in-three' && hash(`${task.name}#${sample}#${generateCount}`) % 3 === 0);
        return useOracle
          ? { analysis: `The known fix of ${task.name}.`, edits: task.oracle }
          : {
              analysis: 'No idea what is wrong; leaving a note.',
              edits: [{ path: NOTE_PATH, search: '', replace: `Looked at ${task.name}.\n` }],
            };
      }
      case 'retry-decision':
        return kind === 'do-nothing'
          ? { retry: false, reason: 'Nothing more to try.' }
          : { retry: true, reason: 'The next attempt applies the known fix.' };
      default:
        return REFLECTION;
    }
  });
}

/** FNV-1a: a fixed, well-spread number for a string, the same on every machine. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    value ^= text.charCodeAt(index);
    value = Math.imul(value, 0x01000193) >>> 0;
  }
  return value;
}

type Policy = (request: ModelRequest, generateCount: number) => unknown;

/** Answers by purpose rather than from a list, so any number of attempts and any order of calls work. */
class PolicyModel implements LanguageModel {
  private generateCount = 0;

  constructor(
    readonly model: string,
    private readonly policy: Policy,
  ) {}

  async complete(request: ModelRequest): Promise<ModelResponse> {
    request.signal?.throwIfAborted();
    if (request.purpose === 'generate') this.generateCount += 1;
    const content = JSON.stringify(this.policy(request, this.generateCount));
    // Estimated the way a tokenizer roughly counts English and code, so the table's tokens mean something.
    const promptTokens = Math.ceil(JSON.stringify(request.messages).length / 4);
    const completionTokens = Math.ceil(content.length / 4);
    return {
      content,
      toolCalls: [],
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
      model: this.model,
      finishReason: 'stop',
    };
  }
}
