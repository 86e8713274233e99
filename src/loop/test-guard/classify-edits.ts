import { classifyOtherFile } from './classify-other-files.js';
import { classifyTestFile } from './classify-test-file.js';
import type { EditedFile, TestFinding, TestGuardContext } from './findings.js';
import { testPart, testSyntaxFor } from './test-syntax.js';

/**
 * The test guard: every way an attempt's edits could make the check pass
 * without fixing the code. Pure: the loop computes the edited files in memory,
 * asks this, and only then decides whether to write them.
 */
export function classifyEdits(files: readonly EditedFile[], context: TestGuardContext): TestFinding[] {
  return files.flatMap((file) => classifyFile(file, context));
}

function classifyFile(file: EditedFile, context: TestGuardContext): TestFinding[] {
  const syntax = testSyntaxFor(file.path, file.before ?? file.after);
  const other = classifyOtherFile(file, context);
  if (!syntax) return other;
  return [
    ...other.filter((finding) => finding.kind === 'protected-path-edited'),
    ...classifyTestFile(file, syntax),
  ];
}

/** Every test file the edits touch, with why it counts as one: what the pull request lists. */
export function touchedTestFiles(files: readonly EditedFile[]): { path: string; why: string }[] {
  return files.flatMap((file) => {
    const syntax = testSyntaxFor(file.path, file.before ?? file.after);
    if (!syntax) return [];
    const part = (text: string | null) => (text === null ? null : testPart(file.path, syntax, text));
    if (part(file.before) === part(file.after)) return [];
    const what = file.before === null ? 'added' : 'changed';
    return [{ path: file.path, why: `a ${syntax.name} test file, ${what}` }];
  });
}
