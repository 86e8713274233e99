import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { completeStructured } from '../../src/loop/structured-call.js';
import type { LanguageModel, ModelResponse, ToolCall } from '../../src/model/language-model.js';
import type { ChatBody, FakeModelServer } from '../fakes/model-servers/shared.js';
import { readmeTools } from './readme-tools.js';

/** One implementation under test, with what its server is documented to do. */
export interface LanguageModelSubject {
  model: LanguageModel;
  server: FakeModelServer;
  expected: {
    /** The window the model should report, and where from. */
    contextTokens: number;
    contextSource: 'server' | 'default' | 'config';
    /** Whether the model ends up calling the tool (natively or written as text). */
    callsTools: boolean;
    /** Whether the server reports usage (otherwise the adapter estimates it). */
    reportsUsage: boolean;
  };
}

const answerSchema = z.object({ verdict: z.enum(['fixed', 'unfixable']), explanation: z.string().min(1) });

/**
 * The LanguageModel contract as seen from an OpenAI-compatible server: what
 * the loop relies on, whatever server is behind the adapter, including what
 * only the server sees (tools and a response format never in one request).
 * Run against each fake server in language-model.test.ts; what the port
 * promises of every implementation, servers or not, is in
 * language-model-port-contract.ts.
 */
export function languageModelContract(name: string, start: () => Promise<LanguageModelSubject>): void {
  describe(`LanguageModel contract: ${name}`, () => {
    let subject: LanguageModelSubject;
    beforeAll(async () => {
      subject = await start();
    });
    afterAll(async () => {
      await subject?.server.close();
    });

    it('answers a plain request with text and a usage (estimated when the server sends none)', async () => {
      const response = await subject.model.complete({
        purpose: 'explain',
        messages: [
          { role: 'system', content: 'You explain failures.' },
          { role: 'user', content: 'SPEAK: why did it fail?' },
        ],
      });
      expect(response.content).toContain('why did it fail?');
      expect(response.toolCalls).toEqual([]);
      expect(response.usage.promptTokens).toBeGreaterThan(0);
      expect(response.usage.completionTokens).toBeGreaterThan(0);
      expect(response.usageEstimated === true).toBe(!subject.expected.reportsUsage);
    });

    it('gets a valid structured answer in a request that offers no tools', async () => {
      const before = subject.server.chatBodies().length;
      const value = await completeStructured({
        model: subject.model,
        purpose: 'retry-decision',
        messages: [
          { role: 'system', content: 'You decide.' },
          { role: 'user', content: 'Was it fixed?' },
        ],
        schema: answerSchema,
        schemaName: 'verdict',
        onResponse: async () => {},
      });
      expect(answerSchema.parse(value)).toEqual(value);
      const bodies = subject.server.chatBodies().slice(before);
      expect(bodies.every((body) => body.tools === undefined)).toBe(true);
    });

    it('runs a tool, then answers in JSON; tools and a response format never share a request', async () => {
      const before = subject.server.chatBodies().length;
      const ran: ToolCall[] = [];
      const responses: ModelResponse[] = [];
      const tools = readmeTools(ran);
      const value = await completeStructured({
        model: subject.model,
        purpose: 'generate',
        messages: [
          { role: 'system', content: 'You fix scripts. Read files with the tools, then answer.' },
          { role: 'user', content: 'The build fails.' },
        ],
        schema: answerSchema,
        schemaName: 'verdict',
        tools,
        onResponse: async (response) => {
          responses.push(response);
        },
      });
      expect(answerSchema.parse(value)).toEqual(value);
      const bodies: ChatBody[] = subject.server.chatBodies().slice(before);
      for (const body of bodies) {
        expect(body.tools !== undefined && body.response_format !== undefined).toBe(false);
      }
      if (subject.expected.callsTools) {
        expect(ran.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
          ['read_file', { path: 'README.md' }],
        ]);
        expect(responses[0]?.toolCalls.map((call) => call.name)).toEqual(['read_file']);
      } else {
        expect(ran).toEqual([]);
      }
      expect(responses.every((response) => response.usage.totalTokens > 0)).toBe(true);
    });

    it('reports its context window', async () => {
      const window = await subject.model.window?.();
      expect(window).toMatchObject({
        contextTokens: subject.expected.contextTokens,
        source: subject.expected.contextSource,
      });
      expect(window!.outputTokens).toBeLessThanOrEqual(window!.contextTokens / 4);
    });
  });
}
