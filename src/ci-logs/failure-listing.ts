import { type ItemMarker, itemMarker, type LineClass } from './line-kinds.js';
import type { LineShape } from './line-shape.js';

// Called as `charCodeAt.call(text, i)`: see "String methods" in docs/ci-logs.md for why.
const { endsWith } = String.prototype;

/**
 * The list of failures a runner prints at the end (`Failures:`, `3 failing`,
 * `=== FAILURES ===`, `Summary of all failing tests`, `Failures (38):`).
 * Whatever the runner, the list has one shape: entries at one indentation,
 * each marked the same way as the first (`1)`, `●`, `___ name ___`, or
 * nothing), with their details indented deeper. Entries name the failing
 * tests, so they rank with test verdicts; the first lines under an entry
 * carry its message, or the rest of a title split over lines (mocha).
 */
const MAX_LISTING_LINES = 5000;
const BANNER_SECTION = /^=+ .* =+$/;

export class FailureListing {
  private active = false;
  private tag = '';
  private headerIndent = 0;
  private itemIndent = -1;
  private marker: ItemMarker = 'plain';
  private lines = 0;
  private sinceItem = 0;
  private titleOpen = false;

  get open(): boolean {
    return this.active;
  }

  start(header: LineShape): void {
    this.active = true;
    this.tag = header.tag;
    this.headerIndent = header.indent;
    this.itemIndent = -1;
    this.lines = 0;
    this.sinceItem = 0;
    this.titleOpen = false;
  }

  close(): void {
    this.active = false;
  }

  /** The class of a line read while the listing is open: raised for entries and their first details. */
  read(shape: LineShape, found: LineClass): LineClass {
    this.lines++;
    if (this.lines > MAX_LISTING_LINES) {
      this.active = false;
      return found;
    }
    if (shape.core.length === 0) return found;
    if (shape.tag !== this.tag || shape.indent < this.headerIndent) {
      this.active = false;
      return found;
    }
    if (this.itemIndent === -1) {
      this.itemIndent = shape.indent;
      this.marker = itemMarker(shape.core);
    }
    if (shape.indent < this.itemIndent) {
      this.active = false;
      return found;
    }
    if (shape.indent === this.itemIndent) return this.readEntryLine(shape, found);
    return this.readDetail(shape, found);
  }

  /** A line at the entries' indentation: the next entry, the list's end, or neither. */
  private readEntryLine(shape: LineShape, found: LineClass): LineClass {
    if (found.kind === 'summary' || (BANNER_SECTION.test(shape.core) && this.marker !== 'plain')) {
      // The runner's closing count, or the next `=== section ===`.
      this.active = false;
      return found;
    }
    if (this.marker === 'plain' || itemMarker(shape.core) === this.marker) {
      this.sinceItem = 0;
      this.titleOpen = this.marker === 'numbered' && !endsWith.call(shape.core, ':');
      return found.weight >= 88 ? found : { kind: 'test', weight: 88 };
    }
    return found;
  }

  /** A line indented under an entry: the rest of its title, its message, or what follows. */
  private readDetail(shape: LineShape, found: LineClass): LineClass {
    this.sinceItem++;
    // Under `___ test ___` entries, indented text is the test's source quoted by the runner.
    if (this.marker === 'banner') return found.weight > 5 ? { kind: 'plain', weight: 5 } : found;
    if (this.titleOpen && this.sinceItem <= 3) {
      if (endsWith.call(shape.core, ':')) this.titleOpen = false;
      return found.weight >= 85 ? found : { kind: 'test', weight: 85 };
    }
    if (this.sinceItem <= 2) {
      const weight = 55 - 10 * this.sinceItem;
      return found.weight >= weight ? found : { kind: 'detail', weight };
    }
    return found;
  }
}
