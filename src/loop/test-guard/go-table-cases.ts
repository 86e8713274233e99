import { goTokens, joinTokens, matching, splitTopLevel, topLevel } from './go-tokens.js';

/**
 * The cases of Go's table-driven tests: each row of a `[]struct{…}{…}` or
 * `map[string]struct{…}{…}` literal (or of a slice or map of a struct type the
 * file declares), read with its table's field names, so the guard can tell a
 * changed expectation from a new case.
 */
export interface TableCase {
  /** Which case this is: its map key, its name, or its inputs. */
  key: string;
  /** How a reason names it: its map key or name, else the row itself. */
  label: string;
  /** The whole row, spacing and comments dropped. */
  row: string;
}

interface Table {
  fields: string[];
  /** A map's literal: each element is `key: {row}`. */
  keyed: boolean;
  /** The `{` and `}` around the rows. */
  open: number;
  close: number;
}

/** Fields that hold what the case expects, by the names Go tests give them: the rest are its inputs. */
const EXPECTED_FIELD =
  /^(wants?|wanted|expected|expects?|exp|outputs?|out|results?|res|golden|should|err|errs|error|ok)(?![a-z])/i;

/** Fields that name a case. */
const NAME_FIELD = /^(name|desc|description|title|label|scenario|tc|testName|caseName)$/i;

export function goTableCases(text: string): TableCase[] {
  const tokens = goTokens(text);
  const declared = declaredStructs(tokens);
  const cases: TableCase[] = [];
  for (let at = 0; at < tokens.length; at++) {
    const table = tableAt(tokens, at, declared);
    if (!table) continue;
    cases.push(...rowsOf(tokens, table));
    at = table.close;
  }
  return cases;
}

/** `type name struct {…}` declarations: the row types of tables written as `[]name{…}`. */
function declaredStructs(tokens: readonly string[]): Map<string, string[]> {
  const declared = new Map<string, string[]>();
  tokens.forEach((token, at) => {
    if (token !== 'type' || tokens[at + 2] !== 'struct' || tokens[at + 3] !== '{') return;
    declared.set(tokens[at + 1] as string, fieldNames(tokens, at + 3, matching(tokens, at + 3)));
  });
  return declared;
}

/** The table whose type starts at `at` (`[]`, `[...]`, `[N]` or `map[K]`), or null. */
function tableAt(tokens: readonly string[], at: number, declared: Map<string, string[]>): Table | null {
  let element: number;
  if (tokens[at] === 'map' && tokens[at + 1] === '[') element = matching(tokens, at + 1) + 1;
  else if (tokens[at] === '[' && tokens[at - 1] !== 'map' && tokens[at + 1] === ']') element = at + 2;
  else if (tokens[at] === '[' && /^(\.\.\.|\d+)$/.test(tokens[at + 1] ?? '') && tokens[at + 2] === ']')
    element = at + 3;
  else return null;
  const keyed = tokens[at] === 'map';
  if (tokens[element] === 'struct' && tokens[element + 1] === '{') {
    const fieldsEnd = matching(tokens, element + 1);
    const open = fieldsEnd + 1;
    if (tokens[open] !== '{') return null;
    return { fields: fieldNames(tokens, element + 1, fieldsEnd), keyed, open, close: matching(tokens, open) };
  }
  const fields = declared.get(tokens[element] ?? '');
  if (!fields || tokens[element + 1] !== '{') return null;
  return { fields, keyed, open: element + 1, close: matching(tokens, element + 1) };
}

/** The field names of a struct type whose braces are at `open` and `close`; an embedded field by its type. */
function fieldNames(tokens: readonly string[], open: number, close: number): string[] {
  const names: string[] = [];
  for (const declaration of splitTopLevel(tokens, open + 1, close, ';')) {
    const words = declaration.filter((token) => token !== '*');
    if (words.length === 1 || (words.length === 2 && words[1]?.startsWith('`'))) {
      names.push((words[0] as string).replace(/^.*\./, ''));
      continue;
    }
    for (let at = 0; at < declaration.length; at += 2) {
      names.push(declaration[at] as string);
      if (declaration[at + 1] !== ',') break;
    }
  }
  return names;
}

function rowsOf(tokens: readonly string[], table: Table): TableCase[] {
  return splitTopLevel(tokens, table.open + 1, table.close, ',').flatMap((element) => {
    const colon = table.keyed ? (topLevel(element, 0, element.length, ':')[0] ?? -1) : -1;
    if (table.keyed && colon < 0) return [];
    const row = element.slice(colon + 1);
    const brace = row.indexOf('{');
    if (brace < 0) return [];
    const values = rowValues(row, brace, table.fields);
    const mapKey = colon < 0 ? null : joinTokens(element.slice(0, colon));
    return [tableCase(table.fields, mapKey, joinTokens(row.slice(brace)), values)];
  });
}

/** Each field's value in a row, keyed (`want: 3`) or by position (`{"name", 3}`); zero-valued fields absent. */
function rowValues(row: readonly string[], brace: number, fields: readonly string[]): Map<string, string> {
  const values = new Map<string, string>();
  splitTopLevel(row, brace + 1, matching(row, brace), ',').forEach((value, index) => {
    const keyed = value[1] === ':' && /^\w+$/.test(value[0] ?? '');
    const field = keyed ? (value[0] as string) : (fields[index] ?? `#${index}`);
    values.set(field, joinTokens(keyed ? value.slice(2) : value));
  });
  return values;
}

function tableCase(
  fields: readonly string[],
  mapKey: string | null,
  row: string,
  values: Map<string, string>,
): TableCase {
  const entries = [...values].sort(([left], [right]) => left.localeCompare(right));
  const inputs = entries.filter(([field]) => !EXPECTED_FIELD.test(field));
  const name = entries.find(([field]) => NAME_FIELD.test(field))?.[1] ?? null;
  // Without a field named for the expectation, a case is known by its first field (Go tables put inputs first).
  const hasExpected = fields.some((field) => EXPECTED_FIELD.test(field));
  const first = values.get(fields[0] ?? '') ?? row;
  const identity =
    mapKey ?? name ?? (hasExpected ? inputs.map(([field, value]) => `${field}=${value}`).join(' ') : first);
  return {
    // Not keyed by the table's fields: a test that gives its table a new field keeps its cases.
    key: identity,
    label: mapKey ?? name ?? row,
    row,
  };
}
