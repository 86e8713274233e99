import assert from 'node:assert/strict';
import { test } from 'node:test';
import { paginate } from '../src/paginate.js';

const results = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

test('the first page holds the first items', () => {
  assert.deepEqual(paginate(results, 1, 3), { page: 1, items: ['a', 'b', 'c'], hasMore: true });
});

test('the second page starts where the first ended', () => {
  assert.deepEqual(paginate(results, 2, 3), { page: 2, items: ['d', 'e', 'f'], hasMore: true });
});

test('the last page holds what is left', () => {
  assert.deepEqual(paginate(results, 3, 3), { page: 3, items: ['g'], hasMore: false });
});

test('page 0 is refused', () => {
  assert.throws(() => paginate(results, 0, 3), RangeError);
});
