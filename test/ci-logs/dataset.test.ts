import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { excerptLog, type LogExcerpt } from '../../src/ci-logs/index.js';

/**
 * Real Actions job logs from the labelled dataset beside the repository
 * (test/fixtures/gha-logs, copied from the development dataset): the excerpt names the failing
 * step, keeps the failing tests in the form each log writes them, and stays
 * far below the budget. bench/excerpt.ts measures the whole dataset.
 */
const logPath = (name: string) => new URL(`../fixtures/gha-logs/${name}/job.log`, import.meta.url);

async function excerptFile(name: string, maxLines = 150): Promise<LogExcerpt> {
  return excerptLog(createReadStream(logPath(name), { highWaterMark: 64 * 1024 }), { maxLines });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing escape sequences is the point.
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

const kept = (excerpt: LogExcerpt, fragment: string) =>
  excerpt.lines.some((line) => line.text.includes(fragment));

describe('dataset logs', () => {
  it('pytest: the failing test, its assertion, and the step that ran it', async () => {
    const excerpt = await excerptFile('pytest-2446151667');
    expect(excerpt.failingStep).toBe('Run pytest tests/bench.py --benchmark-json output.json');
    expect(excerpt.exitCode).toBe(1);
    expect(excerpt.stepScript?.run).toBe('pytest tests/bench.py --benchmark-json output.json');
    expect(kept(excerpt, 'FAILED tests/bench.py::test_text_extraction')).toBe(true);
    expect(
      kept(excerpt, 'E                   PyPDF2.errors.PdfReadWarning:  impossible to decode XFormObject'),
    ).toBe(true);
    expect(excerpt.lines.length).toBeLessThanOrEqual(150);
  });

  it('Maven: thirty errored tests from the surefire summary, within the budget', async () => {
    const excerpt = await excerptFile('maven-12624254643');
    for (const test of [
      'getMonitor',
      'addMonitorException',
      'deleteMonitors',
      'validateRequireMonitorParams',
    ]) {
      expect(kept(excerpt, `MonitorServiceTest.${test} `)).toBe(true);
    }
    expect(kept(excerpt, 'org.mockito.exceptions.misusing.InjectMocksException')).toBe(true);
    expect(excerpt.lines.length).toBeLessThanOrEqual(150);
  });

  it('Gradle action: no exit-code line, the action’s own error, and what went wrong', async () => {
    const excerpt = await excerptFile('gradle-2085562467');
    expect(excerpt.failingStep).toBe('Run gradle/gradle-build-action@v2');
    expect(excerpt.exitCode).toBeNull();
    expect(kept(excerpt, '> Task :spotlessMiscCheck FAILED')).toBe(true);
    expect(kept(excerpt, "Execution failed for task ':spotlessMiscCheck'.")).toBe(true);
    expect(kept(excerpt, '##[error]Gradle build failed')).toBe(true);
  });

  it('mocha: titles split over lines in the failure list', async () => {
    const excerpt = await excerptFile('mocha-2536837535');
    expect(excerpt.exitCode).toBe(2);
    expect(kept(excerpt, 'should lookup seed')).toBe(true);
    expect(kept(excerpt, 'should fail resolve')).toBe(true);
  });

  it('JUnit console launcher under Ant: all 38 failures of the list', async () => {
    const excerpt = await excerptFile('ant-2496555797');
    const names = excerpt.lines.filter((line) => line.text.includes('JUnit Jupiter:VaultHttpService'));
    expect(names).toHaveLength(38);
  });

  it('jest behind an xvfb action: the test and the type errors annotated before it', async () => {
    const excerpt = await excerptFile('jest-2544418976');
    expect(excerpt.failingStep).toBe('Run GabrielBB/xvfb-action@v1');
    expect(excerpt.exitCode).toBe(1);
    expect(kept(excerpt, '● victory-core › should export everything')).toBe(true);
    expect(kept(excerpt, 'error TS2307')).toBe(true);
  });

  it('a passing job names no failing step', async () => {
    const excerpt = await excerptFile('mocha-2536803026');
    expect(excerpt.failingStep).toBeNull();
    expect(excerpt.exitCode).toBeNull();
  });

  it('numbers lines exactly as the input splits on \\n, \\r\\n and \\r, in a log with CRLF and NUL bytes', async () => {
    const name = 'maven-2295120025';
    const lines = (await readFile(logPath(name), 'utf8')).split(/\r\n|\n|\r/);
    if (lines.at(-1) === '') lines.pop();
    const excerpt = await excerptFile(name);
    expect(excerpt.totalLines).toBe(lines.length);
    expect(excerpt.lines.length).toBeGreaterThan(5);
    for (const { n, text } of excerpt.lines) {
      const source = (lines[n - 1] ?? '')
        .replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z /, '')
        .replace(ESCAPES, '')
        .replace(CONTROLS, '');
      expect(source.startsWith(text.replace(/ \[…\]$/, ''))).toBe(true);
    }
  });
});
