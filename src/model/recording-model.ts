import type { LanguageModel, ModelRequest, ModelResponse, ModelWindow } from './language-model.js';
import type { ReplayFile } from './replay-file.js';

/** Wraps a model and keeps its answers in the replay-file format, for `--record`. */
export class RecordingModel implements LanguageModel {
  private readonly responses: ReplayFile['responses'] = [];
  /**
   * Only where the wrapped model has one: a window that always throws would
   * tell its caller there is a window to ask, where the port says a model
   * without one leaves the loop's configured budget in place.
   */
  readonly window?: (signal?: AbortSignal) => Promise<ModelWindow>;

  constructor(private readonly inner: LanguageModel) {
    const window = inner.window?.bind(inner);
    if (window) this.window = window;
  }

  get model(): string {
    return this.inner.model;
  }

  /** Passed through, so a recorded run sizes its prompts and offers tools as an unrecorded one would. */
  get toolsEnabled(): boolean | undefined {
    return this.inner.toolsEnabled;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const response = await this.inner.complete(request);
    this.responses.push({
      purpose: request.purpose,
      content: response.content,
      ...(response.toolCalls.length > 0
        ? { toolCalls: response.toolCalls.map((call) => ({ name: call.name, arguments: call.arguments })) }
        : {}),
      usage: response.usage,
    });
    return response;
  }

  replayFile(): ReplayFile {
    return { model: this.inner.model, responses: [...this.responses] };
  }
}
