import { scalar, type Workflow, type WorkflowJob } from './workflow-yaml.js';

/**
 * From a jobs-API job name back to the workflow job and its matrix values.
 * GitHub names a matrix job `<name> (<value>, <value>…)`, values in the order
 * of the matrix keys, unless the job's `name:` uses `${{ matrix.* }}` itself,
 * in which case the values are wherever the template puts them.
 */
export interface MatchedJob {
  job: WorkflowJob;
  matrix: Record<string, string>;
}

const EXPRESSION = /\$\{\{\s*([^}]*?)\s*\}\}/g;
const MATRIX_REFERENCE = /^matrix\.([\w-]+)$/;

export function matchJob(workflow: Workflow, apiName: string): MatchedJob | null {
  const name = apiName.trim();
  for (const job of workflow.jobs) {
    if (name === job.id || name === job.name) return { job, matrix: withIncludes(job, {}) };
  }
  for (const job of workflow.jobs) {
    const fromTemplate = job.name?.includes('${{') ? matchTemplate(job.name, name) : null;
    if (fromTemplate) return { job, matrix: withIncludes(job, fromTemplate) };
    const suffix = /^(.*?) \((.*)\)$/.exec(name);
    if (!suffix) continue;
    const [, base = '', values = ''] = suffix;
    const shownName = job.name === null ? job.id : job.name.replace(EXPRESSION, '').trim();
    if (base === job.id || base === shownName || base === job.name) {
      return { job, matrix: withIncludes(job, assignValues(job, values.split(', '))) };
    }
  }
  return null;
}

/** `Test py${{ matrix.python }} on ${{ matrix.os }}` against `Test py3.11 on ubuntu`. */
function matchTemplate(template: string, name: string): Record<string, string> | null {
  // The template's literal parts; each expression's value lies between two of them.
  const literals: string[] = [];
  const keys: (string | null)[] = [];
  let last = 0;
  for (const match of template.matchAll(EXPRESSION)) {
    literals.push(template.slice(last, match.index));
    keys.push(MATRIX_REFERENCE.exec(match[1] ?? '')?.[1] ?? null);
    last = (match.index ?? 0) + match[0].length;
  }
  literals.push(template.slice(last));
  const values = between(name, literals);
  if (values === null) return null;
  const matrix: Record<string, string> = {};
  keys.forEach((key, index) => {
    if (key !== null) matrix[key] = values[index] ?? '';
  });
  return matrix;
}

/**
 * The values that, put between `literals`, spell `text` (the first literal opens it, the last ends
 * it), each as short as it can be. Found left to right, a substring search per literal: taking each
 * literal where it first stands never loses a match, since the value after it can take up the rest.
 * A template is the repository's own text: as a pattern of lazy groups, a name that does not fit
 * made it backtrack in time exponential in the number of expressions (ten took half a second).
 * A name with a line break fits nothing (job names have none).
 */
function between(text: string, literals: string[]): string[] | null {
  const first = literals[0] ?? '';
  const final = literals.at(-1) ?? '';
  if (literals.length === 1) return text === first ? [] : null;
  const end = text.length - final.length;
  if (LINE_BREAK.test(text) || end < first.length || !text.startsWith(first) || !text.endsWith(final))
    return null;
  const values: string[] = [];
  let position = first.length;
  for (const literal of literals.slice(1, -1)) {
    const at = text.indexOf(literal, position);
    if (at === -1 || at + literal.length > end) return null;
    values.push(text.slice(position, at));
    position = at + literal.length;
  }
  values.push(text.slice(position, end));
  return values;
}

const LINE_BREAK = /[\n\r\u2028\u2029]/;

function assignValues(job: WorkflowJob, values: string[]): Record<string, string> {
  const axes = job.matrix?.axes ?? {};
  const keys = [...Object.keys(axes)];
  for (const entry of job.matrix?.include ?? [])
    for (const key of Object.keys(entry)) if (!keys.includes(key)) keys.push(key);
  const matrix: Record<string, string> = {};
  if (values.length === keys.length || values.length === Object.keys(axes).length) {
    values.forEach((value, index) => {
      const key = keys[index];
      if (key !== undefined) matrix[key] = value;
    });
    return matrix;
  }
  // Counts disagree (objects in values, or include-only keys): place each value on a key that lists it.
  for (const value of values) {
    const key = Object.keys(axes).find(
      (candidate) => !(candidate in matrix) && axes[candidate]?.some((option) => scalar(option) === value),
    );
    if (key) matrix[key] = value;
  }
  return matrix;
}

/** `include` entries that fit the combination add their extra keys (GitHub's own rule, simplified). */
function withIncludes(job: WorkflowJob, matrix: Record<string, string>): Record<string, string> {
  const axes = job.matrix?.axes ?? {};
  const result = { ...matrix };
  for (const entry of job.matrix?.include ?? []) {
    const fits = Object.entries(entry).every(
      ([key, value]) => !(key in axes) || !(key in matrix) || matrix[key] === scalar(value),
    );
    if (!fits) continue;
    for (const [key, value] of Object.entries(entry)) if (!(key in result)) result[key] = scalar(value);
  }
  return result;
}

/** The expression scopes a workflow's values are filled from; the rest (github, steps, needs…) stay as written. */
export type ExpressionScope = Partial<Record<'matrix' | 'inputs' | 'env' | 'runner', Record<string, string>>>;

/**
 * Replaces `${{ matrix.x }}`, `${{ inputs.x }}`, `${{ env.X }}` and
 * `${{ runner.x }}` that the context knows; other expressions stay as
 * written and are reported.
 */
export function substitute(text: string, context: ExpressionScope, unresolved: Set<string>): string {
  return text.replace(EXPRESSION, (whole, expression: string) => {
    const [scope, key] = expression.split('.', 2);
    const table =
      scope !== undefined && Object.hasOwn(context, scope)
        ? context[scope as keyof ExpressionScope]
        : undefined;
    if (table && key !== undefined && /^[\w-]+$/.test(key) && Object.hasOwn(table, key)) return table[key]!;
    unresolved.add(whole);
    return whole;
  });
}

/** The `${{ … }}` expressions a text still holds, each once, as written. */
export function expressionsIn(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(EXPRESSION), (match) => match[0]))];
}

/** What a text's `${{ … }}` expressions hold, in order. */
export function expressionBodies(text: string): string[] {
  return Array.from(text.matchAll(EXPRESSION), (match) => match[1] ?? '');
}

/** Whether a value draws on a secret (`${{ secrets.X }}`, `${{ github.token }}`). */
export function usesSecret(value: string): boolean {
  for (const match of value.matchAll(EXPRESSION)) {
    if (/\bsecrets\b|\bgithub\.token\b/.test(match[1] ?? '')) return true;
  }
  return false;
}
