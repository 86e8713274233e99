import { createTwoFilesPatch } from 'diff';

/** A git-style unified diff of one file; null stands for "no such file". */
export function unifiedDiff(path: string, before: string | null, after: string | null): string {
  if (before === after) return '';
  const patch = createTwoFilesPatch(
    before === null ? '/dev/null' : `a/${path}`,
    after === null ? '/dev/null' : `b/${path}`,
    before ?? '',
    after ?? '',
    undefined,
    undefined,
    { context: 3 },
  );
  // The diff package starts with an "Index:"-less separator line; git's form starts at "---".
  const body = patch.slice(patch.indexOf('---'));
  return `diff --git a/${path} b/${path}\n${body}`;
}
