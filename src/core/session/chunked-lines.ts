import { read } from "node:fs";
import { MAX_LINE_BYTES } from "./line-parser";

/** How much of a file is read at once: scanning one chunk stays well under 100 ms. */
const CHUNK_BYTES = 8 * 1024 * 1024;
const FIRST_CHUNK_BYTES = 1024 * 1024;

/** A buffer with a 4-byte-aligned Int32Array view of the same memory (for word-wise byte tests). */
interface Block {
  buf: Buffer;
  words: Int32Array;
}

function block(size: number): Block {
  const memory = new ArrayBuffer(size);
  return { buf: Buffer.from(memory), words: new Int32Array(memory, 0, size >> 2) };
}

function readAt(fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<number> {
  if (length <= 0) return Promise.resolve(0);
  return new Promise((resolve, reject) => read(fd, buf, offset, length, position, (err, n) => (err ? reject(err) : resolve(n))));
}

/**
 * Visits one complete line: bytes [s, e) of `buf` (newline excluded), its 1-based number and
 * its offset in the file. Returning true stops the reading.
 */
export type LineVisitor = (buf: Buffer, words: Int32Array, s: number, e: number, lineNo: number, fileOffset: number) => boolean | void;

/**
 * Visits a line too long to ever be a string (over MAX_LINE_BYTES): never held in memory, only its
 * first bytes, its number, offset and length. Returning true stops the reading.
 */
export type LongLineVisitor = (head: Buffer, lineNo: number, fileOffset: number, length: number) => boolean | void;

/** Where the next newline is at or after `from` (before `to`), read through a scratch buffer; -1 if none. */
async function findNewline(fd: number, from: number, to: number, scratch: Buffer): Promise<number> {
  for (let at = from; at < to; ) {
    const n = await readAt(fd, scratch, 0, Math.min(scratch.length, to - at), at);
    if (n === 0) return -1;
    const nl = scratch.indexOf(0x0a);
    if (nl >= 0 && nl < n) return at + nl;
    at += n;
  }
  return -1;
}

export interface LinesRead {
  /** Bytes from `from` that were complete lines (up to and including the last newline). */
  consumedBytes: number;
  /** Complete lines visited (blank ones included). */
  consumedLines: number;
  /** The bytes after the last newline (up to `to`): a torn line, or one still being written. */
  fragment: Buffer;
  /** The visitor asked to stop. */
  stopped: boolean;
}

/**
 * Reads bytes [from, to) of an open file in large chunks and hands over every complete line. The
 * next chunk is read (by libuv's thread pool) while the current one is visited, and the event
 * loop runs between chunks, so that a gigabyte file neither blocks the process nor lives in
 * memory at once: two chunk buffers are all it holds (more only for a line longer than a chunk).
 */
export async function readLines(fd: number, from: number, to: number, firstLine: number, visit: LineVisitor, visitLong?: LongLineVisitor, between?: () => Promise<void> | undefined): Promise<LinesRead> {
  // The first chunk is small: it runs while the scanning code is still cold (not yet optimised), and
  // 8 MB of it was a task of about 140 ms.
  let cur = block(Math.min(FIRST_CHUNK_BYTES, Math.max(4096, to - from)));
  let spare: Block | undefined;
  let pos = from;
  let base = from;
  let lineNo = firstLine;
  let filled = 0;
  const take = async (into: Block, at: number): Promise<number> => {
    const n = await readAt(fd, into.buf, at, Math.min(into.buf.length - at, to - pos), pos);
    pos += n;
    return n;
  };
  filled = await take(cur, 0);
  for (;;) {
    const lastNl = filled > 0 ? cur.buf.lastIndexOf(0x0a, filled - 1) : -1;
    if (lastNl < 0) {
      // No complete line in the buffer: the end of the file, or a line longer than the buffer.
      if (pos >= to || filled < cur.buf.length) {
        const more = pos < to ? await take(cur, filled) : 0;
        if (more > 0) {
          filled += more;
          continue;
        }
        break;
      }
      // A line longer than the buffer: find its end first (without holding it), so that a line
      // past the string limit is never read into memory and a long one is read once, at its size.
      const nl = await findNewline(fd, pos, to, (spare ??= block(CHUNK_BYTES)).buf);
      const length = (nl < 0 ? to : nl) - base;
      if (length > MAX_LINE_BYTES) {
        const head = Buffer.from(cur.buf.subarray(0, Math.min(filled, 256)));
        // Unterminated at the end: reported, but not consumed (it may still be being written).
        if (nl < 0) {
          visitLong?.(head, lineNo, base, length);
          return { consumedBytes: base - from, consumedLines: lineNo - firstLine, fragment: Buffer.alloc(0), stopped: false };
        }
        if (visitLong?.(head, lineNo, base, length) === true) return { consumedBytes: base - from, consumedLines: lineNo - firstLine, fragment: Buffer.alloc(0), stopped: true };
        lineNo++;
        base = nl + 1;
        pos = base;
        filled = await take(cur, 0);
        continue;
      }
      const bigger = block(Math.min(to - base, length + 1 + CHUNK_BYTES));
      cur.buf.copy(bigger.buf, 0, 0, filled);
      cur = bigger;
      spare = undefined;
      filled += await take(cur, filled);
      continue;
    }
    // The bytes after the last newline start the next chunk, which is read while this one is visited.
    const carry = filled - (lastNl + 1);
    const want = pos < to ? Math.max(Math.min(CHUNK_BYTES, to - pos + carry), carry * 2) : carry + 8;
    const next = spare && spare.buf.length >= want ? spare : block(Math.max(want, 64));
    cur.buf.copy(next.buf, 0, lastNl + 1, filled);
    const pending = pos < to ? take(next, carry) : Promise.resolve(0);
    let s = 0;
    let stopped = false;
    while (s <= lastNl) {
      const nl = cur.buf.indexOf(0x0a, s);
      if (visit(cur.buf, cur.words, s, nl, lineNo, base + s) === true) {
        stopped = true;
        break;
      }
      lineNo++;
      s = nl + 1;
    }
    const n = await pending;
    // Between two chunks, a caller may hold the read (a background preparation gives way to an open).
    const held = stopped ? undefined : between?.();
    if (held) await held;
    if (stopped) return { consumedBytes: base + s - from, consumedLines: lineNo - firstLine, fragment: Buffer.alloc(0), stopped: true };
    base += lastNl + 1;
    spare = cur;
    cur = next;
    filled = carry + n;
  }
  return { consumedBytes: base - from, consumedLines: lineNo - firstLine, fragment: Buffer.from(cur.buf.subarray(0, filled)), stopped: false };
}
