import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importCsv, parseRows } from '../src/importer.js';

const csv = 'name,email\nAda, ADA@example.com\n\nGrace,grace@example.com\n';

function fakeStore() {
  const rows = [];
  return {
    rows,
    save: (row) => new Promise((resolve) => setTimeout(() => resolve(rows.push(row)), 5)),
  };
}

test('parses rows without the header', () => {
  assert.deepEqual(parseRows(csv), [
    { name: 'Ada', email: 'ada@example.com' },
    { name: 'Grace', email: 'grace@example.com' },
  ]);
});

test('imports every row', async () => {
  const store = fakeStore();
  const result = await importCsv(csv, store);
  assert.equal(result.saved, 2);
  assert.equal(store.rows.length, 2);
});
