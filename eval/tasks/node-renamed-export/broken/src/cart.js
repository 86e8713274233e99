import { formatPrice } from './money.js';

export function cartTotal(lines) {
  return lines.reduce((total, line) => total + line.cents * line.quantity, 0);
}

export function cartSummary(lines) {
  const count = lines.reduce((total, line) => total + line.quantity, 0);
  return `${count} item${count === 1 ? '' : 's'}, ${formatPrice(cartTotal(lines))}`;
}
