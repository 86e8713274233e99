import type { ToolBox } from '../../src/loop/structured-call.js';
import type { ToolCall } from '../../src/model/language-model.js';

/** The one tool the LanguageModel contracts offer: reading a file of the repository. */
export const readFile = {
  name: 'read_file',
  description: 'Read a file of the repository',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

/** A tool box whose every call reads the same README; the calls made are pushed onto `ran`. */
export function readmeTools(ran: ToolCall[]): ToolBox {
  return {
    definitions: [readFile],
    maxCalls: 3,
    run: async (call) => {
      ran.push(call);
      return '# README\nRun `make test`.';
    },
  };
}
