import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelApiError, ModelUnreachableError } from '../../src/errors/model-errors.js';
import { fixProposalSchema } from '../../src/loop/schemas.js';
import { completeStructured, type ToolBox } from '../../src/loop/structured-call.js';
import type {
  ChatMessage,
  LanguageModel,
  ModelResponse,
  ModelWindow,
  ToolCall,
} from '../../src/model/language-model.js';
import { failure } from './failure.js';
import { readmeTools } from './readme-tools.js';

/** One LanguageModel under test, whatever is behind it: a server, a script, or another model it wraps. */
export interface LanguageModelPortSubject {
  model: LanguageModel;
  expected: {
    /** Whether offered tools get called (natively or written as text). */
    callsTools: boolean;
    /** Whether usage comes from the model (otherwise it is an estimate, and says so). */
    reportsUsage: boolean;
    /** The window it reports; absent for a model that reports none (the loop keeps its budget). */
    window?: { contextTokens: number; source: ModelWindow['source'] };
  };
  /** A model of the same kind whose answer never comes on its own: only the caller's abort ends the call. */
  pending?: () => LanguageModel;
  /** A model of the same kind with nothing answering at its address. */
  unreachable?: () => LanguageModel;
  close?: () => Promise<void>;
}

const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'You fix scripts. Read files with the tools, then answer.' },
  { role: 'user', content: 'The build fails.' },
];

/** What every completion promises, whoever made it. */
function expectCompletion(response: ModelResponse): void {
  expect(response.content === null || typeof response.content === 'string').toBe(true);
  for (const call of response.toolCalls) {
    expect(call).toEqual({ id: expect.any(String), name: expect.any(String), arguments: expect.any(String) });
    expect(call.id).not.toBe('');
  }
  expect(new Set(response.toolCalls.map((call) => call.id)).size).toBe(response.toolCalls.length);
  const { promptTokens, completionTokens, totalTokens } = response.usage;
  for (const count of [promptTokens, completionTokens, totalTokens]) {
    expect(Number.isInteger(count) && count >= 0, `usage ${JSON.stringify(response.usage)}`).toBe(true);
  }
  expect(totalTokens).toBeGreaterThanOrEqual(Math.max(promptTokens, completionTokens));
  expect([true, false, undefined]).toContain(response.usageEstimated);
  expect(response.model).toEqual(expect.any(String));
  expect(response.model).not.toBe('');
  expect(response.finishReason).toEqual(expect.any(String));
  expect(response.finishReason).not.toBe('');
}

/**
 * What the LanguageModel port promises the loop, whatever implements it: an
 * OpenAI-compatible server behind the adapter, the scripted model, or a
 * wrapper (recording, guarding, the eval's one-shot and policy models).
 * What only an HTTP server shows (the bodies it got) is in
 * language-model-contract.ts, run against the fake servers only.
 */
export function languageModelPortContract(
  name: string,
  start: () => Promise<LanguageModelPortSubject>,
  /**
   * Which of the optional cases the subject can show, known before it starts: a model that
   * always answers at once has no pending answer to abort, one with no address none to miss.
   * Cases that cannot apply are not registered at all, rather than skipped.
   */
  cases: { pending: boolean; unreachable: boolean } = { pending: true, unreachable: true },
): void {
  describe(`LanguageModel port contract: ${name}`, () => {
    let subject: LanguageModelPortSubject;
    beforeAll(async () => {
      subject = await start();
    });
    afterAll(async () => {
      await subject?.close?.();
    });

    it('names its model, and says whether it offers tools only as true, false or unset', () => {
      expect(subject.model.model).toEqual(expect.any(String));
      expect(subject.model.model).not.toBe('');
      expect([true, false, undefined]).toContain(subject.model.toolsEnabled);
    });

    it('answers a plain request with text, a usage that is reported or marked estimated, and why it stopped', async () => {
      const response = await subject.model.complete({
        purpose: 'explain',
        messages: [
          { role: 'system', content: 'You explain failures.' },
          { role: 'user', content: 'SPEAK: why did it fail?' },
        ],
      });
      expectCompletion(response);
      expect(response.content).toEqual(expect.any(String));
      expect(response.toolCalls).toEqual([]);
      expect(response.usage.promptTokens).toBeGreaterThan(0);
      expect(response.usage.completionTokens).toBeGreaterThan(0);
      expect(response.usageEstimated === true).toBe(!subject.expected.reportsUsage);
    });

    /** A fix proposal as the loop asks for one, with every response the model gave on the way. */
    const propose = async (tools?: ToolBox) => {
      const responses: ModelResponse[] = [];
      const value = await completeStructured({
        model: subject.model,
        purpose: 'generate',
        messages: MESSAGES,
        schema: fixProposalSchema,
        schemaName: 'fix_proposal',
        ...(tools ? { tools } : {}),
        onResponse: async (response) => {
          responses.push(response);
        },
      });
      return { value, responses };
    };

    it('gives a structured answer the loop can parse, without tools', async () => {
      const { value, responses } = await propose();
      expect(fixProposalSchema.parse(value)).toEqual(value);
      expect(responses.length).toBeGreaterThan(0);
      for (const response of responses) expectCompletion(response);
    });

    it('calls only the tools offered, each call with an id of its own, then answers in JSON', async () => {
      const ran: ToolCall[] = [];
      const { value, responses } = await propose(readmeTools(ran));
      expect(fixProposalSchema.parse(value)).toEqual(value);
      for (const response of responses) expectCompletion(response);
      if (subject.expected.callsTools) {
        expect(ran.length).toBeGreaterThan(0);
        expect(ran.every((call) => call.name === 'read_file')).toBe(true);
        expect(ran.map((call) => JSON.parse(call.arguments))).toEqual(ran.map(() => expect.any(Object)));
        expect(new Set(ran.map((call) => call.id)).size).toBe(ran.length);
        expect(responses[0]?.toolCalls.map((call) => call.name)).toEqual(['read_file']);
      } else {
        expect(ran).toEqual([]);
      }
    });

    it("hands back the caller's reason, unwrapped, when the signal has already aborted", async () => {
      const controller = new AbortController();
      const reason = new Error('the job was cancelled');
      controller.abort(reason);
      const error = await failure(
        subject.model.complete({ purpose: 'generate', messages: MESSAGES, signal: controller.signal }),
      );
      expect(error).toBe(reason);
    });

    if (cases.pending)
      it("hands back the caller's reason when it aborts while the answer is pending", async () => {
        const pending = subject.pending;
        if (pending === undefined)
          throw new Error(`${name} was registered with a pending case but has no pending()`);
        const controller = new AbortController();
        const reason = new Error('the lease was lost');
        const call = pending().complete({
          purpose: 'generate',
          messages: MESSAGES,
          signal: controller.signal,
        });
        controller.abort(reason);
        expect(await failure(call)).toBe(reason);
      });

    if (cases.unreachable)
      it('fails with a typed error when nothing answers, never with a response', async () => {
        const unreachable = subject.unreachable;
        if (unreachable === undefined)
          throw new Error(`${name} was registered with an unreachable case but has no unreachable()`);
        const error = await failure(unreachable().complete({ purpose: 'generate', messages: MESSAGES }));
        expect(error).toBeInstanceOf(ModelUnreachableError);
        expect(error).toBeInstanceOf(ModelApiError);
        expect(error).toMatchObject({ code: 'model-api', retryable: expect.any(Boolean) });
      });

    it('reports the window it can hold, with room for the answer, or has no window to ask', async () => {
      const expected = subject.expected.window;
      if (expected === undefined) {
        expect(subject.model.window).toBeUndefined();
        return;
      }
      const window = await subject.model.window?.();
      expect(window).toMatchObject({ contextTokens: expected.contextTokens, source: expected.source });
      expect(window!.outputTokens).toBeGreaterThan(0);
      expect(window!.outputTokens).toBeLessThan(window!.contextTokens);
    });
  });
}
