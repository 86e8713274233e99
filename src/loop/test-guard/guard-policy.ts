import type { LoopMode } from '../loop-session.js';
import type { EditRefusal } from '../workspace-editor.js';
import { classifyEdits, touchedTestFiles } from './classify-edits.js';
import type { EditedFile, TestEdits, TestFinding, TestPolicy } from './findings.js';

/** The policy half of the loop's limits the guard reads. */
export interface TestGuardSettings {
  tests: TestPolicy;
  protectedPaths: readonly string[];
}

/**
 * The policy an attempt runs under. A review's requested changes come from a person with write access
 * who may well ask for a test to change: there `protect` only flags, so the edit is listed and labelled
 * in the pull request rather than refused.
 */
export function guardSettingsFor(settings: TestGuardSettings, mode: LoopMode | undefined): TestGuardSettings {
  return mode === 'revise' && settings.tests === 'protect' ? { ...settings, tests: 'flag' } : settings;
}

/**
 * What the guard decides for an attempt's edits: under `protect` the findings
 * refuse the attempt (the problems the model reads), under `flag` they are
 * only recorded, under `allow` nothing is looked at.
 */
export function guardEdits(
  files: readonly EditedFile[],
  command: string,
  settings: TestGuardSettings,
): { refused: EditRefusal | null; flagged: TestFinding[] } {
  if (settings.tests === 'allow') return { refused: null, flagged: [] };
  const findings = classifyEdits(files, { command, protectedPaths: settings.protectedPaths });
  if (findings.length === 0 || settings.tests === 'flag') return { refused: null, flagged: findings };
  const problems = [
    'The repository protects its tests (tests: protect), so these edits were refused: ' +
      'fix the code under test instead, and leave tests, fixtures, CI workflows and the command as they are. ' +
      'Adding new tests is fine.',
    ...findings.map((finding) => finding.reason),
  ];
  return { refused: { problems, findings }, flagged: [] };
}

/**
 * What the final diff does to the tests, for the pull request: every test file it touches (under any
 * policy), and the findings that let it through (under `flag`; `protect` left none). Null when none.
 */
export function summarizeTestEdits(
  files: readonly EditedFile[],
  command: string,
  settings: TestGuardSettings,
): TestEdits | null {
  const findings =
    settings.tests === 'allow'
      ? []
      : classifyEdits(files, { command, protectedPaths: settings.protectedPaths });
  const touched = touchedTestFiles(files);
  return touched.length === 0 && findings.length === 0 ? null : { files: touched, findings };
}
