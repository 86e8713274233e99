import { classifyEdits } from './classify-edits.js';
import type { EditedFile, TestFinding, TestPolicy } from './findings.js';

/** The policy half of the loop's limits the guard reads. */
export interface TestGuardSettings {
  tests: TestPolicy;
  protectedPaths: readonly string[];
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
): { refused: string[]; flagged: TestFinding[] } {
  if (settings.tests === 'allow') return { refused: [], flagged: [] };
  const findings = classifyEdits(files, { command, protectedPaths: settings.protectedPaths });
  if (findings.length === 0 || settings.tests === 'flag') return { refused: [], flagged: findings };
  return {
    refused: [
      'The repository protects its tests (tests: protect), so these edits were refused: ' +
        'fix the code under test instead, and leave tests, fixtures, CI workflows and the command as they are. ' +
        'Adding new tests is fine.',
      ...findings.map((finding) => finding.reason),
    ],
    flagged: [],
  };
}
