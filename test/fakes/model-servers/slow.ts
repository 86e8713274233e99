/**
 * A slow local model: a long wait before the first token (prompt processing),
 * then a steady trickle of tokens — what llama.cpp or Ollama on a CPU looks like
 * (llama.cpp's README reports prompt and generation speed separately in `timings`:
 * https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md).
 * It answers a streamed request token by token and a plain one only when all
 * tokens are done, as real servers do. `stallAfterTokens` makes the first
 * request go silent partway, like a server that lost its GPU or its slot.
 */
import {
  type ChatBody,
  chatBody,
  type FakeModelServer,
  isChat,
  sendJson,
  startModelServer,
} from './shared.js';

export interface SlowServerOptions {
  firstTokenMs: number;
  msPerToken: number;
  tokens: number;
  /** The first request stops sending after this many tokens, and never finishes. */
  stallAfterTokens?: number;
}

export function startSlowFake(options: SlowServerOptions): Promise<FakeModelServer> {
  let served = 0;
  return startModelServer(async (request, response) => {
    if (!isChat(request)) return false;
    const body: ChatBody = chatBody(request);
    served += 1;
    const stallAt = served === 1 ? options.stallAfterTokens : undefined;
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const usage = {
      prompt_tokens: 500,
      completion_tokens: options.tokens,
      total_tokens: 500 + options.tokens,
    };
    let gone = false;
    response.on('close', () => {
      gone = true;
    });
    if (body.stream === true) response.writeHead(200, { 'content-type': 'text/event-stream' });
    // Each token is due at a fixed time from the start, so timer delays do not add up over 600 tokens.
    const begin = performance.now();
    const until = (due: number) => wait(Math.max(0, begin + due - performance.now()));
    await until(options.firstTokenMs);
    for (let index = 0; index < options.tokens; index++) {
      if (gone) return true;
      if (stallAt !== undefined && index >= stallAt) {
        // Silent from here on; the client has to give up.
        await new Promise((resolve) => response.on('close', resolve));
        return true;
      }
      if (body.stream === true) {
        response.write(
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'tok ' }, finish_reason: null }] })}\n\n`,
        );
      }
      await until(options.firstTokenMs + (index + 1) * options.msPerToken);
    }
    if (gone) return true;
    if (body.stream === true) {
      response.end(
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage })}\n\ndata: [DONE]\n\n`,
      );
    } else {
      sendJson(response, 200, {
        id: 'slow',
        object: 'chat.completion',
        created: 0,
        model: body.model ?? 'slow',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'tok '.repeat(options.tokens) },
            finish_reason: 'stop',
          },
        ],
        usage,
      });
    }
    return true;
  });
}
