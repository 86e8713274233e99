import { z } from 'zod';

/**
 * A strict object whose unknown-key error names each unknown key and, when one
 * is a likely typo, the key that was meant: "max_atempts" is far more often a
 * slip than a new setting, and saying so saves a trip to the docs.
 */
export function strictSection<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') return unknownKeysMessage(issue.keys, known);
      // YAML turns a forgotten indent into a string or a list; say what shape was wanted.
      if (issue.code === 'invalid_type' && issue.expected === 'object')
        return `must be a mapping of keys (${known.filter((key) => !key.startsWith('_')).join(', ')}), not ${describe(issue.input)}`;
      return undefined;
    },
  });
}

function unknownKeysMessage(keys: readonly string[], known: readonly string[]): string {
  const described = keys.map((key) => {
    const suggestion = closestKey(key, known);
    return suggestion === undefined ? `"${key}"` : `"${key}" (did you mean "${suggestion}"?)`;
  });
  const allowed = `known keys here: ${known.filter((key) => !key.startsWith('_')).join(', ')}`;
  return `Unknown key${keys.length === 1 ? '' : 's'} ${described.join(', ')}; ${allowed}`;
}

/** The known key within a small edit distance, also matching kebab-case or camelCase spellings. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const normalised = key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase();
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(normalised, candidate);
    if (best === undefined || distance < best.distance) best = { key: candidate, distance };
  }
  if (best === undefined) return undefined;
  // Short keys tolerate one slip, longer ones two, so unrelated words are not "suggested".
  const tolerance = normalised.length <= 5 ? 1 : 2;
  return best.distance <= tolerance ? best.key : undefined;
}

/** Optimal string alignment distance: a swapped pair of letters ("setpu") counts as one slip. */
function editDistance(left: string, right: string): number {
  const rows: number[][] = Array.from({ length: left.length + 1 }, (_, row) =>
    Array.from({ length: right.length + 1 }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  for (let row = 1; row <= left.length; row++) {
    for (let column = 1; column <= right.length; column++) {
      const cost = left[row - 1] === right[column - 1] ? 0 : 1;
      let best = Math.min(
        rows[row - 1]![column]! + 1,
        rows[row]![column - 1]! + 1,
        rows[row - 1]![column - 1]! + cost,
      );
      const swapped =
        row > 1 && column > 1 && left[row - 1] === right[column - 2] && left[row - 2] === right[column - 1];
      if (swapped) best = Math.min(best, rows[row - 2]![column - 2]! + 1);
      rows[row]![column] = best;
    }
  }
  return rows[left.length]![right.length]!;
}

function describe(input: unknown): string {
  if (input === null) return 'an empty value';
  if (Array.isArray(input)) return 'a list';
  return `a ${typeof input}`;
}
