import type { LineClass } from './line-kinds.js';
import { codeFrameWeight, frameOrigin, type LineShape } from './line-shape.js';

// Called as `charCodeAt.call(text, i)`: see "String methods" in docs/ci-logs.md for why.
const { startsWith } = String.prototype;

/** After an error line, this many more lines are read closely (stack frames, messages). */
const FOLLOW_LINES = 3;
const MAX_FOLLOWED_FRAMES = 16;
const MAX_FOLLOWED_FRAMES_NEWEST_LAST = 200;
const MAX_CODE_FRAME_LINES = 12;

/**
 * The lines after a line of evidence that are read closely although nothing
 * flagged them: a stack trace's frames, the source a compiler quotes under its
 * error, a verdict's message. Each is weighed by what it follows: a frame by
 * where it points and how deep in its trace it is, a quoted line by its frame.
 */
export class CloseReading {
  /** Lines up to this number are read closely, and rank at least `followWeight`. */
  private followUntil = 0;
  private followWeight = 0;
  private traceFrames = 0;
  private traceRepositoryFrames = 0;
  private lastFrame = 0;
  private codeFrameLines = 0;

  /** Whether line `number` is to be read closely. */
  wants(number: number): boolean {
    return number <= this.followUntil;
  }

  /** A new step: what the last one was followed by does not carry over. */
  reset(): void {
    this.followUntil = 0;
  }

  /** A line of evidence was kept: a code frame under it may be quoted in full again. */
  evidenceKept(): void {
    this.codeFrameLines = 0;
  }

  /** The weight of line `number`, classified as `found`, as a frame or by what it follows. */
  weigh(shape: LineShape, found: LineClass, number: number): number {
    const origin = found.weight < 50 ? frameOrigin(shape.core) : null;
    if (origin) return this.frame(origin, startsWith.call(shape.core, 'File "'), number);
    if (shape.core.length > 0 && number !== this.lastFrame + 1) {
      this.traceFrames = 0;
      this.traceRepositoryFrames = 0;
    }
    if (number > this.followUntil || found.kind === 'noise' || shape.core.length === 0) return found.weight;
    // A compiler's quote of the source, under its error: read on while the gutter goes on.
    const quoted = codeFrameWeight(shape.core);
    if (quoted > 0 && this.codeFrameLines++ < MAX_CODE_FRAME_LINES) {
      this.followUntil = Math.max(this.followUntil, number + 2);
      return Math.max(found.weight, quoted);
    }
    return Math.max(found.weight, this.followWeight);
  }

  /** Follow the `lines` after line `number` at `weight`, unless something closer or heavier is followed. */
  follow(number: number, lines: number, weight: number): void {
    if (number + lines > this.followUntil || weight > this.followWeight) {
      this.followUntil = number + lines;
      this.followWeight = weight;
    }
  }

  private frame(origin: 'repository' | 'library', newestLast: boolean, number: number): number {
    const weight = this.frameWeight(origin, newestLast);
    this.lastFrame = number;
    // Deep frames of a long trace are runtime plumbing: stop reading closely after a few,
    // unless the trace ends with the newest frame, next to the exception.
    if (this.traceFrames <= (newestLast ? MAX_FOLLOWED_FRAMES_NEWEST_LAST : MAX_FOLLOWED_FRAMES)) {
      this.followUntil = Math.max(this.followUntil, number + FOLLOW_LINES);
      // The source line a Python frame quotes next ranks with its frame.
      this.followWeight = weight * 0.8;
    }
    return weight;
  }

  /**
   * Most runtimes print the newest frame first, so a trace's first repository frames
   * matter most. Python prints it last, right above the exception: there every
   * repository frame is kept in reach, the later ones ranked higher.
   */
  private frameWeight(origin: 'repository' | 'library', newestLast: boolean): number {
    this.traceFrames++;
    if (origin === 'repository') {
      this.traceRepositoryFrames++;
      if (newestLast) return Math.min(40, 28 + this.traceRepositoryFrames);
      return this.traceRepositoryFrames <= 4 ? 40 : 10;
    }
    return this.traceFrames <= 2 && !newestLast ? 15 : 2;
  }
}
