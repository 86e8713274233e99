/**
 * Patterns of wildcards (globs, Actions' filter patterns) matched in time linear in the text times
 * the pattern, whatever the pattern. These patterns are the repository's own text (a workflow's
 * `branches:`, a config's globs), and as regular expressions a few `**` or `+` backtrack for ever on
 * a name that does not fit (`**a` twelve times against 36 `a`s: 21 s). Here the pattern is a small
 * automaton whose reachable states are followed side by side, one character at a time.
 *
 * A pattern is a sequence of parts, each accepting one character at a time:
 * `once`, `optional` (`?`), `some` (`+`), `any` (`*`), or `folders`: nothing, or characters then a `/`
 * (`(.+/)?`, Actions' `**\/`).
 */
export type CharacterTest = (code: number) => boolean;

export type WildcardPart =
  | { accepts: CharacterTest; repeat: 'once' | 'optional' | 'some' | 'any' }
  | { folders: true };

/** What a regular expression's `.` takes: any character but a line break. */
export const ANY_BUT_LINE_BREAK: CharacterTest = (code) =>
  code !== 10 && code !== 13 && code !== 0x2028 && code !== 0x2029;
export const ANY_BUT_SLASH: CharacterTest = (code) => code !== 47;
export const exactly =
  (expected: number): CharacterTest =>
  (code) =>
    code === expected;

interface State {
  /** Consuming a character this accepts leads to `to`. */
  steps: { accepts: CharacterTest; to: number }[];
  /** States reached without consuming a character. */
  skips: number[];
}

/** A compiled pattern: `test` whether it matches a whole text. */
export interface WildcardMatcher {
  test(text: string): boolean;
}

export function wildcardMatcher(parts: readonly WildcardPart[]): WildcardMatcher {
  const states: State[] = [{ steps: [], skips: [] }];
  const add = (): number => states.push({ steps: [], skips: [] }) - 1;
  let at = 0;
  for (const part of parts) {
    const next = add();
    if ('folders' in part) {
      // Nothing, or one or more characters and then a `/` (which is itself one of those characters).
      const inside = add();
      states[at]!.skips.push(next);
      states[at]!.steps.push({ accepts: ANY_BUT_LINE_BREAK, to: inside });
      states[inside]!.steps.push(
        { accepts: ANY_BUT_LINE_BREAK, to: inside },
        { accepts: exactly(47), to: next },
      );
    } else if (part.repeat === 'once' || part.repeat === 'optional') {
      states[at]!.steps.push({ accepts: part.accepts, to: next });
      if (part.repeat === 'optional') states[at]!.skips.push(next);
    } else {
      // A loop of its own, so that two repeated parts in a row stay in their order.
      const loop = add();
      if (part.repeat === 'some') states[at]!.steps.push({ accepts: part.accepts, to: loop });
      else states[at]!.skips.push(loop);
      states[loop]!.steps.push({ accepts: part.accepts, to: loop });
      states[loop]!.skips.push(next);
    }
    at = next;
  }
  const accepting = at;
  return {
    test(text: string): boolean {
      let current = new Uint8Array(states.length);
      let following = new Uint8Array(states.length);
      reach(states, current, 0);
      for (let index = 0; index < text.length; index++) {
        const code = text.charCodeAt(index);
        following.fill(0);
        let any = false;
        for (let state = 0; state < states.length; state++) {
          if (current[state] !== 1) continue;
          for (const step of states[state]!.steps) {
            if (step.accepts(code)) {
              reach(states, following, step.to);
              any = true;
            }
          }
        }
        if (!any) return false;
        [current, following] = [following, current];
      }
      return current[accepting] === 1;
    },
  };
}

/** Marks `state` and every state its skips reach (by a list, not recursion: a pattern may be long). */
function reach(states: State[], marks: Uint8Array, state: number): void {
  const pending = [state];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (marks[next] === 1) continue;
    marks[next] = 1;
    pending.push(...states[next]!.skips);
  }
}
