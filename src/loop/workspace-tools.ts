import { z } from 'zod';
import { SelfdebugError } from '../errors/index.js';
import type { ToolDefinition } from '../model/language-model.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { workspacePath } from '../sandbox/workspace-path.js';
import { jsonSchemaOf } from './schemas.js';
import { clip } from './tokens.js';

/**
 * Read-only tools the model may call before proposing a fix. They run in the
 * sandbox (so they see exactly what the command sees) and never change it.
 */
const listFilesArguments = z.object({
  path: z.string().default('.').describe('Folder relative to the repository root'),
});
const readFileArguments = z.object({
  path: z.string().describe('File path relative to the repository root'),
  startLine: z.int().min(1).optional().describe('First line to read (1-based)'),
  endLine: z.int().min(1).optional().describe('Last line to read (inclusive)'),
});
const searchTextArguments = z.object({
  text: z.string().min(1).describe('Text to search for (fixed string, case-sensitive)'),
  path: z.string().default('.').describe('Folder or file to search in'),
});

const tools = {
  list_files: {
    description: 'List the files under a folder of the repository (recursive, at most 400).',
    arguments: listFilesArguments,
  },
  read_file: {
    description: 'Read a file of the repository, optionally a range of lines; lines come numbered.',
    arguments: readFileArguments,
  },
  search_text: {
    description: 'Search the repository for a text; answers file:line:content, at most 100 matches.',
    arguments: searchTextArguments,
  },
} as const;

export const workspaceToolDefinitions: ToolDefinition[] = Object.entries(tools).map(([name, tool]) => ({
  name,
  description: tool.description,
  parameters: jsonSchemaOf(tool.arguments),
}));

export interface ToolRun {
  ok: boolean;
  result: string;
}

export class WorkspaceTools {
  constructor(
    private readonly sandbox: Sandbox,
    private readonly signal?: AbortSignal,
  ) {}

  /** Runs a tool call; every failure becomes an answer the model can read, never an exception. */
  async run(name: string, argumentText: string, maxChars: number): Promise<ToolRun> {
    try {
      const parsed = JSON.parse(argumentText || '{}') as unknown;
      const result = await this.dispatch(name, parsed);
      return { ok: true, result: clip(result, maxChars) };
    } catch (error) {
      const message =
        error instanceof SyntaxError
          ? `the arguments are not valid JSON (${error.message})`
          : error instanceof z.ZodError
            ? z.prettifyError(error)
            : error instanceof SelfdebugError
              ? error.message
              : String(error instanceof Error ? error.message : error);
      return { ok: false, result: clip(`Error: ${message}`, maxChars) };
    }
  }

  private async dispatch(name: string, input: unknown): Promise<string> {
    switch (name) {
      case 'list_files':
        return this.listFiles(listFilesArguments.parse(input));
      case 'read_file':
        return this.readFile(readFileArguments.parse(input));
      case 'search_text':
        return this.searchText(searchTextArguments.parse(input));
      default:
        throw new Error(`there is no tool "${name}"; the tools are ${Object.keys(tools).join(', ')}`);
    }
  }

  private async listFiles({ path }: z.infer<typeof listFilesArguments>): Promise<string> {
    const folder = path === '.' || path === '' ? '.' : workspacePath(path);
    const result = await this.sandbox.exec(
      `find ${shellQuote(folder)} -name .git -prune -o -type f -print | sed 's|^\\./||' | sort | head -n 400`,
      { timeoutSeconds: 30, signal: this.signal },
    );
    if (result.exitCode !== 0) throw new Error(result.stderr.trim() || `cannot list ${path}`);
    return result.stdout.trim() === '' ? '(no files)' : result.stdout;
  }

  private async readFile({ path, startLine, endLine }: z.infer<typeof readFileArguments>): Promise<string> {
    const file = await this.sandbox.readFile(workspacePath(path));
    if (file === null) {
      throw new Error(
        `${path} does not exist or is not a regular file; list_files shows the files there are`,
      );
    }
    const lines = file.content.toString('utf8').split('\n');
    const first = Math.max(1, startLine ?? 1);
    const last = Math.min(lines.length, endLine ?? lines.length);
    if (first > last) return `${path} has ${lines.length} lines; nothing between ${first} and ${last}.`;
    const numbered = lines.slice(first - 1, last).map((line, index) => `${first + index}\t${line}`);
    return `${path} (lines ${first}-${last} of ${lines.length})\n${numbered.join('\n')}`;
  }

  private async searchText({ text, path }: z.infer<typeof searchTextArguments>): Promise<string> {
    const where = path === '.' || path === '' ? '.' : workspacePath(path);
    const result = await this.sandbox.exec(
      `grep -rnIF --exclude-dir=.git -e ${shellQuote(text)} -- ${shellQuote(where)} | sed 's|^\\./||' | head -n 100`,
      { timeoutSeconds: 30, signal: this.signal },
    );
    return result.stdout.trim() === '' ? `No match for ${JSON.stringify(text)}.` : result.stdout;
  }
}

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
