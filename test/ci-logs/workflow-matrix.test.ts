// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${{ … }}` here are Actions expressions, not templates.
import { describe, expect, it } from 'vitest';
import { matchJob } from '../../src/ci-logs/workflow-matrix.js';
import { parseWorkflow } from '../../src/ci-logs/workflow-yaml.js';

/** A workflow whose first job is named by `template`, and a plain job after it. */
function workflowNamed(template: string) {
  const workflow = parseWorkflow(
    [
      'on: push',
      'jobs:',
      '  templated:',
      `    name: ${JSON.stringify(template)}`,
      '    runs-on: ubuntu-latest',
      '    strategy:',
      '      matrix:',
      '        os: [ubuntu, macos]',
      '        python: ["3.11", "3.12"]',
      '    steps:',
      '      - run: echo',
    ].join('\n'),
  );
  if (!workflow) throw new Error('the workflow did not parse');
  return workflow;
}

/** What the matcher once was, for the names where lazy groups stay fast: the pattern `^L0(.*?)L1(.*?)…Lk$`. */
function byPattern(template: string, name: string): Record<string, string> | null {
  const expression = /\$\{\{\s*([^}]*?)\s*\}\}/g;
  const keys: (string | null)[] = [];
  let pattern = '';
  let last = 0;
  for (const match of template.matchAll(expression)) {
    pattern += template.slice(last, match.index).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    keys.push(/^matrix\.([\w-]+)$/.exec(match[1] ?? '')?.[1] ?? null);
    pattern += '(.*?)';
    last = (match.index ?? 0) + match[0].length;
  }
  pattern += template.slice(last).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const found = new RegExp(`^${pattern}$`).exec(name);
  if (!found) return null;
  const matrix: Record<string, string> = {};
  keys.forEach((key, index) => {
    if (key !== null) matrix[key] = found[index + 1] ?? '';
  });
  return matrix;
}

describe('a job named by a template', () => {
  it('gives each expression its value', () => {
    const matched = matchJob(
      workflowNamed('Test py${{ matrix.python }} on ${{ matrix.os }}'),
      'Test py3.11 on ubuntu',
    );
    expect(matched?.job.id).toBe('templated');
    expect(matched?.matrix).toEqual({ python: '3.11', os: 'ubuntu' });
  });

  it('takes the values a lazy pattern would, on every split of short names over a small alphabet', () => {
    const templates = [
      '${{ matrix.os }}-${{ matrix.python }}',
      'a${{ matrix.os }}a${{ matrix.python }}a',
      '${{ matrix.os }}${{ matrix.python }}',
      'x-${{ matrix.os }}--${{ matrix.python }}-${{ github.ref }}',
      '${{ matrix.os }}',
      'ab${{ matrix.os }}ba',
    ];
    const alphabet = ['a', 'b', '-', 'x'];
    const names = [''];
    for (let length = 1; length <= 6; length++)
      for (const name of names.filter((candidate) => candidate.length === length - 1))
        for (const letter of alphabet) names.push(name + letter);
    let compared = 0;
    for (const template of templates) {
      const workflow = workflowNamed(template);
      for (const name of names) {
        expect(matchJob(workflow, name)?.matrix ?? null, `${template} against "${name}"`).toEqual(
          byPattern(template, name),
        );
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(30_000);
  });

  it('rejects at once a name that does not fit a template of many expressions (a lazy pattern took exponential time)', () => {
    const template = `${Array.from({ length: 40 }, (_, index) => `\${{ matrix.a${index} }}`).join('-')}-X`;
    expect(matchJob(workflowNamed(template), '-'.repeat(200))).toBeNull();
  });
});
