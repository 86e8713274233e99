/**
 * Prints the development set's tables for docs/ci-logs.md:
 * `npx tsx test/ci-logs/dev-set-table.ts`.
 */
import { aggregate, devLogs, groupBy, type Measured, markdown, measureLog } from './dev-set.js';

const rows: Measured[] = [];
for (const name of devLogs()) rows.push(await measureLog(name));
process.stdout.write(
  `${markdown('CI system', [...groupBy(rows, (row) => row.sidecar.system), aggregate('all', rows)])}\n\n${markdown(
    'toolchain',
    groupBy(rows, (row) => row.sidecar.toolchain),
  )}\n`,
);
