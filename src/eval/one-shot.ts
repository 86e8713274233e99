import { SelfdebugError } from '../errors/index.js';
import type { LoopLimits } from '../loop/task.js';
import type { LanguageModel, ModelRequest, ModelResponse } from '../model/language-model.js';

/**
 * The baseline the loop is measured against: one answer from the model, run
 * once. runLoop has no such mode, so it is made here from the outside: one
 * attempt (which never asks for a retry decision) and a model that refuses
 * to reflect, so the reflection costs no call and no tokens.
 */
class OneShotRefusal extends SelfdebugError {
  constructor(purpose: string) {
    super(
      'eval-one-shot',
      `the one-shot baseline makes no "${purpose}" call (one attempt, no retry decision, no reflection)`,
    );
  }
}

export function oneShotLimits(limits: LoopLimits): LoopLimits {
  return { ...limits, maxAttempts: 1 };
}

/**
 * The window and the tools setting are the wrapped model's, so the baseline
 * builds its one prompt to the same budget, with the same tools, as the loop
 * it is compared with.
 */
export function oneShotModel(inner: LanguageModel): LanguageModel {
  return {
    model: inner.model,
    get toolsEnabled() {
      return inner.toolsEnabled;
    },
    ...(inner.window ? { window: inner.window.bind(inner) } : {}),
    complete(request: ModelRequest): Promise<ModelResponse> {
      if (request.purpose === 'reflect' || request.purpose === 'retry-decision') {
        return Promise.reject(new OneShotRefusal(request.purpose));
      }
      return inner.complete(request);
    },
  };
}
