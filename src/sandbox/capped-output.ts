/**
 * Keeps the head and the tail of a byte stream within a fixed budget and
 * remembers how much was dropped between them. The middle of a long log is
 * the part least likely to explain a failure, and memory stays bounded
 * however much a command prints.
 */
export class CappedOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private omitted = 0;

  constructor(limitBytes: number) {
    const limit = Math.max(0, Math.floor(limitBytes));
    this.headLimit = Math.ceil(limit / 2);
    this.tailLimit = limit - this.headLimit;
  }

  get truncated(): boolean {
    return this.omitted > 0;
  }

  get omittedBytes(): number {
    return this.omitted;
  }

  push(chunk: Buffer): void {
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(this.headLimit - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    this.trimTail();
  }

  private trimTail(): void {
    let excess = this.tailBytes - this.tailLimit;
    while (excess > 0 && this.tail.length > 0) {
      const first = this.tail[0]!;
      if (first.length <= excess) {
        this.tail.shift();
        excess -= first.length;
        this.tailBytes -= first.length;
        this.omitted += first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
        this.omitted += excess;
        excess = 0;
      }
    }
  }

  /** Decodes as UTF-8; invalid bytes become U+FFFD instead of failing. */
  toString(): string {
    if (!this.truncated) return decode(Buffer.concat([...this.head, ...this.tail]));
    // Both cuts move to a line break, so no credential is cut in half: a half is too short for the redactor to know.
    const head = toLineEnd(Buffer.concat(this.head));
    const tail = fromLineStart(skipContinuationBytes(Buffer.concat(this.tail)));
    const omitted = this.omitted + (this.headBytes - head.length) + (this.tailBytes - tail.length);
    return `${decode(head)}${omissionMarker(omitted)}${decode(tail)}`;
  }
}

export function omissionMarker(bytes: number): string {
  return `\n[... selfdebug: ${bytes} bytes omitted ...]\n`;
}

/** How far a cut may move back to a line break; a longer line is cut where it is. */
const LINE_SEARCH = 4096;

function toLineEnd(bytes: Buffer): Buffer {
  const end = bytes.lastIndexOf(0x0a);
  return end >= 0 && bytes.length - end <= LINE_SEARCH ? bytes.subarray(0, end + 1) : bytes;
}

function fromLineStart(bytes: Buffer): Buffer {
  const start = bytes.indexOf(0x0a);
  return start >= 0 && start < LINE_SEARCH ? bytes.subarray(start + 1) : bytes;
}

function decode(bytes: Buffer): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

/** A tail cut mid-character would start with stray continuation bytes; drop at most three. */
function skipContinuationBytes(bytes: Buffer): Buffer {
  let start = 0;
  while (start < 3 && start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
  return bytes.subarray(start);
}
