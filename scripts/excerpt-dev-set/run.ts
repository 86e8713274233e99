import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LABELS, type Rule } from './labels.js';

/**
 * One recorded tool run (record.sh wrote it under raw/<tool>/) with its failure lines labelled, and
 * what every log shape shares: a line that may be a failure line, and how a shaped log is written
 * out with the numbers of its labelled lines.
 */
export const FIXTURES = fileURLToPath(new URL('../../test/fixtures/excerpt-dev-set/', import.meta.url));
export const RAW = join(FIXTURES, 'raw');

/** The folder record.sh ran each tool in, as the recorded output names it. */
export const RECORDED_WORKDIR = '/home/runner/work/app/app';

export interface Line {
  text: string;
  label?: boolean;
}

export interface Run {
  tool: string;
  setup: { command: string; output: string[] } | null;
  command: string;
  /** The tool's output, its failure lines labelled. */
  body: Line[];
  exitCode: number;
}

export type Language = 'node' | 'python' | 'go' | 'rust' | 'ruby' | 'java' | 'c';

export const LANGUAGE: Record<string, Language> = {
  jest: 'node',
  vitest: 'node',
  mocha: 'node',
  tape: 'node',
  eslint: 'node',
  tsc: 'node',
  pytest: 'python',
  unittest: 'python',
  go: 'go',
  'go-panic': 'go',
  'go-timeout': 'go',
  cargo: 'rust',
  rspec: 'ruby',
  maven: 'java',
  gradle: 'java',
  gcc: 'c',
  make: 'c',
};

export const plain = (texts: string[]): Line[] => texts.map((text) => ({ text }));

export function languageOf(tool: string): Language {
  const language = LANGUAGE[tool];
  if (!language) throw new Error(`${tool}: no language in run.ts`);
  return language;
}

export function readRun(tool: string): Run {
  const read = (name: string) => readFileSync(join(RAW, tool, name), 'utf8').replace(/\n$/, '');
  const setupPath = join(RAW, tool, 'setup.txt');
  const setupCommand = languageOf(tool) === 'node' ? 'npm install --no-audit --no-fund' : null;
  return {
    tool,
    setup:
      setupCommand && existsSync(setupPath)
        ? { command: setupCommand, output: read('setup.txt').split('\n') }
        : null,
    command: read('command.txt'),
    body: labelled(tool, read('output.txt').split('\n')),
    exitCode: Number.parseInt(read('exit.txt'), 10),
  };
}

/** The tool's output with its failure lines labelled; every rule must match. */
function labelled(tool: string, output: string[]): Line[] {
  const rules = LABELS[tool];
  if (!rules) throw new Error(`${tool}: no labels in labels.ts`);
  const plainText = output.map(stripAnsi);
  const marks = new Set<number>();
  for (const rule of rules) {
    const found = apply(rule, plainText);
    if (found.length === 0) throw new Error(`${tool}: a label rule matches no line: ${describe(rule)}`);
    for (const index of found) marks.add(index);
  }
  return output.map((text, index) => ({ text, label: marks.has(index) && !isFiller(plainText[index]!) }));
}

function apply(rule: Rule, lines: string[]): number[] {
  if (typeof rule === 'string' || rule instanceof RegExp) {
    return lines.flatMap((text, index) => (holds(text, rule) ? [index] : []));
  }
  const start = lines.findIndex((text) => holds(text, rule.from));
  if (start === -1) return [];
  const end = lines.findIndex((text, index) => index > start && holds(text, rule.to));
  if (end === -1) return [];
  return Array.from({ length: end - start + 1 }, (_, offset) => start + offset);
}

function holds(text: string, fragment: string | RegExp): boolean {
  return typeof fragment === 'string' ? text.includes(fragment) : fragment.test(text);
}

function describe(rule: Rule): string {
  return typeof rule === 'object' && !(rule instanceof RegExp) ? `${rule.from} … ${rule.to}` : String(rule);
}

/** Blank lines and bare separators are never failure lines. */
function isFiller(text: string): boolean {
  return /^[\s⎯─=_-]*(?:\[\d+\/\d+\][\s⎯─]*)?$/.test(text);
}

function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing escape sequences is the point.
  return text.replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '');
}

/** The log's text, and the numbers (by `\n`, `\r\n`, lone `\r`, as the excerpt counts) of its labelled lines. */
export function render(lines: Line[]): { text: string; labelled: number[] } {
  let number = 0;
  const numbers: number[] = [];
  for (const line of lines) {
    number += line.text.replace(/\r$/, '').split('\r').length;
    if (line.label) numbers.push(number);
  }
  return { text: `${lines.map((line) => line.text).join('\n')}\n`, labelled: numbers };
}

/** `3-9, 12`: the labelled numbers as ranges, for a person reading the labels file. */
export function ranges(numbers: number[]): string {
  const parts: string[] = [];
  for (let index = 0; index < numbers.length; ) {
    let end = index;
    while (end + 1 < numbers.length && numbers[end + 1] === numbers[end]! + 1) end++;
    parts.push(end === index ? `${numbers[index]}` : `${numbers[index]}-${numbers[end]}`);
    index = end + 1;
  }
  return parts.join(', ');
}
