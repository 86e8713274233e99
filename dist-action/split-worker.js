import { createRequire as __selfdebugCreateRequire } from 'node:module'; const require = __selfdebugCreateRequire(import.meta.url);

// src/ci-logs/split-worker.ts
import { parentPort } from "node:worker_threads";

// src/ci-logs/keywords.ts
var WORDS = ["rror", "ERR", "Fail", "fail", "FAIL", "xcept", "ot found", "_test\\.go:"];
var KEYWORDS = new RegExp(WORDS.join("|"), "g");
var OPENERS = [
  "Traceback",
  "fatal",
  "Fatal",
  "FATAL",
  "panic",
  "thread '",
  "not ok",
  "Killed",
  "Segmentation fault",
  "Post job cleanup",
  "Cleaning up",
  "* What went wrong",
  // The structure other CI systems write (see ci-format.ts): read closely wherever they appear.
  "section_start:",
  "section_end:",
  "travis_fold:",
  "travis_time:",
  "$ ",
  "[Pipeline] ",
  "Exited with code",
  "CircleCI received",
  "#!/bin/bash -eo",
  "#!/bin/sh -eo",
  'The command "',
  "Too long with no output",
  "Done. Your build exited",
  "Finished: ",
  "Job succeeded",
  "^^^ +++",
  "~~~ ",
  "--- ",
  "+++ ",
  "Terminated",
  "Aborted",
  "Timeout",
  'Stage "',
  "The job ",
  // The shell's own reports (`bash: line 3:  2412 Killed  python train.py`, signals, missing commands).
  "Running with gitlab-runner",
  "Running after_script",
  'Executing "',
  "bash: ",
  "sh: "
];
var OPENERS_BY_CHARACTER = [];
for (const word of OPENERS) {
  const code = word.charCodeAt(0);
  const words = OPENERS_BY_CHARACTER[code] ?? [];
  words.push(word);
  OPENERS_BY_CHARACTER[code] = words;
}
var SPACE = 32;
var TAB = 9;
var ESCAPE = 27;
function opensWithMarker(text, start, end) {
  let index = start;
  if (end - index > 20 && text.charCodeAt(index + 4) === 45 && text.charCodeAt(index + 10) === 84) {
    if (text.charCodeAt(index + 27) === 90 && text.charCodeAt(index + 28) === SPACE) index += 29;
    else {
      const space = text.indexOf(" ", index + 19);
      if (space !== -1 && space < end && space - index <= 40) index = space + 1;
    }
  }
  for (; ; ) {
    while (index < end && (text.charCodeAt(index) === SPACE || text.charCodeAt(index) === TAB)) index++;
    if (index >= end || text.charCodeAt(index) !== ESCAPE) break;
    const kind = text.charCodeAt(index + 1);
    if (kind === 91) {
      index += 2;
      while (index < end && (text.charCodeAt(index) < 64 || text.charCodeAt(index) > 126)) index++;
      index++;
    } else if (kind === 95) {
      const bell = text.indexOf("\x07", index);
      if (bell === -1 || bell >= end) break;
      index = bell + 1;
    } else break;
  }
  if (index >= end) return false;
  index = afterClock(text, index, end);
  const code = text.charCodeAt(index);
  const next = text.charCodeAt(index + 1);
  if (code === 58) return next === code;
  if (code === 35 && next === code) return text.charCodeAt(index + 2) === 91;
  if (code === 69 && (next === SPACE || next === 58 && text.charCodeAt(index + 2) === SPACE)) {
    return true;
  }
  if (code === 226) {
    const third = text.charCodeAt(index + 2);
    return next === 151 && third === 143 || next === 156 && third >= 149 && third <= 152 || next === 157 && third === 140;
  }
  if (code === 195) return next === 151;
  const words = OPENERS_BY_CHARACTER[code];
  if (words !== void 0) {
    for (const word of words) if (text.startsWith(word, index)) return true;
  }
  return opensWithPlace(text, index, end);
}
function isDigit(code) {
  return code >= 48 && code <= 57;
}
function afterClock(text, start, end) {
  let index = start;
  const first = text.charCodeAt(index);
  if (first === 91 && isDigit(text.charCodeAt(index + 1))) {
    const close = text.indexOf("]", index);
    if (close === -1 || close >= end || close - index > 40) return start;
    index = close + 1;
    if (text.charCodeAt(index) === SPACE) index++;
    return index;
  }
  if (!isDigit(first) || !isDigit(text.charCodeAt(index + 1))) return start;
  const third = text.charCodeAt(index + 2);
  if (third === 58 && text.charCodeAt(index + 5) === 58) {
    const space = text.indexOf(" ", index);
    return space === -1 || space >= end || space - index > 16 ? start : space + 1;
  }
  if (third === 79 || third === 69) {
    index += 3;
    if (text.charCodeAt(index) === 43) index++;
    return text.charCodeAt(index) === SPACE ? index + 1 : start;
  }
  return start;
}
var PATH_CHARACTERS = new Uint8Array(256);
for (const [first, last] of [
  ["a", "z"],
  ["A", "Z"],
  ["0", "9"],
  ["/", "/"],
  ["\\", "\\"],
  ["_", "_"],
  ["-", "-"]
]) {
  for (let code = first.charCodeAt(0); code <= last.charCodeAt(0); code++) PATH_CHARACTERS[code] = 1;
}
var MAX_PATH = 200;
function opensWithPlace(text, start, end) {
  const opening = text.charCodeAt(start);
  if (PATH_CHARACTERS[opening] !== 1 && opening !== 46) return false;
  const colon = text.indexOf(":", start);
  if (colon === -1 || colon >= end || colon - start > MAX_PATH || colon === start) return false;
  const digit = text.charCodeAt(colon + 1);
  if (digit < 48 || digit > 57) return false;
  let dot = false;
  for (let index = start; index < colon; index++) {
    const code = text.charCodeAt(index);
    if (code === 46) dot = true;
    else if (PATH_CHARACTERS[code] !== 1) return false;
  }
  return dot;
}

// src/ci-logs/line-batches.ts
var FIELDS = 4;
var INITIAL_LINES = 16 * 1024;
var BatchRecorder = class {
  texts = [];
  ranges = new Int32Array(INITIAL_LINES * FIELDS);
  numbers = new Float64Array(INITIAL_LINES);
  length = 0;
  line(text, start, end, number, flagged) {
    const texts = this.texts;
    if (texts.length === 0 || texts[texts.length - 1] !== text) texts.push(text);
    if (this.length === this.numbers.length) this.grow();
    const at = this.length * FIELDS;
    this.ranges[at] = texts.length - 1;
    this.ranges[at + 1] = start;
    this.ranges[at + 2] = end;
    this.ranges[at + 3] = flagged ? 1 : 0;
    this.numbers[this.length++] = number;
  }
  /** The lines recorded since the last take, as a batch whose arrays may be transferred. */
  take() {
    const batch = { texts: this.texts, ranges: this.ranges, numbers: this.numbers, length: this.length };
    this.texts = [];
    this.ranges = new Int32Array(this.ranges.length);
    this.numbers = new Float64Array(this.numbers.length);
    this.length = 0;
    return batch;
  }
  grow() {
    const ranges = new Int32Array(this.ranges.length * 2);
    ranges.set(this.ranges);
    const numbers = new Float64Array(this.numbers.length * 2);
    numbers.set(this.numbers);
    this.ranges = ranges;
    this.numbers = numbers;
  }
};

// src/ci-logs/log-lines.ts
var MAX_LINE_BYTES = 16 * 1024;
var WINDOW_BYTES = 64 * 1024;
var LF = 10;
var CR = 13;
var LineSplitter = class {
  constructor(handler, flags) {
    this.handler = handler;
    const { keywords } = flags;
    this.keywords = new RegExp(
      keywords.source,
      keywords.flags.includes("g") ? keywords.flags : `${keywords.flags}g`
    );
    this.opens = flags.opens;
  }
  handler;
  keywords;
  opens;
  carry = [];
  carryBytes = 0;
  /** The previous piece ended in `\r`: a `\n` opening the next one completes a `\r\n`. */
  afterCarriageReturn = false;
  /** The last non-empty segment of a redraw run still open, with its number and flag. */
  pending = null;
  count = 0;
  bytes = 0;
  /** Lines numbered so far; after `end()`, the number of lines in the input. */
  get lines() {
    return this.count;
  }
  get bytesRead() {
    return this.bytes;
  }
  /** Its state between chunks, for a splitter that goes on from here (see `resume`). */
  handOff() {
    return {
      carry: Buffer.concat(this.carry),
      afterCarriageReturn: this.afterCarriageReturn,
      pending: this.pending,
      count: this.count,
      bytes: this.bytes
    };
  }
  resume(state) {
    this.carry = state.carry.length > 0 ? [Buffer.from(state.carry)] : [];
    this.carryBytes = state.carry.length;
    this.afterCarriageReturn = state.afterCarriageReturn;
    this.pending = state.pending;
    this.count = state.count;
    this.bytes = state.bytes;
  }
  push(chunk) {
    const whole = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.bytes += whole.length;
    for (let offset = 0; offset < whole.length; offset += WINDOW_BYTES) {
      this.pushWindow(whole.subarray(offset, Math.min(whole.length, offset + WINDOW_BYTES)));
    }
  }
  pushWindow(buffer) {
    let start = 0;
    if (this.carryBytes > 0) {
      const first = firstBreak(buffer);
      if (first === -1) {
        this.keepCarry(buffer);
        return;
      }
      this.keepCarry(buffer.subarray(0, first + 1));
      this.scan(Buffer.concat(this.carry).toString("latin1"), false);
      this.carry = [];
      this.carryBytes = 0;
      start = first + 1;
    }
    const cut = lastBreak(buffer, start);
    if (cut >= start) this.scan(buffer.toString("latin1", start, cut + 1), false);
    if (cut + 1 < buffer.length) this.keepCarry(buffer.subarray(Math.max(start, cut + 1)));
  }
  end() {
    const rest = this.carryBytes > 0 ? Buffer.concat(this.carry).toString("latin1") : "";
    this.carry = [];
    this.carryBytes = 0;
    this.scan(rest, true);
  }
  keepCarry(part) {
    const room = MAX_LINE_BYTES - this.carryBytes;
    if (room <= 0) return;
    const kept = Buffer.from(part.subarray(0, room));
    this.carry.push(kept);
    this.carryBytes += kept.length;
  }
  /**
   * Splits one piece that ends right after a line break (or at the end of the
   * input, when `last`). Redraw runs may stay open across pieces.
   */
  scan(text, last) {
    const length = text.length;
    let position = 0;
    if (this.afterCarriageReturn && length > 0 && text.charCodeAt(0) === LF) {
      position = 1;
      this.closeRun();
    }
    this.afterCarriageReturn = false;
    let nextReturn = text.indexOf("\r", position);
    let nextHit = -2;
    while (position < length) {
      let lineFeed = text.indexOf("\n", position);
      if (lineFeed === -1) lineFeed = length;
      if (nextHit !== -1 && nextHit < position) {
        this.keywords.lastIndex = position;
        nextHit = this.keywords.test(text) ? this.keywords.lastIndex - 1 : -1;
      }
      if (nextReturn === -1 || nextReturn >= lineFeed) {
        this.count++;
        const flagged2 = nextHit !== -1 && nextHit < lineFeed || this.opens(text, position, lineFeed);
        this.endRun(text, position, lineFeed, this.count, flagged2);
        position = lineFeed + 1;
        continue;
      }
      const end = nextReturn;
      this.count++;
      const flagged = nextHit !== -1 && nextHit < end || this.opens(text, position, end);
      if (end + 1 < length && text.charCodeAt(end + 1) === LF) {
        this.endRun(text, position, end, this.count, flagged);
        position = end + 2;
      } else {
        if (end > position) {
          if (isStructureSegment(text, position, end))
            this.handler.line(text, position, end, this.count, true);
          else this.pending = { raw: text.slice(position, end), number: this.count, flagged };
        }
        position = end + 1;
        if (position === length && !last) this.afterCarriageReturn = true;
      }
      nextReturn = text.indexOf("\r", position);
    }
    if (last) this.closeRun();
  }
  /** A segment ended by `\n` or `\r\n`: deliver it, or the run's last non-empty segment. */
  endRun(text, start, end, number, flagged) {
    const pending = this.pending;
    this.pending = null;
    if (end === start && pending)
      this.handler.line(pending.raw, 0, pending.raw.length, pending.number, pending.flagged);
    else this.handler.line(text, start, end, number, flagged);
  }
  closeRun() {
    const pending = this.pending;
    this.pending = null;
    if (pending) this.handler.line(pending.raw, 0, pending.raw.length, pending.number, pending.flagged);
  }
};
function isStructureSegment(text, start, end) {
  let index = start;
  while (text.charCodeAt(index) === 27 && text.charCodeAt(index + 1) === 91) {
    index += 2;
    while (index < end && (text.charCodeAt(index) < 64 || text.charCodeAt(index) > 126)) index++;
    index++;
  }
  return text.startsWith("section_", index) || text.startsWith("travis_", index);
}
function firstBreak(buffer) {
  const lineFeed = buffer.indexOf(LF);
  const carriageReturn = buffer.indexOf(CR);
  if (lineFeed === -1) return carriageReturn;
  if (carriageReturn === -1) return lineFeed;
  return Math.min(lineFeed, carriageReturn);
}
function lastBreak(buffer, start) {
  let cut = buffer.lastIndexOf(LF);
  if (cut < start) cut = -1;
  for (let index = buffer.indexOf(CR, Math.max(start, cut + 1)); index !== -1; index = buffer.indexOf(CR, index + 1)) {
    cut = index;
  }
  return cut;
}

// src/ci-logs/split-worker.ts
var port = parentPort;
if (port === null) throw new Error("split-worker.ts runs as a worker thread only (see threaded-lines.ts).");
var recorder = new BatchRecorder();
var splitter = new LineSplitter(recorder, { keywords: KEYWORDS, opens: opensWithMarker });
port.on("message", (request) => {
  if (request.kind === "resume") {
    splitter.resume(request.state);
    return;
  }
  if (request.kind === "chunk") splitter.push(request.bytes);
  else splitter.end();
  const batch = recorder.take();
  const reply = { batch, total: request.kind === "end" ? splitter.lines : null };
  port.postMessage(reply, [batch.ranges.buffer, batch.numbers.buffer]);
});
