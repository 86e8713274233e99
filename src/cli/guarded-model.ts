import { ModelUnreachableError, SelfdebugError } from '../errors/index.js';
import type { LanguageModel, ModelRequest, ModelResponse, ModelWindow } from '../model/language-model.js';
import type { ScriptedModel } from '../model/scripted-model.js';

/** The run asked the replay file for more answers than it holds. */
export class ReplayTooShortError extends SelfdebugError {
  constructor(path: string, answers: number, purpose: string) {
    super(
      'replay-too-short',
      `The replay file ${path} has ${answers} answer${answers === 1 ? '' : 's'}, but this run asked for ` +
        `answer ${answers + 1} (${purpose}): it went further than the recorded run. Record a new session ` +
        'with --record FILE against a model server, or add answers to the file.',
    );
  }
}

export interface GuardOptions {
  /** The --base-url flag, when given: a server that does not answer is then blamed on it, not the variable. */
  baseUrl?: string | undefined;
  /** The --replay file and its model, to say so when the run outgrows it. */
  replay?: { path: string; model: ScriptedModel } | undefined;
}

/**
 * The model `selfdebug fix` hands the loop: its failures say which flag to
 * change, and the first one is kept, so the command can exit 2 for a
 * problem of the settings rather than 1 for a run that did not work out.
 */
export class GuardedModel implements LanguageModel {
  failure: unknown;
  readonly window?: (signal?: AbortSignal) => Promise<ModelWindow>;

  constructor(
    private readonly inner: LanguageModel,
    private readonly options: GuardOptions = {},
  ) {
    const window = inner.window?.bind(inner);
    if (window) this.window = (signal) => this.watch(() => window(signal));
  }

  get model(): string {
    return this.inner.model;
  }

  get toolsEnabled(): boolean | undefined {
    return this.inner.toolsEnabled;
  }

  complete(request: ModelRequest): Promise<ModelResponse> {
    const replay = this.options.replay;
    if (replay && replay.model.remaining === 0) {
      return this.watch(() =>
        Promise.reject(new ReplayTooShortError(replay.path, replay.model.calls.length, request.purpose)),
      );
    }
    return this.watch(() => this.inner.complete(request));
  }

  private async watch<Value>(call: () => Promise<Value>): Promise<Value> {
    try {
      return await call();
    } catch (error) {
      const translated =
        error instanceof ModelUnreachableError && this.options.baseUrl !== undefined
          ? new ModelUnreachableError(error.what, { cause: error, setting: '--base-url' })
          : error;
      this.failure ??= translated;
      throw translated;
    }
  }
}
