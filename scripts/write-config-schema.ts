/**
 * Writes schema/selfdebug.schema.json from the zod schema of
 * `.github/selfdebug.yml`: `npx tsx scripts/write-config-schema.ts`.
 * A unit test fails when the committed file differs from what this writes,
 * so run it after changing src/config/repo-config-schema.ts.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { REPO_CONFIG_SCHEMA_FILE, repoConfigJsonSchemaText } from '../src/config/repo-config-json-schema.js';

const target = fileURLToPath(new URL(`../${REPO_CONFIG_SCHEMA_FILE}`, import.meta.url));
await writeFile(target, repoConfigJsonSchemaText());
process.stdout.write(`wrote ${REPO_CONFIG_SCHEMA_FILE}\n`);
