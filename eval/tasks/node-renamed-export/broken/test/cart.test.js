import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cartSummary, cartTotal } from '../src/cart.js';

const lines = [
  { sku: 'mug', cents: 1250, quantity: 2 },
  { sku: 'tea', cents: 499, quantity: 1 },
];

test('adds up the lines', () => {
  assert.equal(cartTotal(lines), 2999);
});

test('summarises the cart', () => {
  assert.equal(cartSummary(lines), '3 items, €29.99');
});
