import { parseDocument } from 'yaml';
import { z } from 'zod';
import { SelfdebugError } from '../errors/index.js';
import { type RepoConfig, repoConfigSchema } from './repo-config-schema.js';

export { applyOperatorCeilings } from './repo-config-ceilings.js';
export { repoConfigJsonSchema, repoConfigJsonSchemaText } from './repo-config-json-schema.js';
export {
  handlerConfig,
  loopLimitsFrom,
  modelOverrides,
  sandboxOverrides,
} from './repo-config-mappers.js';
export {
  defaultRepoConfig,
  type RepoConfig,
} from './repo-config-schema.js';

export const REPO_CONFIG_PATH = '.github/selfdebug.yml';

/** `message` is Markdown, ready to post as (part of) a GitHub comment. */
export type RepoConfigParseResult = { ok: true; config: RepoConfig } | { ok: false; message: string };

/**
 * Reads and validates `.github/selfdebug.yml` (org defaults and `_extends`
 * included) through whatever holds it: the handlers and the job runner both
 * come here, so a file is judged the same way wherever it is read. A file
 * that cannot be read or used is a result to show, never a throw.
 */
export async function readRepoConfig(source: {
  repoConfigFile(): Promise<unknown>;
}): Promise<RepoConfigParseResult> {
  let raw: unknown;
  try {
    raw = await source.repoConfigFile();
  } catch (error) {
    if (error instanceof SelfdebugError && error.code === 'config')
      return { ok: false, message: error.message };
    throw error;
  }
  return parseRepoConfig(raw);
}

/**
 * Validates `.github/selfdebug.yml` as already parsed (Probot's `context.config`
 * returns null when there is no file, which means every default).
 */
export function parseRepoConfig(raw: unknown, path = REPO_CONFIG_PATH): RepoConfigParseResult {
  const parsed = repoConfigSchema.safeParse(raw ?? {});
  if (parsed.success) return { ok: true, config: parsed.data };
  return {
    ok: false,
    message: invalidFileMessage(
      path,
      'is not valid',
      z.prettifyError(parsed.error),
      'the value at each path',
    ),
  };
}

/** Parses the file's text: YAML syntax errors are reported with their line and column. */
export function parseRepoConfigText(text: string, path = REPO_CONFIG_PATH): RepoConfigParseResult {
  const document = parseDocument(text);
  if (document.errors.length > 0) {
    // The first few are enough: later ones are usually echoes of the first.
    const details = document.errors
      .slice(0, 3)
      .map((error) => `✖ ${error.message.trimEnd()}`)
      .join('\n\n');
    return { ok: false, message: invalidFileMessage(path, 'is not valid YAML', details, 'the line shown') };
  }
  let raw: unknown;
  try {
    raw = document.toJS();
  } catch (error) {
    // Unresolved or runaway aliases only fail here, after parsing succeeded.
    const details = `✖ ${error instanceof Error ? error.message : String(error)}`;
    return { ok: false, message: invalidFileMessage(path, 'is not valid YAML', details, 'the alias named') };
  }
  return parseRepoConfig(raw, path);
}

function invalidFileMessage(path: string, problem: string, details: string, what: string): string {
  return [
    `**\`${path}\` ${problem}**, so selfdebug cannot use it:`,
    '',
    fenced(details),
    '',
    `Fix ${what} above in \`${path}\` on the default branch (every key and its allowed values are listed in ` +
      "selfdebug's configuration reference, and editors can check the file against its JSON Schema), then try again.",
  ].join('\n');
}

/** A code block that the quoted text cannot close early, whatever backticks the file holds. */
function fenced(text: string): string {
  const longestRun = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  return `${fence}text\n${text}\n${fence}`;
}
