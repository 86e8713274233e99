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
  const keys: (string | null)[] = [];
  let pattern = '';
  let last = 0;
  for (const match of template.matchAll(EXPRESSION)) {
    pattern += escapePattern(template.slice(last, match.index));
    const key = MATRIX_REFERENCE.exec(match[1] ?? '')?.[1] ?? null;
    keys.push(key);
    pattern += '(.*?)';
    last = (match.index ?? 0) + match[0].length;
  }
  pattern += escapePattern(template.slice(last));
  const found = new RegExp(`^${pattern}$`).exec(name);
  if (!found) return null;
  const matrix: Record<string, string> = {};
  keys.forEach((key, index) => {
    if (key !== null) matrix[key] = found[index + 1] ?? '';
  });
  return matrix;
}

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

function escapePattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
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
