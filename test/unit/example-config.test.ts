import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseRepoConfigText } from '../../src/config/repo-config.js';
import { repoConfigJsonSchema } from '../../src/config/repo-config-json-schema.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/selfdebug.yml', import.meta.url));

/** Every key path of a JSON Schema's object properties: `sandbox.image`, `triggers.workflow_runs.enabled`. */
function schemaKeys(schema: Record<string, unknown>, prefix = ''): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(properties).flatMap(([key, inner]) => [
    `${prefix}${key}`,
    ...schemaKeys(inner, `${prefix}${key}.`),
  ]);
}

/** Every key path of a parsed YAML document. */
function documentKeys(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    `${prefix}${key}`,
    ...documentKeys(inner, `${prefix}${key}.`),
  ]);
}

describe('examples/selfdebug.yml', () => {
  it('validates against the schema', async () => {
    const parsed = parseRepoConfigText(await readFile(EXAMPLE, 'utf8'), 'examples/selfdebug.yml');
    expect(parsed.ok, parsed.ok ? '' : parsed.message).toBe(true);
  });

  it('names every key of the schema, each under a comment that explains it', async () => {
    const text = await readFile(EXAMPLE, 'utf8');
    const present = new Set(documentKeys(parse(text)));
    // Inheriting another repository's file cannot be live in an example: it is shown commented out.
    expect(text).toMatch(/^# _extends: \S+/m);
    present.add('_extends');
    const keys = schemaKeys(repoConfigJsonSchema());
    expect(keys.length).toBeGreaterThan(30);
    expect(keys.filter((key) => !present.has(key))).toEqual([]);
    const lines = text.split('\n');
    for (const key of keys.filter((path) => path !== '_extends')) {
      const name = key.split('.').at(-1)!;
      const index = lines.findIndex((line) => new RegExp(`^\\s*${name}:`).test(line));
      const above = lines[index - 1] ?? '';
      // A section's first key may follow the section line; every leaf has its own comment.
      expect(/^\s*#/.test(above) || /:\s*$/.test(above), `${key} has no comment above it`).toBe(true);
    }
  });
});
