/** Formats cents as a price with two decimals and the currency symbol. */
export function formatCurrency(cents, symbol = '€') {
  const sign = cents < 0 ? '-' : '';
  const absolute = Math.abs(cents);
  return `${sign}${symbol}${Math.floor(absolute / 100)}.${String(absolute % 100).padStart(2, '0')}`;
}
