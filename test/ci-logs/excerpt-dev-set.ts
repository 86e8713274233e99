import { readdirSync, readFileSync } from 'node:fs';
import { excerptLog } from '../../src/ci-logs/index.js';
import { type Measured, tailNumbers } from './dev-set.js';

/**
 * The excerpt's development set (test/fixtures/excerpt-dev-set, built by scripts/excerpt-dev-set):
 * real tools' failures (and two Go goroutine dumps: a panic, a test's timeout) with their noise, each as an Actions job log, a terminal log and the job logs of
 * two other CI systems, the failure lines labelled. Measures the excerpt beside `tail -n budget` at the
 * same line budget.
 */
const LOGS = new URL('../fixtures/excerpt-dev-set/logs/', import.meta.url);

export interface DevSetLog {
  name: string;
  tool: string;
  /** `actions`, `terminal`, or the CI system whose job log wraps the run (`gitlab`, `jenkins`, …). */
  shape: string;
  exitCode: number;
  text: string;
  failure: Set<number>;
}

export function excerptDevSet(): DevSetLog[] {
  return readdirSync(LOGS)
    .filter((name) => name.endsWith('.log'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -4);
      const labels = JSON.parse(readFileSync(new URL(`${name}.labels.json`, LOGS), 'utf8')) as {
        tool: string;
        shape: string;
        exitCode: number;
        failureLines: string;
      };
      const text = readFileSync(new URL(file, LOGS), 'utf8');
      return {
        name,
        tool: labels.tool,
        shape: labels.shape,
        exitCode: labels.exitCode,
        text,
        failure: numbers(labels.failureLines),
      };
    });
}

/** `3-5, 9` → {3, 4, 5, 9}. */
export function numbers(ranges: string): Set<number> {
  const found = new Set<number>();
  for (const part of ranges.split(',')) {
    const [first = '', last = first] = part.trim().split('-');
    for (let number = Number(first); number <= Number(last); number++) found.add(number);
  }
  return found;
}

/** One log at one budget: the dev-set row, and the failure lines the tail keeps that the excerpt does not. */
export interface QualityRow extends Measured {
  tailOnly: number[];
}

export async function measureQuality(log: DevSetLog, budget: number): Promise<QualityRow> {
  const excerpt = await excerptLog(log.text, { maxLines: budget });
  const kept = new Set(excerpt.lines.map((line) => line.n));
  const tail = tailNumbers(log.text, budget);
  const tailKept = [...log.failure].filter((number) => tail.numbers.has(number));
  return {
    name: log.name,
    sidecar: {
      system: log.shape,
      toolchain: log.tool,
      scenario: log.tool,
      command: '',
      exitCode: null,
      labelled: [...log.failure],
    },
    detected: excerpt.system,
    labelled: log.failure.size,
    excerptKept: [...log.failure].filter((number) => kept.has(number)).length,
    tailKept: tailKept.length,
    excerptLines: excerpt.lines.length,
    tailLines: tail.lines,
    tailOnly: tailKept.filter((number) => !kept.has(number)),
  };
}
