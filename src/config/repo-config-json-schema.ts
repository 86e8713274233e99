import { z } from 'zod';
import { repoConfigSchema } from './repo-config-schema.js';

/** Where the schema is committed; editors point at it with `# yaml-language-server: $schema=...`. */
export const REPO_CONFIG_SCHEMA_FILE = 'schema/selfdebug.schema.json';

/** A URN, not a URL: the schema's public address depends on where the project is published. */
const SCHEMA_ID = 'urn:selfdebug:schema:selfdebug.yml';

/**
 * The JSON Schema of `.github/selfdebug.yml`, generated from the same zod
 * schema the App validates with, so the two cannot drift. `io: 'input'`
 * describes what may be written (defaults make keys optional), not what the
 * parser returns.
 */
export function repoConfigJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(repoConfigSchema, { io: 'input', target: 'draft-2020-12' });
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: SCHEMA_ID,
    title: 'selfdebug repository configuration',
    description:
      'Settings for the selfdebug GitHub App, read from .github/selfdebug.yml (see docs/configuration.md).',
    ...withoutKeys(rest, ['title', 'description']),
  };
}

/**
 * The committed file's exact text, laid out as Biome formats JSON (short lists
 * of plain values on one line), so `biome check` and the freshness test agree.
 */
export function repoConfigJsonSchemaText(): string {
  return `${formatJson(repoConfigJsonSchema(), '', '')}\n`;
}

const LINE_WIDTH = 110;

function formatJson(value: unknown, indent: string, prefix: string): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const plain = value.every((item) => item === null || typeof item !== 'object');
    const inline = `[${value.map((item) => JSON.stringify(item)).join(', ')}]`;
    // The trailing comma Biome may add counts towards the width too.
    if (plain && indent.length + prefix.length + inline.length + 1 <= LINE_WIDTH) return inline;
    const inner = `${indent}  `;
    return `[\n${value.map((item) => `${inner}${formatJson(item, inner, '')}`).join(',\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const inner = `${indent}  `;
    const lines = entries.map(([key, item]) => {
      const label = `${JSON.stringify(key)}: `;
      return `${inner}${label}${formatJson(item, inner, label)}`;
    });
    return `{\n${lines.join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

function withoutKeys(value: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));
}
