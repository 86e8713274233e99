/** Parses `name,email` lines, skipping the header and blank lines. */
export function parseRows(csv) {
  return csv
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const [name, email] = line.split(',');
      return { name: name.trim(), email: email.trim().toLowerCase() };
    });
}

/** Saves every row through `store.save` (async) and reports how many were saved. */
export async function importCsv(csv, store) {
  const rows = parseRows(csv);
  let saved = 0;
  for (const row of rows) {
    await store.save(row);
    saved += 1;
  }
  return { saved };
}
