import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

test('the bundle has the banner and every source file in order', () => {
  const bundle = readFileSync('dist/bundle.js', 'utf8');
  assert.ok(bundle.startsWith('/* widgets 3.1.0 */\n'));
  assert.ok(bundle.indexOf('// src/dom.js') < bundle.indexOf('// src/widgets.js'));
  assert.ok(bundle.includes('export const button = (label) =>'));
});
