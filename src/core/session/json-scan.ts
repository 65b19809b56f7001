/**
 * A byte-level reader for one line of a session file: it checks that the line is strict JSON
 * (the grammar `JSON.parse` accepts) without building anything, and notes where the few fields
 * the tree needs sit in the bytes: the top-level `type`, `id`, `parentId`, `timestamp`, and the
 * `role`, `content` and `stopReason` of a `message` object. Opening a session with it costs a walk over the bytes instead of
 * a full parse: message bodies are never decoded until someone asks for them.
 *
 * It never guesses. Whenever a line is not plainly readable (a control byte, an escaped key, a
 * watched key given twice, a value of an unexpected kind, or an outright syntax error), it
 * answers `false` and the caller parses the line with `JSON.parse`, which then decides exactly as
 * the reference does.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;

/** Which top-level value a watched key names. */
const W_NONE = 0;
const W_TYPE = 1;
const W_ID = 2;
const W_PARENT = 3;
const W_TIME = 4;
const W_MESSAGE = 5;
const W_ROLE = 6;
const W_CONTENT = 7;
const W_STOP = 8;
const WATCHED = 9;

/** How a watched value was written. */
export const VALUE_MISSING = 0;
export const VALUE_STRING = 1;
export const VALUE_NULL = 2;
export const VALUE_OBJECT = 3;
export const VALUE_OTHER = 4;
/** An array (only noted for `content`, with where it starts). */
export const VALUE_ARRAY = 5;

/**
 * Where the watched values of one line are: byte ranges of string contents (between the quotes)
 * and whether they hold escapes. One instance is reused for every line (no allocation per line).
 */
export class LineHead {
  kind = new Uint8Array(WATCHED);
  start = new Int32Array(WATCHED);
  end = new Int32Array(WATCHED);
  escaped = new Uint8Array(WATCHED);

  reset(): void {
    this.kind.fill(0);
    this.escaped.fill(0);
  }

  get typeKind(): number {
    return this.kind[W_TYPE]!;
  }
  get idKind(): number {
    return this.kind[W_ID]!;
  }
  get parentKind(): number {
    return this.kind[W_PARENT]!;
  }
  get timestampKind(): number {
    return this.kind[W_TIME]!;
  }
  get messageKind(): number {
    return this.kind[W_MESSAGE]!;
  }
  get roleKind(): number {
    return this.kind[W_ROLE]!;
  }
  /** The message's `content`: a string, an array (start = its `[`), other, or missing. */
  get contentKind(): number {
    return this.kind[W_CONTENT]!;
  }
  get stopReasonKind(): number {
    return this.kind[W_STOP]!;
  }
}

export const FIELD_TYPE = W_TYPE;
export const FIELD_ID = W_ID;
export const FIELD_PARENT = W_PARENT;
export const FIELD_TIMESTAMP = W_TIME;
export const FIELD_ROLE = W_ROLE;
export const FIELD_CONTENT = W_CONTENT;
export const FIELD_STOP_REASON = W_STOP;

/** The text of a watched string value (decoded exactly as JSON.parse would). */
export function fieldText(buf: Buffer, head: LineHead, field: number): string {
  const s = head.start[field]!;
  const e = head.end[field]!;
  if (head.escaped[field]) return JSON.parse(buf.toString("utf8", s - 1, e + 1)) as string;
  for (let i = s; i < e; i++) if (buf[i]! >= 0x80) return buf.toString("utf8", s, e);
  return buf.toString("latin1", s, e);
}

/**
 * Whether a watched string value is exactly `text`, compared in the bytes without decoding. Only
 * plain ASCII compares equal; anything else (escapes, other characters) answers false.
 */
export function fieldEquals(buf: Buffer, head: LineHead, field: number, text: string): boolean {
  const s = head.start[field]!;
  if (head.escaped[field] || head.end[field]! - s !== text.length) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80 || buf[s + i] !== c) return false;
  }
  return true;
}

/**
 * Whether bytes [s, e) hold a byte below 0x20 (a control character: JSON allows none inside
 * strings, and the scanner leaves tabs and carriage returns between tokens to JSON.parse).
 * Four bytes at a time through `words` (a view of the same memory) where alignment allows.
 */
function hasControlByte(b: Buffer, words: Int32Array | undefined, s: number, e: number): boolean {
  let i = s;
  if (words !== undefined) {
    const base = b.byteOffset;
    while (i < e && ((base + i) & 3) !== 0) if (b[i++]! < SPACE) return true;
    const wordEnd = ((base + e) & ~3) - base;
    if (i < wordEnd) {
      const w0 = (base + i) >> 2;
      const w1 = (base + wordEnd) >> 2;
      for (let w = w0; w < w1; w++) {
        const x = words[w]!;
        // Some byte of x is below 0x20: (x - 0x20202020) & ~x & 0x80808080 (exact as a yes/no).
        if (((x - 0x20202020) & ~x & 0x80808080) !== 0) return true;
      }
      i = wordEnd;
    }
  }
  for (; i < e; i++) if (b[i]! < SPACE) return true;
  return false;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function bytesAre(b: Buffer, s: number, ascii: string): boolean {
  for (let i = 0; i < ascii.length; i++) if (b[s + i] !== ascii.charCodeAt(i)) return false;
  return true;
}

/** Which watched key the bytes [s, e) name at the top level (0 for none). */
function topLevelKey(b: Buffer, s: number, e: number): number {
  switch (e - s) {
    case 2:
      return b[s] === 0x69 && b[s + 1] === 0x64 ? W_ID : W_NONE; // id
    case 4:
      return b[s] === 0x74 && b[s + 1] === 0x79 && b[s + 2] === 0x70 && b[s + 3] === 0x65 ? W_TYPE : W_NONE; // type
    case 7:
      return bytesAre(b, s, "message") ? W_MESSAGE : W_NONE;
    case 8:
      return bytesAre(b, s, "parentId") ? W_PARENT : W_NONE;
    case 9:
      return bytesAre(b, s, "timestamp") ? W_TIME : W_NONE;
    default:
      return W_NONE;
  }
}

/** Which watched key the bytes [s, e) name inside the `message` object (0 for none). */
function messageKey(b: Buffer, s: number, e: number): number {
  switch (e - s) {
    case 4:
      return b[s] === 0x72 && b[s + 1] === 0x6f && b[s + 2] === 0x6c && b[s + 3] === 0x65 ? W_ROLE : W_NONE; // role
    case 7:
      return bytesAre(b, s, "content") ? W_CONTENT : W_NONE;
    case 10:
      return bytesAre(b, s, "stopReason") ? W_STOP : W_NONE;
    default:
      return W_NONE;
  }
}

/**
 * Reads one session line. Returns true when the bytes [start, end) are one JSON object in
 * strict JSON with every watched key plainly written at most once; `head` then says where the
 * watched values are. Returns false otherwise: the caller must parse the line with JSON.parse.
 *
 * `words` is an Int32Array over the whole ArrayBuffer behind `buf` (from its byte 0), used to look
 * for control bytes four at a time; pass undefined to look byte by byte.
 */
export function scanLine(buf: Buffer, words: Int32Array | undefined, start: number, end: number, head: LineHead): boolean {
  const b = buf;
  let e = end;
  // Trailing white space (a carriage return from CRLF files included) is allowed after a value.
  while (e > start && (b[e - 1] === SPACE || b[e - 1] === 0x0d || b[e - 1] === 0x09)) e--;
  let p = start;
  while (p < e && b[p] === SPACE) p++;
  if (p >= e || b[p] !== 0x7b) return false;
  if (hasControlByte(b, words, p, e)) return false;
  head.reset();
  const kind = head.kind;
  // Container stack: 1 = object, 2 = array. Deep nesting grows it.
  let stack: Uint8Array = STACK;
  let sp = 0;
  let messageDepth = -1;
  let watch = W_NONE;
  // Position of the next backslash at or after the scan position (or beyond e): found with the
  // native memchr once and reused until passed.
  let nextBackslash = -1;
  let nextQuote = -1;
  let state = 0; // 0: a value; 1: after a value; 2: a key
  for (;;) {
    if (state === 0) {
      if (p >= e) return false;
      const c = b[p];
      if (c === 0x7b) {
        // {
        if (sp === stack.length) stack = growStack(stack);
        stack[sp++] = 1;
        if (watch !== W_NONE) {
          if (watch === W_MESSAGE) {
            kind[W_MESSAGE] = VALUE_OBJECT;
            messageDepth = sp;
          } else kind[watch] = VALUE_OTHER;
          watch = W_NONE;
        }
        p++;
        while (p < e && b[p] === SPACE) p++;
        if (b[p] === 0x7d) {
          sp--;
          if (sp < messageDepth) messageDepth = -1;
          p++;
          state = 1;
        } else state = 2;
        continue;
      }
      if (c === QUOTE) {
        const s = p + 1;
        let q = s;
        let escaped = 0;
        // Short strings are walked here; long ones are searched with memchr.
        const shortEnd = s + 24 < e ? s + 24 : e;
        while (q < shortEnd) {
          const x = b[q]!;
          if (x === QUOTE || x === BACKSLASH) break;
          q++;
        }
        if (q >= shortEnd || b[q] !== QUOTE) {
          for (;;) {
            if (nextQuote < q) {
              nextQuote = b.indexOf(QUOTE, q);
              if (nextQuote < 0) nextQuote = b.length;
            }
            const quote = nextQuote;
            if (quote >= e) return false;
            if (nextBackslash < q) {
              nextBackslash = b.indexOf(BACKSLASH, q);
              if (nextBackslash < 0) nextBackslash = b.length;
            }
            if (nextBackslash > quote) {
              q = quote;
              break;
            }
            // An escape before the quote: check it and continue after it.
            escaped = 1;
            const x = b[nextBackslash + 1];
            if (x === 0x75) {
              if (!(isHex(b[nextBackslash + 2]!) && isHex(b[nextBackslash + 3]!) && isHex(b[nextBackslash + 4]!) && isHex(b[nextBackslash + 5]!))) return false;
              q = nextBackslash + 6;
            } else if (x === QUOTE || x === BACKSLASH || x === 0x2f || x === 0x62 || x === 0x66 || x === 0x6e || x === 0x72 || x === 0x74) {
              q = nextBackslash + 2;
            } else return false;
            if (q > e) return false;
          }
        }
        if (watch !== W_NONE) {
          kind[watch] = VALUE_STRING;
          head.start[watch] = s;
          head.end[watch] = q;
          head.escaped[watch] = escaped;
          watch = W_NONE;
        }
        p = q + 1;
        state = 1;
        continue;
      }
      if (c === 0x5b) {
        // [
        if (sp === stack.length) stack = growStack(stack);
        stack[sp++] = 2;
        if (watch !== W_NONE) {
          if (watch === W_CONTENT) {
            kind[W_CONTENT] = VALUE_ARRAY;
            head.start[W_CONTENT] = p;
          } else kind[watch] = VALUE_OTHER;
          watch = W_NONE;
        }
        p++;
        while (p < e && b[p] === SPACE) p++;
        if (b[p] === 0x5d) {
          sp--;
          p++;
          state = 1;
        }
        continue;
      }
      if (c === 0x2d || isDigit(c!)) {
        // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
        if (c === 0x2d) p++;
        if (p < e && b[p] === 0x30) p++;
        else if (p < e && isDigit(b[p]!)) while (p < e && isDigit(b[p]!)) p++;
        else return false;
        if (p < e && b[p] === 0x2e) {
          p++;
          if (!(p < e && isDigit(b[p]!))) return false;
          while (p < e && isDigit(b[p]!)) p++;
        }
        if (p < e && (b[p] === 0x65 || b[p] === 0x45)) {
          p++;
          if (p < e && (b[p] === 0x2b || b[p] === 0x2d)) p++;
          if (!(p < e && isDigit(b[p]!))) return false;
          while (p < e && isDigit(b[p]!)) p++;
        }
        if (watch !== W_NONE) {
          kind[watch] = VALUE_OTHER;
          watch = W_NONE;
        }
        state = 1;
        continue;
      }
      if (c === 0x74 || c === 0x66 || c === 0x6e) {
        // true, false, null
        let n: number;
        if (c === 0x74) n = b[p + 1] === 0x72 && b[p + 2] === 0x75 && b[p + 3] === 0x65 ? 4 : 0;
        else if (c === 0x66) n = b[p + 1] === 0x61 && b[p + 2] === 0x6c && b[p + 3] === 0x73 && b[p + 4] === 0x65 ? 5 : 0;
        else n = b[p + 1] === 0x75 && b[p + 2] === 0x6c && b[p + 3] === 0x6c ? 4 : 0;
        if (n === 0 || p + n > e) return false;
        if (watch !== W_NONE) {
          kind[watch] = c === 0x6e ? VALUE_NULL : VALUE_OTHER;
          watch = W_NONE;
        }
        p += n;
        state = 1;
        continue;
      }
      return false;
    }
    if (state === 1) {
      while (p < e && b[p] === SPACE) p++;
      if (sp === 0) return p === e;
      const c = b[p];
      const top = stack[sp - 1];
      if (c === 0x2c) {
        p++;
        while (p < e && b[p] === SPACE) p++;
        state = top === 1 ? 2 : 0;
        continue;
      }
      if ((c === 0x7d && top === 1) || (c === 0x5d && top === 2)) {
        sp--;
        if (sp < messageDepth) messageDepth = -1;
        p++;
        continue;
      }
      return false;
    }
    // state 2: a key, then a colon
    if (p >= e || b[p] !== QUOTE) return false;
    const s = p + 1;
    let q = s;
    while (q < e) {
      const x = b[q]!;
      if (x === QUOTE || x === BACKSLASH) break;
      q++;
    }
    if (q >= e) return false;
    const watchedLevel = sp === 1 || sp === messageDepth;
    if (b[q] === BACKSLASH) {
      // An escaped key might spell a watched name: leave such lines to JSON.parse.
      if (watchedLevel) return false;
      for (;;) {
        if (nextQuote < q) {
          nextQuote = b.indexOf(QUOTE, q);
          if (nextQuote < 0) nextQuote = b.length;
        }
        const quote = nextQuote;
        if (quote >= e) return false;
        if (nextBackslash < q) {
          nextBackslash = b.indexOf(BACKSLASH, q);
          if (nextBackslash < 0) nextBackslash = b.length;
        }
        if (nextBackslash > quote) {
          q = quote;
          break;
        }
        const x = b[nextBackslash + 1];
        if (x === 0x75) {
          if (!(isHex(b[nextBackslash + 2]!) && isHex(b[nextBackslash + 3]!) && isHex(b[nextBackslash + 4]!) && isHex(b[nextBackslash + 5]!))) return false;
          q = nextBackslash + 6;
        } else if (x === QUOTE || x === BACKSLASH || x === 0x2f || x === 0x62 || x === 0x66 || x === 0x6e || x === 0x72 || x === 0x74) {
          q = nextBackslash + 2;
        } else return false;
        if (q > e) return false;
      }
    } else if (watchedLevel) {
      const w = sp === 1 ? topLevelKey(b, s, q) : messageKey(b, s, q);
      if (w !== W_NONE) {
        // A watched key given twice: JSON.parse keeps the last one; let it decide.
        if (kind[w] !== VALUE_MISSING) return false;
        watch = w;
      }
    }
    p = q + 1;
    while (p < e && b[p] === SPACE) p++;
    if (b[p] !== 0x3a) return false;
    p++;
    while (p < e && b[p] === SPACE) p++;
    if (p >= e) return false;
    state = 0;
  }
}

let STACK: Uint8Array = new Uint8Array(64);

function growStack(stack: Uint8Array): Uint8Array {
  const next = new Uint8Array(stack.length * 2);
  next.set(stack);
  STACK = next;
  return next;
}
