/**
 * Which lines of a Makefile decide what the tests run: the rules (target line and recipe) of the targets
 * the command names (`make test`, `make check lint`) and of test-like targets (`test`, `check`…). A fix
 * may well change the rest (a missing object file, a flag the build needs); a change inside those rules
 * changes the command that judges the fix.
 */
export function testRuleLines(makefile: string, command: string): Set<string> {
  const guarded = new Set(makeTargets(command));
  const kept = new Set<string>();
  let inGuardedRule = false;
  for (const raw of makefile.split(/\r?\n/)) {
    const rule = /^([^\s#:=][^:=]*?)\s*::?(?!=)/.exec(raw);
    if (rule)
      inGuardedRule = (rule[1] ?? '')
        .split(/\s+/)
        .some((target) => guarded.has(target) || TEST_TARGET.test(target));
    else if (!raw.startsWith('\t') && raw.trim() !== '') inGuardedRule = false;
    if (inGuardedRule && raw.trim() !== '') kept.add(raw.trim());
  }
  return kept;
}

const TEST_TARGET = /^(tests?|check|unit|integration|e2e)([-_.:].*)?$/i;

/** The targets a command asks make for: the words after `make` that are neither options nor assignments. */
function makeTargets(command: string): string[] {
  const targets: string[] = [];
  for (const invocation of command.split(/[;&|()]+/)) {
    const words = invocation.trim().split(/\s+/);
    const at = words.findIndex((word) => /^(g?make)$/.test(word.replace(/^.*\//, '')));
    if (at < 0) continue;
    targets.push(...words.slice(at + 1).filter((word) => !word.startsWith('-') && !word.includes('=')));
  }
  return targets;
}
