/**
 * The lines an excerpt may keep, each with a weight, in bounded memory.
 *
 * A line's score is its weight times its step's factor: a step that ended
 * without an error is worth little once it is over, and the runner's setup
 * and cleanup less. Repeats of one message (the same exception for thirty
 * tests) lose weight with each repeat, so distinct lines win the budget.
 * When the store holds twice its capacity it keeps the best half: pruning is
 * rare and the lines it drops could not have won a place anyway.
 */
export interface Candidate {
  number: number;
  text: string;
  weight: number;
  kind: string;
  step: number;
  /** Read after a failing test's verdict (its message, trace), or inside a runner's failure list. */
  attached: boolean;
}

export const PASSED_STEP_FACTOR = 0.15;
export const RUNNER_STEP_FACTOR = 0.05;
const MAX_REPEAT_KEYS = 20_000;

export class CandidateStore {
  private readonly lines = new Map<number, Candidate>();
  private readonly repeats = new Map<string, number>();
  /** Factors of steps that have ended; open steps count as 1. */
  private readonly closedFactors = new Map<number, number>();
  /**
   * A weight a new line of the open step must reach to have a chance: below it, at
   * least `capacity` lines are sure to end above it, whatever the open step's fate
   * (lines of the same step scale with it; lines of failed steps keep their score).
   */
  private floor = 0;
  private openStep = 0;
  /** How many sure lines reach the floor, and how many of them each step holds. */
  private sureAtFloor = 0;
  private atFloorByStep = new Map<number, number>();

  constructor(private readonly capacity: number) {}

  /** Whether a line of this weight in the open step could still earn a place. */
  admits(weight: number): boolean {
    return weight >= this.floor;
  }

  add(line: Candidate): void {
    const { number, text, kind, step } = line;
    const existing = this.lines.get(number);
    if (!existing && line.weight < this.floor) return;
    const adjusted = line.weight * this.repeatFactor(text, kind, existing !== undefined);
    if (existing) {
      if (adjusted > existing.weight) {
        existing.weight = adjusted;
        existing.kind = kind;
      }
      existing.attached ||= line.attached;
      return;
    }
    this.lines.set(number, { ...line, weight: adjusted });
    if (this.floor > 0 && adjusted >= this.floor) {
      this.sureAtFloor++;
      this.atFloorByStep.set(step, (this.atFloorByStep.get(step) ?? 0) + 1);
    }
    if (this.lines.size > 2 * this.capacity) this.prune();
  }

  closeStep(step: number, failed: boolean): void {
    this.closedFactors.set(step, failed ? 1 : PASSED_STEP_FACTOR);
    this.openStep = step + 1;
    if (failed) return;
    // The closed step's lines are no longer sure of their place; the floor holds while enough others are.
    this.sureAtFloor -= this.atFloorByStep.get(step) ?? 0;
    this.atFloorByStep.delete(step);
    if (this.sureAtFloor < this.capacity) this.floor = 0;
  }

  /** A kept line turns out to belong to another step (a job's verdict names the step it blames). */
  blame(number: number, step: number, weight: number): void {
    const existing = this.lines.get(number);
    if (!existing) return;
    existing.step = step;
    existing.weight = Math.max(existing.weight, weight);
    existing.attached = true;
  }

  /** A step that ended passing was blamed later (a job's verdict after the runner's cleanup). */
  reopen(step: number): void {
    this.closedFactors.set(step, 1);
  }

  all(): IterableIterator<Candidate> {
    return this.lines.values();
  }

  get size(): number {
    return this.lines.size;
  }

  private repeatFactor(text: string, kind: string, again: boolean): number {
    if (again || kind === 'exit') return 1;
    // Test names differ in their numbers (parameters); other messages repeat with new numbers.
    const key = (kind === 'test' ? text : text.replace(/\d+/g, '0')).slice(0, 200);
    const count = (this.repeats.get(key) ?? 0) + 1;
    if (this.repeats.size >= MAX_REPEAT_KEYS) this.repeats.clear();
    this.repeats.set(key, count);
    return count === 1 ? 1 : count === 2 ? 0.6 : 0.3;
  }

  private prune(): void {
    const ranked = [...this.lines.values()].sort(
      (left, right) => this.provisional(right) - this.provisional(left) || left.number - right.number,
    );
    for (const dropped of ranked.slice(this.capacity)) this.lines.delete(dropped.number);
    const sure = ranked
      .slice(0, this.capacity)
      .filter(
        (candidate) => candidate.step === this.openStep || this.closedFactors.get(candidate.step) === 1,
      );
    this.floor = sure.length >= this.capacity ? sure[this.capacity - 1]!.weight : 0;
    this.atFloorByStep = new Map();
    this.sureAtFloor = 0;
    if (this.floor === 0) return;
    for (const candidate of sure) {
      if (candidate.weight < this.floor) continue;
      this.sureAtFloor++;
      this.atFloorByStep.set(candidate.step, (this.atFloorByStep.get(candidate.step) ?? 0) + 1);
    }
  }

  private provisional(candidate: Candidate): number {
    return candidate.weight * (this.closedFactors.get(candidate.step) ?? 1);
  }
}
