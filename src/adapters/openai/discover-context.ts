/**
 * Asks the server how large the model's context window is. Each server says it
 * in its own place, and none of these is part of OpenAI's API, so each is tried
 * in turn and any failure just means "the server does not say":
 * - vLLM: `max_model_len` on the model's entry in GET /v1/models
 *   (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html)
 * - llama.cpp: GET /props → `default_generation_settings.n_ctx`
 *   (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md)
 * - Ollama: POST /api/show → `model_info["<architecture>.context_length"]`, or
 *   `num_ctx` in its parameters when the Modelfile sets one
 *   (https://docs.ollama.com/api-reference/show-model-details)
 */

export interface ServerFacts {
  /** Whether GET /models answered at all. */
  listed: 'listed' | 'not-listed' | 'no-listing';
  /** The ids GET /models gave, for telling the operator what to pick. */
  models: string[];
  contextTokens: { tokens: number; source: string } | null;
}

export interface DiscoverOptions {
  baseUrl: string;
  model: string;
  headers: Record<string, string>;
  query?: Record<string, string>;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Per request; these endpoints answer at once or not at all. */
  timeoutMilliseconds?: number;
}

export async function discoverServerFacts(options: DiscoverOptions): Promise<ServerFacts> {
  const get = request(options);
  const base = options.baseUrl.replace(/\/+$/, '');
  const origin = base.replace(/\/v1$/, '');
  let listed: ServerFacts['listed'] = 'no-listing';
  let ids: string[] = [];
  let contextTokens: ServerFacts['contextTokens'] = null;

  const models = await get(`${base}/models`);
  if (isRecord(models) && Array.isArray(models.data)) {
    const entry = models.data.find((item) => isRecord(item) && item.id === options.model);
    listed = entry === undefined ? 'not-listed' : 'listed';
    ids = models.data.flatMap((item) => (isRecord(item) && typeof item.id === 'string' ? [item.id] : []));
    const length = isRecord(entry) ? positive(entry.max_model_len) : undefined;
    if (length !== undefined) contextTokens = { tokens: length, source: 'vLLM max_model_len' };
  }
  if (contextTokens === null && !isHostedOpenAI(base)) {
    const props = await get(`${origin}/props`);
    const settings = isRecord(props) ? props.default_generation_settings : undefined;
    const length = isRecord(settings) ? positive(settings.n_ctx) : undefined;
    if (length !== undefined) contextTokens = { tokens: length, source: 'llama.cpp /props n_ctx' };
  }
  if (contextTokens === null && !isHostedOpenAI(base)) {
    const show = await get(`${origin}/api/show`, { model: options.model });
    const length = ollamaContextLength(show);
    if (length !== undefined) contextTokens = length;
  }
  return { listed, models: ids, contextTokens };
}

function ollamaContextLength(show: unknown): ServerFacts['contextTokens'] | undefined {
  if (!isRecord(show)) return undefined;
  // A num_ctx in the Modelfile is what the server actually runs with.
  const numCtx =
    typeof show.parameters === 'string' ? /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(show.parameters) : null;
  if (numCtx?.[1]) return { tokens: Number(numCtx[1]), source: 'Ollama num_ctx' };
  const info = show.model_info;
  if (!isRecord(info)) return undefined;
  const architecture = info['general.architecture'];
  if (typeof architecture !== 'string') return undefined;
  const length = positive(info[`${architecture}.context_length`]);
  return length === undefined ? undefined : { tokens: length, source: 'Ollama model_info context_length' };
}

function request(options: DiscoverOptions) {
  const fetchFunction = options.fetch ?? fetch;
  return async (url: string, body?: unknown): Promise<unknown> => {
    const target = new URL(url);
    for (const [name, value] of Object.entries(options.query ?? {})) target.searchParams.set(name, value);
    const signals = [AbortSignal.timeout(options.timeoutMilliseconds ?? 5000)];
    if (options.signal) signals.push(options.signal);
    try {
      const response = await fetchFunction(target, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          ...options.headers,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.any(signals),
      });
      if (!response.ok) {
        await response.body?.cancel();
        return undefined;
      }
      return (await response.json()) as unknown;
    } catch {
      options.signal?.throwIfAborted();
      return undefined;
    }
  };
}

/** OpenAI and Azure have neither /props nor /api/show; asking would only log 404s there. */
function isHostedOpenAI(base: string): boolean {
  const host = new URL(base).hostname;
  return host === 'api.openai.com' || host.endsWith('.openai.azure.com');
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
