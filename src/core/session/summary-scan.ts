/**
 * Reads, from the bytes of one `message` line, just what an entry's summary is made of (the
 * fields `summarizeEntry` looks at), without parsing the rest: a tool result's 4 KB of output
 * becomes its first couple of thousand bytes, an assistant's usage and signatures are skipped.
 * The summary made from this light value equals the one made from the fully parsed entry:
 * previews read at most PREVIEW_SOURCE characters of any text, and every other field is exact.
 *
 * Anything unusual (an escaped key, a line that does not read as expected) answers undefined,
 * and the caller parses the line in full.
 */

import { PREVIEW_SOURCE } from "./summarize";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Characters (UTF-16 code units) of a long text that are read: a preview is made from at most its
 * first PREVIEW_SOURCE characters (summarize.ts), and every test of a text's length looks below that.
 */
const TEXT_UNITS = PREVIEW_SOURCE;

function ws(b: Buffer, p: number, e: number): number {
  while (p < e) {
    const c = b[p]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) break;
    p++;
  }
  return p;
}

/**
 * Where the next quote and backslash are, found with memchr and reused while the reading moves
 * forward (a line is one buffer of its own, so no search runs past its end).
 */
class Marks {
  private quoteFrom = Infinity;
  private quoteAt = -1;
  private slashFrom = Infinity;
  private slashAt = -1;
  constructor(readonly b: Buffer) {}

  quote(q: number): number {
    if (q < this.quoteFrom || q > this.quoteAt) {
      this.quoteFrom = q;
      this.quoteAt = this.b.indexOf(QUOTE, q);
      if (this.quoteAt < 0) this.quoteAt = this.b.length;
    }
    return this.quoteAt;
  }

  slash(q: number): number {
    if (q < this.slashFrom || q > this.slashAt) {
      this.slashFrom = q;
      this.slashAt = this.b.indexOf(BACKSLASH, q);
      if (this.slashAt < 0) this.slashAt = this.b.length;
    }
    return this.slashAt;
  }
}

let marks: Marks = new Marks(Buffer.alloc(0));

/** After the string starting at `p` (its opening quote); sets `escapes` when it holds any. -1 if unterminated. */
function endOfString(p: number, e: number, state: { escapes: boolean }): number {
  let q = p + 1;
  for (;;) {
    const quote = marks.quote(q);
    if (quote >= e) return -1;
    const slash = marks.slash(q);
    if (slash > quote) return quote + 1;
    state.escapes = true;
    q = slash + 2;
  }
}

/** After the value starting at `p`, or -1. The line was checked when indexed: this only skips. */
function endOfValue(b: Buffer, p: number, e: number): number {
  const c = b[p];
  const state = { escapes: false };
  if (c === QUOTE) return endOfString(p, e, state);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    let q = p;
    while (q < e) {
      const x = b[q]!;
      if (x === QUOTE) {
        q = endOfString(q, e, state);
        if (q < 0) return -1;
        continue;
      }
      if (x === 0x7b || x === 0x5b) depth++;
      else if (x === 0x7d || x === 0x5d) {
        depth--;
        if (depth === 0) return q + 1;
      }
      q++;
    }
    return -1;
  }
  let q = p;
  while (q < e) {
    const x = b[q]!;
    if (x === 0x2c || x === 0x7d || x === 0x5d || x === 0x20 || x === 0x09 || x === 0x0d || x === 0x0a) break;
    q++;
  }
  return q > p ? q : -1;
}

/** The exact value in bytes [p, q). */
function exact(b: Buffer, p: number, q: number): unknown {
  if (b[p] === QUOTE) {
    let plain = true;
    for (let i = p + 1; i < q - 1; i++) {
      const c = b[i]!;
      if (c === BACKSLASH || c >= 0x80) {
        plain = false;
        break;
      }
    }
    if (plain) return b.toString("latin1", p + 1, q - 1);
  }
  return JSON.parse(b.toString("utf8", p, q));
}

/**
 * Where to cut the string whose characters start at `from` (after its opening quote) and end at
 * `to` (its closing quote) so that at least `units` UTF-16 code units are kept: never inside an
 * escape or a UTF-8 sequence. `to` when the whole string is shorter.
 */
function cutAfterUnits(b: Buffer, from: number, to: number, units: number): number {
  let q = from;
  let n = 0;
  while (n < units) {
    if (q >= to) return to;
    const c = b[q]!;
    if (c < 0x80) {
      q += c === BACKSLASH ? (b[q + 1] === 0x75 ? 6 : 2) : 1;
      n++;
    } else if (c < 0xe0) {
      q += 2;
      n++;
    } else if (c < 0xf0) {
      q += 3;
      n++;
    } else {
      q += 4;
      n += 2;
    }
  }
  return Math.min(q, to);
}

/** A string value cut after its first TEXT_UNITS characters (at a clean point), or the exact value when short or not a string. */
function text(b: Buffer, p: number, q: number): unknown {
  if (b[p] !== QUOTE || q - p <= TEXT_UNITS + 2) return exact(b, p, q);
  const cut = cutAfterUnits(b, p + 1, q - 1, TEXT_UNITS);
  if (cut >= q - 1) return exact(b, p, q);
  const kept = JSON.parse(`"${b.toString("utf8", p + 1, cut)}"`) as string;
  // Only white space before the cut: whether the text shows anything (an assistant turn with text or
  // without) depends on the rest, so read it whole (rare: a text that starts with 400 blanks).
  return kept.trim() === "" ? exact(b, p, q) : kept;
}

/** Visits the members of the object at `p`: `member(keyStart, keyEnd, valueStart, valueEnd)`. Returns false on a surprise. */
function members(b: Buffer, p: number, e: number, member: (ks: number, ke: number, vs: number, ve: number) => void): boolean {
  if (b[p] !== 0x7b) return false;
  p = ws(b, p + 1, e);
  if (b[p] === 0x7d) return true;
  const state = { escapes: false };
  for (;;) {
    if (b[p] !== QUOTE) return false;
    state.escapes = false;
    const keyEnd = endOfString(p, e, state);
    if (keyEnd < 0 || state.escapes) return false; // an escaped key may spell a field name
    let v = ws(b, keyEnd, e);
    if (b[v] !== 0x3a) return false;
    v = ws(b, v + 1, e);
    const ve = endOfValue(b, v, e);
    if (ve < 0) return false;
    member(p + 1, keyEnd - 1, v, ve);
    p = ws(b, ve, e);
    if (b[p] === 0x2c) {
      p = ws(b, p + 1, e);
      continue;
    }
    return b[p] === 0x7d;
  }
}

function keyIs(b: Buffer, s: number, e: number, name: string): boolean {
  if (e - s !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (b[s + i] !== name.charCodeAt(i)) return false;
  return true;
}

// A shell entry's command is read whole: Pi's tree search reads all of it, and the summary keeps it for that.
const EXACT_MESSAGE_KEYS = ["role", "stopReason", "toolName", "isError", "exitCode", "cancelled", "customType", "command"];
const TEXT_MESSAGE_KEYS = ["errorMessage"];

function content(b: Buffer, p: number, q: number): unknown {
  if (b[p] === QUOTE) return text(b, p, q);
  if (b[p] === 0x7b) return {};
  if (b[p] !== 0x5b) return exact(b, p, q);
  const blocks: unknown[] = [];
  let i = ws(b, p + 1, q);
  if (b[i] === 0x5d) return blocks;
  for (;;) {
    const end = endOfValue(b, i, q);
    if (end < 0) return undefined;
    if (b[i] === 0x7b) {
      const block: Record<string, unknown> = {};
      const ok = members(b, i, end, (ks, ke, vs, ve) => {
        if (keyIs(b, ks, ke, "type") || keyIs(b, ks, ke, "name")) block[b.toString("latin1", ks, ke)] = exact(b, vs, ve);
        else if (keyIs(b, ks, ke, "text") || keyIs(b, ks, ke, "thinking")) block[b.toString("latin1", ks, ke)] = text(b, vs, ve);
      });
      if (!ok) return undefined;
      blocks.push(block);
    } else blocks.push(exact(b, i, end));
    i = ws(b, end, q);
    if (b[i] === 0x2c) {
      i = ws(b, i + 1, q);
      continue;
    }
    return b[i] === 0x5d ? blocks : undefined;
  }
}

/**
 * After the JSON value (or key) whose first byte is at `p` in `b`, a line that has been checked as
 * strict JSON, or -1 when it does not end before `e`. Only skips: nothing is decoded.
 */
export function skipValue(b: Buffer, p: number, e: number): number {
  if (marks.b !== b) marks = new Marks(b);
  return endOfValue(b, p, e);
}

/**
 * The light value of the `message` line in bytes [s, e) of `b`: its top-level type, id, parentId
 * and timestamp, and the message fields a summary reads. Undefined when the line is not a plain
 * object this reader can take (the caller then parses it in full).
 */
export function lightMessageEntry(buf: Buffer, s: number, e: number): Record<string, unknown> | undefined {
  // The line as a buffer of its own: every search stops at its end.
  const b = buf.subarray(s, e);
  marks = new Marks(b);
  s = 0;
  e = b.length;
  const entry: Record<string, unknown> = {};
  let failed = false;
  const ok = members(b, ws(b, s, e), e, (ks, ke, vs, ve) => {
    if (keyIs(b, ks, ke, "type") || keyIs(b, ks, ke, "id") || keyIs(b, ks, ke, "parentId") || keyIs(b, ks, ke, "timestamp")) {
      entry[b.toString("latin1", ks, ke)] = exact(b, vs, ve);
    } else if (keyIs(b, ks, ke, "message")) {
      if (b[vs] !== 0x7b) {
        entry.message = exact(b, vs, ve);
        return;
      }
      const message: Record<string, unknown> = {};
      const fine = members(b, vs, ve, (mks, mke, mvs, mve) => {
        const key = b.toString("latin1", mks, mke);
        if (EXACT_MESSAGE_KEYS.includes(key)) message[key] = exact(b, mvs, mve);
        else if (TEXT_MESSAGE_KEYS.includes(key)) message[key] = text(b, mvs, mve);
        else if (key === "content") {
          const value = content(b, mvs, mve);
          if (value === undefined) failed = true;
          message.content = value;
        }
      });
      if (!fine) failed = true;
      entry.message = message;
    }
  });
  return ok && !failed ? entry : undefined;
}
