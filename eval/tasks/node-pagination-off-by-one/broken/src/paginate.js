/**
 * Returns one page of `items` (pages start at 1) and whether more pages follow.
 */
export function paginate(items, page, pageSize) {
  if (!Number.isInteger(page) || page < 1) throw new RangeError(`page must be 1 or more, got ${page}`);
  const start = (page - 1) * pageSize - 1;
  const end = Math.min(start + pageSize, items.length);
  return {
    page,
    items: items.slice(Math.max(start, 0), end),
    hasMore: end < items.length,
  };
}
