import { z } from 'zod';
import { TOOLCHAINS } from '../environment/toolchain-images.js';

const ENTRY = /^([a-z]+)(?::(\d+(?:\.\d+){0,2}))?=(\S+)$/;
const FORMAT =
  'TOOLCHAIN[:VERSION]=IMAGE entries separated by commas, e.g. "node:20=mirror/node:20,python=mirror/python:{version}"';

/**
 * SELFDEBUG_TOOLCHAIN_IMAGES: which image a derived toolchain runs in, as
 * `TOOLCHAIN[:VERSION]=IMAGE` entries separated by commas or spaces.
 * `node:20=registry.local/node:20` maps one version (and 20.x.y below it);
 * `python=registry.local/python:{version}` maps every version of a
 * toolchain through a template. Parsed into `{ "node:20": "…" }`.
 */
export const toolchainImagesSchema = z.preprocess(
  (value) => (typeof value === 'string' ? parseEntries(value) : value),
  z.record(z.string(), z.string().min(1)).superRefine((table, context) => {
    for (const key of Object.keys(table)) {
      if (key.startsWith('✖')) context.addIssue({ code: 'custom', message: key.slice(1).trim() });
      else if (!TOOLCHAINS.includes(key.split(':')[0]!))
        context.addIssue({
          code: 'custom',
          message: `"${key}" names no toolchain; use one of ${TOOLCHAINS.join(', ')} (${FORMAT})`,
        });
    }
  }),
);

/** Entries as a table; an entry that is not `KEY=IMAGE` becomes a key starting with ✖ that the check reports. */
function parseEntries(text: string): Record<string, string> {
  const table: Record<string, string> = {};
  for (const entry of text.split(/[\s,]+/).filter(Boolean)) {
    const match = ENTRY.exec(entry);
    if (match) table[match[2] === undefined ? match[1]! : `${match[1]}:${match[2]}`] = match[3]!;
    else table[`✖ "${entry}" is not ${FORMAT}`] = entry;
  }
  return table;
}
