# Python (pytest, unittest), Go, Rust (cargo test), Ruby (RSpec), C (gcc, make).

py_library() {
  mkdir -p "$1/shop" "$1/tests"
  cat >"$1/shop/__init__.py" <<'EOF'
import warnings


def subtotal(items):
    return sum(item["price"] * item["qty"] for item in items)


def discount(total, code):
    if code == "HALF":
        return total / 2
    # Bug: a ten-off code can take the total below zero.
    if code == "TENOFF":
        return total - 1000
    return total


def format_price(cents):
    # Bug: 150 cents prints as $1.5.
    return f"${cents / 100}"


def find_item(items, sku):
    # Bug: a missing item raises instead of returning None.
    return next(item for item in items if item["sku"] == sku)["name"]


def legacy_total(items):
    warnings.warn("legacy_total is deprecated, use subtotal", DeprecationWarning, stacklevel=2)
    return subtotal(items)
EOF
  touch "$1/tests/__init__.py"
}

if wanted pytest && has python3 pytest; then
  d=$(project pytest) && py_library "$d"
  cat >"$d/tests/test_shop.py" <<'EOF'
import pytest

from shop import discount, find_item, format_price, legacy_total, subtotal

ITEMS = [{"sku": "a", "name": "apple", "price": 150, "qty": 2}]


@pytest.mark.parametrize("count", range(1, 151))
def test_subtotal(count):
    assert subtotal([{"price": 320, "qty": count}]) == 320 * count


@pytest.mark.parametrize("count", range(1, 6))
def test_legacy_total(count):
    assert legacy_total([{"price": 320, "qty": count}]) == 320 * count


def test_format_price():
    assert format_price(150) == "$1.50"


def test_discount_never_negative():
    total = discount(500, "TENOFF")
    assert total >= 0, f"discount took the total to {total}"


def test_find_missing_item():
    assert find_item(ITEMS, "zzz") is None
EOF
  record pytest "$d" "" "python3 -m pytest -v -p no:cacheprovider tests"
fi

if wanted unittest && has python3 unittest; then
  d=$(project unittest) && py_library "$d"
  cat >"$d/tests/test_shop.py" <<'EOF'
import unittest

from shop import discount, find_item, format_price, subtotal

ITEMS = [{"sku": "a", "name": "apple", "price": 150, "qty": 2}]


class SubtotalTest(unittest.TestCase):
    pass


for count in range(1, 151):
    setattr(SubtotalTest, f"test_subtotal_{count}",
            lambda self, count=count: self.assertEqual(subtotal([{"price": 320, "qty": count}]), 320 * count))


class PriceTest(unittest.TestCase):
    def test_format_price(self):
        self.assertEqual(format_price(150), "$1.50")

    def test_discount_never_negative(self):
        self.assertGreaterEqual(discount(500, "TENOFF"), 0)

    def test_find_missing_item(self):
        self.assertIsNone(find_item(ITEMS, "zzz"))
EOF
  record unittest "$d" "" "python3 -m unittest -v"
fi

if wanted go && has go go; then
  d=$(project go) && mkdir -p "$d/cart" "$d/format" "$d/stock" "$d/ship"
  printf 'module example.com/shop\n\ngo 1.19\n' >"$d/go.mod"
  cat >"$d/cart/cart.go" <<'EOF'
package cart

type Item struct {
	SKU   string
	Name  string
	Price int
	Qty   int
}

func Subtotal(items []Item) int {
	total := 0
	for _, item := range items {
		total += item.Price * item.Qty
	}
	return total
}

// Discount has a bug: a ten-off code can take the total below zero.
func Discount(total int, code string) int {
	if code == "TENOFF" {
		return total - 1000
	}
	return total
}

// Find has a bug: a missing item panics instead of returning nil.
func Find(items []Item, sku string) *Item {
	var found *Item
	for i := range items {
		if items[i].SKU == sku {
			found = &items[i]
		}
	}
	_ = found.Name
	return found
}
EOF
  cat >"$d/cart/cart_test.go" <<'EOF'
package cart

import (
	"fmt"
	"testing"
)

func TestSubtotal(t *testing.T) {
	for count := 1; count <= 100; count++ {
		t.Run(fmt.Sprintf("loaves_%d", count), func(t *testing.T) {
			if got := Subtotal([]Item{{Price: 320, Qty: count}}); got != 320*count {
				t.Errorf("Subtotal = %d, want %d", got, 320*count)
			}
		})
	}
}

func TestDiscountNeverNegative(t *testing.T) {
	if got := Discount(500, "TENOFF"); got < 0 {
		t.Errorf("Discount(500, TENOFF) = %d, want >= 0", got)
	}
}

func TestFindMissing(t *testing.T) {
	if item := Find([]Item{{SKU: "a", Name: "apple"}}, "zzz"); item != nil {
		t.Errorf("Find(zzz) = %v, want nil", item)
	}
}
EOF
  cat >"$d/format/format.go" <<'EOF'
package format

import "fmt"

// Price has a bug: 150 cents prints as $1.5.
func Price(cents int) string {
	return fmt.Sprintf("$%v", float64(cents)/100)
}
EOF
  cat >"$d/format/format_test.go" <<'EOF'
package format

import "testing"

func TestPrice(t *testing.T) {
	cases := map[int]string{100: "$1.00", 150: "$1.50", 199: "$1.99"}
	for cents, want := range cases {
		if got := Price(cents); got != want {
			t.Errorf("Price(%d) = %q, want %q", cents, got, want)
		}
	}
}
EOF
  for pkg in stock ship; do
    printf 'package %s\n\nfunc Count(names []string) int { return len(names) }\n' "$pkg" >"$d/$pkg/$pkg.go"
    printf 'package %s\n\nimport "testing"\n\nfunc TestCount(t *testing.T) {\n\tfor i := 0; i < 40; i++ {\n\t\tt.Run("n", func(t *testing.T) {\n\t\t\tif Count(make([]string, i)) != i {\n\t\t\t\tt.Fatal("count")\n\t\t\t}\n\t\t})\n\t}\n}\n' "$pkg" >"$d/$pkg/${pkg}_test.go"
  done
  record go "$d" "go vet ./... && go build ./..." "GOFLAGS=-count=1 go test -v -cover ./..."
fi

if wanted cargo && has cargo cargo; then
  d=$(project cargo) && mkdir -p "$d/src" "$d/tests"
  printf '[package]\nname = "shop"\nversion = "0.1.0"\nedition = "2021"\n' >"$d/Cargo.toml"
  cat >"$d/src/lib.rs" <<'EOF'
pub struct Item {
    pub sku: &'static str,
    pub name: &'static str,
    pub price: i64,
    pub qty: i64,
}

pub fn subtotal(items: &[Item]) -> i64 {
    let unused_total = 0;
    items.iter().map(|item| item.price * item.qty).sum()
}

/// Bug: a ten-off code can take the total below zero.
pub fn discount(total: i64, code: &str) -> i64 {
    if code == "TENOFF" { total - 1000 } else { total }
}

/// Bug: 150 cents prints as $1.5.
pub fn format_price(cents: i64) -> String {
    format!("${}", cents as f64 / 100.0)
}

/// Bug: a missing item panics instead of returning None.
pub fn find_item<'a>(items: &'a [Item], sku: &str) -> Option<&'a str> {
    Some(items.iter().find(|item| item.sku == sku).unwrap().name)
}
EOF
  cat >"$d/tests/shop.rs" <<'EOF'
use shop::*;

macro_rules! subtotal_tests {
    ($($name:ident: $count:expr,)*) => {$(
        #[test]
        fn $name() {
            assert_eq!(subtotal(&[Item { sku: "b", name: "bread", price: 320, qty: $count }]), 320 * $count);
        }
    )*}
}

#[test]
fn formats_cents_with_two_decimals() {
    assert_eq!(format_price(150), "$1.50");
}

#[test]
fn never_discounts_below_zero() {
    let total = discount(500, "TENOFF");
    assert!(total >= 0, "discount took the total to {}", total);
}

#[test]
fn finds_no_missing_item() {
    let items = [Item { sku: "a", name: "apple", price: 150, qty: 2 }];
    assert_eq!(find_item(&items, "zzz"), None);
}
EOF
  { echo 'subtotal_tests! {'; for count in $(seq 1 120); do printf '    loaves_%03d: %d,\n' "$count" "$count"; done; echo '}'; } >>"$d/tests/shop.rs"
  record cargo "$d" "" "cargo test --color never"
fi

if wanted rspec && has rspec rspec; then
  d=$(project rspec) && mkdir -p "$d/lib" "$d/spec"
  cat >"$d/lib/shop.rb" <<'EOF'
module Shop
  def self.subtotal(items)
    items.sum { |item| item[:price] * item[:qty] }
  end

  # Bug: a ten-off code can take the total below zero.
  def self.discount(total, code)
    code == 'TENOFF' ? total - 1000 : total
  end

  # Bug: 150 cents prints as $1.5.
  def self.format_price(cents)
    "$#{cents / 100.0}"
  end

  # Bug: a missing item raises instead of returning nil.
  def self.find_item(items, sku)
    items.find { |item| item[:sku] == sku }.fetch(:name)
  end
end
EOF
  cat >"$d/spec/shop_spec.rb" <<'EOF'
require_relative '../lib/shop'

RSpec.describe Shop do
  describe '.subtotal' do
    (1..150).each do |count|
      it "adds #{count} loaves" do
        expect(Shop.subtotal([{ price: 320, qty: count }])).to eq(320 * count)
      end
    end
  end

  describe '.format_price' do
    it 'formats cents with two decimals' do
      expect(Shop.format_price(150)).to eq('$1.50')
    end
  end

  describe '.discount' do
    it 'never goes below zero' do
      expect(Shop.discount(500, 'TENOFF')).to be >= 0
    end
  end

  describe '.find_item' do
    it 'finds no missing item' do
      expect(Shop.find_item([{ sku: 'a', name: 'apple' }], 'zzz')).to be_nil
    end
  end
end
EOF
  record rspec "$d" "" "rspec --format documentation"
fi

c_library() {
  mkdir -p "$1/src" "$1/tests"
  cat >"$1/src/shop.h" <<'EOF'
#ifndef SHOP_H
#define SHOP_H
long subtotal(const long *prices, const long *qty, int n);
long discount(long total, const char *code);
const char *format_price(long cents, char *out, unsigned size);
#endif
EOF
  cat >"$1/src/cart.c" <<'EOF'
#include <string.h>
#include "shop.h"

long subtotal(const long *prices, const long *qty, int n) {
  long total = 0;
  for (int i = 0; i < n; i++) total += prices[i] * qty[i];
  return total;
}

/* Bug: a ten-off code can take the total below zero. */
long discount(long total, const char *code) {
  if (strcmp(code, "TENOFF") == 0) return total - 1000;
  return total;
}
EOF
  cat >"$1/src/format.c" <<'EOF'
#include <stdio.h>
#include "shop.h"

/* Bug: 150 cents prints as $1.5. */
const char *format_price(long cents, char *out, unsigned size) {
  snprintf(out, size, "$%g", cents / 100.0);
  return out;
}
EOF
  for name in stock ship coupons returns gifts reviews search wishlist; do
    printf '#include <stdio.h>\n\nint %s_count(const char **names) {\n  int n = 0, unused;\n  while (names[n]) n++;\n  return n;\n}\n' "$name" >"$1/src/$name.c"
  done
}

if wanted gcc && has gcc gcc; then
  d=$(project gcc) && c_library "$d"
  cat >"$d/src/checkout.c" <<'EOF'
#include <stdio.h>
#include "shop.h"

struct receipt {
  long total;
  char line[32];
};

int checkout(const long *prices, const long *qty, int n, struct receipt *out) {
  long total = subtotal(prices, qty);
  out->totl = discount(total, "TENOFF");
  format_price(out->total, out->line, sizeof out->line)
  return out->total >= 0;
}
EOF
  record gcc "$d" "" "gcc -Wall -Wextra -c src/*.c"
fi

if wanted make && has make make; then
  d=$(project make) && c_library "$d"
  cat >"$d/tests/test_shop.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include "../src/shop.h"

static int failures;

#define CHECK(cond, ...) do { \
  if (cond) printf("PASS %s\n", #cond); \
  else { failures++; printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); printf(__VA_ARGS__); printf("\n"); } \
} while (0)

int main(void) {
  char buf[32];
  for (long count = 1; count <= 100; count++) {
    long price = 320;
    CHECK(subtotal(&price, &count, 1) == 320 * count, "subtotal of %ld loaves", count);
  }
  CHECK(strcmp(format_price(150, buf, sizeof buf), "$1.50") == 0, "format_price(150) = \"%s\", want \"$1.50\"", buf);
  CHECK(discount(500, "TENOFF") >= 0, "discount(500, TENOFF) = %ld, want >= 0", discount(500, "TENOFF"));
  printf("%d checks failed\n", failures);
  return failures ? 1 : 0;
}
EOF
  cat >"$d/Makefile" <<'EOF'
CFLAGS = -Wall -Wextra -O1
OBJECTS = $(patsubst %.c,%.o,$(wildcard src/*.c))

all: libshop.a tests/test_shop

libshop.a: $(OBJECTS)
	ar rcs $@ $^

tests/test_shop: tests/test_shop.c libshop.a
	$(CC) $(CFLAGS) -o $@ $< libshop.a

test: all
	./tests/test_shop

.PHONY: all test
EOF
  record make "$d" "" "make test"
fi
