# JavaScript and TypeScript: jest, vitest, mocha under nyc, tape under nyc, eslint, tsc. Each project
# installs its tools from the npm registry npm is configured with (npm's own config names it).

# A small shop library with four bugs, in enough files that a coverage table has some length.
js_library() {
  mkdir -p "$1/src/util"
  cat >"$1/src/cart.js" <<'EOF'
const { roundCents } = require('./util/money');

function subtotal(items) {
  return items.reduce((sum, item) => sum + item.price * item.qty, 0);
}

function discount(total, code) {
  if (code === 'HALF') return total / 2;
  // Bug: a ten-off code can take the total below zero.
  if (code === 'TENOFF') return total - 1000;
  return total;
}

function tax(total, rate) {
  // Bug: rounds to whole units instead of cents.
  return Math.round(total * rate / 100) * 100;
}

function findItem(items, sku) {
  // Bug: a missing item throws instead of returning null.
  return items.find((item) => item.sku === sku).name;
}

module.exports = { subtotal, discount, tax, findItem, roundCents };
EOF
  cat >"$1/src/format.js" <<'EOF'
function formatPrice(cents) {
  // Bug: 150 cents prints as $1.5.
  return '$' + cents / 100;
}

function formatLine(item) {
  return `${item.qty} x ${item.name}`;
}

module.exports = { formatPrice, formatLine };
EOF
  cat >"$1/src/util/money.js" <<'EOF'
function roundCents(value) {
  return Math.round(value);
}

function sum(values) {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

module.exports = { roundCents, sum };
EOF
  for name in inventory shipping coupons returns gifts reviews search wishlist; do
    cat >"$1/src/$name.js" <<EOF
function ${name}Count(list) {
  var unused = 0;
  if (list == null) return 0;
  console.log('counting ${name}');
  return list.length;
}

function ${name}Names(list) {
  return list.map((entry) => entry.name);
}

module.exports = { ${name}Count, ${name}Names };
EOF
  done
  cat >"$1/eslint.config.js" <<'EOF'
const globals = Object.fromEntries(
  ['require', 'module', 'console', 'process', 'describe', 'it', 'test', 'expect', '__dirname'].map((name) => [name, 'readonly']),
);
module.exports = [
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { ecmaVersion: 2022, globals },
    rules: { 'no-unused-vars': 'warn', 'no-console': 'warn', eqeqeq: 'warn', 'no-var': 'warn', 'no-undef': 'error' },
  },
];
EOF
}

# The same checks in every runner: twenty passing subtotals, then four failures.
JS_ITEMS="[{ sku: 'a', name: 'apple', price: 150, qty: 2 }, { sku: 'b', name: 'bread', price: 320, qty: 1 }]"

npm_project() { # dir name test-script dev-dependencies…
  local dir=$1 name=$2 script=$3
  shift 3
  local deps
  deps=$(printf '"%s": "*",' "$@")
  printf '{ "name": "%s", "version": "1.0.0", "private": true, "scripts": { %s }, "devDependencies": { %s } }\n' \
    "$name" "$script" "$(for dep in "$@"; do printf '"%s": "^%s",' "${dep%@*}" "${dep##*@}"; done | sed 's/,$//')" >"$dir/package.json"
  : "$deps"
}

if wanted jest && has npm jest; then
  d=$(project jest) && js_library "$d" && mkdir -p "$d/test"
  npm_project "$d" shop '"pretest": "eslint src", "test": "jest --coverage --verbose"' jest@30 eslint@9
  cat >"$d/test/cart.test.js" <<EOF
const { subtotal, discount, tax, findItem } = require('../src/cart');
const { formatPrice } = require('../src/format');
for (const name of ['inventory', 'shipping', 'coupons', 'returns', 'gifts', 'reviews', 'search', 'wishlist']) require(\`../src/\${name}\`);
const items = $JS_ITEMS;

describe('subtotal', () => {
  for (let count = 1; count <= 120; count++) {
    test(\`adds \${count} loaves\`, () => {
      expect(subtotal([{ price: 320, qty: count }])).toBe(320 * count);
    });
  }
});

describe('prices', () => {
  test('formats cents with two decimals', () => {
    expect(formatPrice(150)).toBe('\$1.50');
  });
  test('never discounts below zero', () => {
    expect(discount(500, 'TENOFF')).toBeGreaterThanOrEqual(0);
  });
  test('charges tax to the cent', () => {
    expect(tax(1999, 0.2)).toBe(400);
  });
  test('finds no missing item', () => {
    expect(findItem(items, 'zzz')).toBeNull();
  });
  test('halves the total', () => {
    expect(discount(620, 'HALF')).toBe(310);
  });
});
EOF
  record jest "$d" "npm install --no-audit --no-fund" "npm test"
fi

if wanted vitest && has npm vitest; then
  d=$(project vitest) && js_library "$d" && mkdir -p "$d/test"
  npm_project "$d" shop '"test": "vitest run --coverage --coverage.reporter=text --coverage.reportOnFailure --reporter=verbose"' vitest@3 @vitest/coverage-v8@3
  cat >"$d/test/cart.test.mjs" <<EOF
import { describe, expect, test } from 'vitest';
import cart from '../src/cart.js';
import format from '../src/format.js';
import '../src/inventory.js';
import '../src/shipping.js';
import '../src/coupons.js';
import '../src/returns.js';
import '../src/gifts.js';
import '../src/reviews.js';
import '../src/search.js';
import '../src/wishlist.js';
const items = $JS_ITEMS;

describe('subtotal', () => {
  for (let count = 1; count <= 120; count++) {
    test(\`adds \${count} loaves\`, () => {
      expect(cart.subtotal([{ price: 320, qty: count }])).toBe(320 * count);
    });
  }
});

describe('prices', () => {
  test('formats cents with two decimals', () => {
    expect(format.formatPrice(150)).toBe('\$1.50');
  });
  test('never discounts below zero', () => {
    expect(cart.discount(500, 'TENOFF')).toBeGreaterThanOrEqual(0);
  });
  test('charges tax to the cent', () => {
    expect(cart.tax(1999, 0.2)).toBe(400);
  });
  test('finds no missing item', () => {
    expect(cart.findItem(items, 'zzz')).toBeNull();
  });
});
EOF
  record vitest "$d" "npm install --no-audit --no-fund" "npm test"
fi

mocha_tests() { # dir: node's assert, as mocha and tape projects use it
  cat >"$1/test/cart.test.js" <<EOF
const assert = require('node:assert');
const { subtotal, discount, tax, findItem } = require('../src/cart');
const { formatPrice } = require('../src/format');
for (const name of ['inventory', 'shipping', 'coupons', 'returns', 'gifts', 'reviews', 'search', 'wishlist']) require(\`../src/\${name}\`);
const items = $JS_ITEMS;

describe('subtotal', () => {
  for (let count = 1; count <= 120; count++) {
    it(\`adds \${count} loaves\`, () => {
      assert.strictEqual(subtotal([{ price: 320, qty: count }]), 320 * count);
    });
  }
});

describe('prices', () => {
  it('formats cents with two decimals', () => {
    assert.strictEqual(formatPrice(150), '\$1.50');
  });
  it('never discounts below zero', () => {
    assert.ok(discount(500, 'TENOFF') >= 0, 'a discount took the total below zero');
  });
  it('charges tax to the cent', () => {
    assert.deepStrictEqual({ tax: tax(1999, 0.2) }, { tax: 400 });
  });
  it('finds no missing item', () => {
    assert.strictEqual(findItem(items, 'zzz'), null);
  });
});
EOF
}

if wanted mocha && has npm mocha; then
  d=$(project mocha) && js_library "$d" && mkdir -p "$d/test" && mocha_tests "$d"
  npm_project "$d" shop '"pretest": "eslint src", "test": "nyc --reporter=text mocha"' mocha@10 nyc@17 eslint@9
  record mocha "$d" "npm install --no-audit --no-fund" "npm test"
fi

if wanted tape && has npm tape; then
  d=$(project tape) && js_library "$d" && mkdir -p "$d/test"
  npm_project "$d" shop '"pretest": "eslint src", "test": "nyc --reporter=text tape test/*.js"' tape@5 nyc@17 eslint@9
  cat >"$d/test/cart.js" <<EOF
const test = require('tape');
const { subtotal, discount, tax, findItem } = require('../src/cart');
const { formatPrice } = require('../src/format');
for (const name of ['inventory', 'shipping', 'coupons', 'returns', 'gifts', 'reviews', 'search', 'wishlist']) require(\`../src/\${name}\`);
const items = $JS_ITEMS;

for (let count = 1; count <= 120; count++) {
  test(\`subtotal adds \${count} loaves\`, (t) => {
    t.equal(subtotal([{ price: 320, qty: count }]), 320 * count);
    t.end();
  });
}

test('formats cents with two decimals', (t) => {
  t.equal(formatPrice(150), '\$1.50');
  t.end();
});
test('never discounts below zero', (t) => {
  t.ok(discount(500, 'TENOFF') >= 0, 'a discount took the total below zero');
  t.end();
});
test('charges tax to the cent', (t) => {
  t.deepEqual({ tax: tax(1999, 0.2) }, { tax: 400 });
  t.end();
});
test('finds no missing item', (t) => {
  t.equal(findItem(items, 'zzz'), null);
  t.end();
});
EOF
  record tape "$d" "npm install --no-audit --no-fund" "npm test"
fi

if wanted eslint && has npm eslint; then
  d=$(project eslint) && js_library "$d"
  npm_project "$d" shop '"lint": "eslint src"' eslint@9
  cat >"$d/src/checkout.js" <<'EOF'
const { subtotal } = require('./cart');

function checkout(items, card) {
  if (card.expired) {
    return reject('expired card');
    console.log('unreachable');
  }
  const total = subtotal(items);
  if (total = 0) return null;
  return charge(card, total);
}

module.exports = { checkout };
EOF
  record eslint "$d" "npm install --no-audit --no-fund" "npm run lint"
fi

if wanted tsc && has npm tsc; then
  d=$(project tsc) && mkdir -p "$d/src"
  npm_project "$d" shop '"build": "tsc -p ."' typescript@5
  echo '{ "compilerOptions": { "strict": true, "target": "ES2022", "module": "commonjs", "outDir": "dist" }, "include": ["src"] }' >"$d/tsconfig.json"
  cat >"$d/src/cart.ts" <<'EOF'
export interface Item {
  sku: string;
  name: string;
  price: number;
  qty: number;
}

export function subtotal(items: Item[]): number {
  return items.reduce((sum, item) => sum + item.price * item.qty, 0);
}

export function findItem(items: Item[], sku: string): Item {
  return items.find((item) => item.sku === sku);
}
EOF
  cat >"$d/src/checkout.ts" <<'EOF'
import { findItem, subtotal, type Item } from './cart';

export function receipt(items: Item[]): string {
  const total: string = subtotal(items);
  return `total ${total}`;
}

export function lineFor(items: Item[], sku: string): string {
  const item = findItem(items, sku);
  return `${item.quantity} x ${item.name}`;
}

export function refund(items: Item[]) {
  return subtotal(items, 'refund');
}
EOF
  for name in inventory shipping coupons; do
    printf 'export function %sCount(list: string[]): number {\n  return list.length;\n}\n' "$name" >"$d/src/$name.ts"
  done
  record tsc "$d" "npm install --no-audit --no-fund" "npm run build"
fi
