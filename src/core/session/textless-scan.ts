/**
 * Whether an assistant message line is a turn "without text" (see `isTextlessTurn`: Pi's tree hides
 * such turns unless they are the leaf), decided from the bytes of a line that `scanLine` has already
 * read as strict JSON, without decoding the message. The tree's filters need this fact for every
 * entry, so opening a session keeps it beside the skeleton and the bodies stay on disk.
 *
 * It answers exactly what `isTextlessTurn(JSON.parse(line).message)` answers, or undefined when
 * the bytes are not plain enough to be sure (an escaped `type` or stop reason, a block key given
 * twice); the caller then parses the line.
 */
import { FIELD_CONTENT, FIELD_STOP_REASON, type LineHead, VALUE_ARRAY, VALUE_MISSING, VALUE_NULL, VALUE_OTHER, VALUE_STRING } from "./json-scan";
import { isSpace } from "./summarize";
import { skipValue } from "./summary-scan";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** After the value (or key) at `p` of a line `scanLine` has read as strict JSON. */
function afterValue(b: Buffer, p: number): number {
  return skipValue(b, p, b.length);
}

function skipSpaces(b: Buffer, p: number): number {
  while (b[p] === 0x20) p++;
  return p;
}

function hexAt(b: Buffer, p: number): number {
  return Number.parseInt(b.toString("latin1", p, p + 4), 16);
}

/**
 * Whether the JSON string with contents [s, e) (between its quotes) decodes to something that
 * `trim()` does not reduce to nothing: the first character that is not white space decides.
 */
export function stringHasVisibleText(b: Buffer, s: number, e: number): boolean {
  let i = s;
  while (i < e) {
    const c = b[i]!;
    if (c === BACKSLASH) {
      const x = b[i + 1];
      if (x === 0x6e || x === 0x74 || x === 0x72 || x === 0x66) {
        i += 2; // \n \t \r \f
        continue;
      }
      if (x !== 0x75) return true; // \" \\ \/ \b
      const code = hexAt(b, i + 2);
      if (!isSpace(code)) return true;
      i += 6;
      continue;
    }
    if (c < 0x80) {
      if (c === 0x20) {
        i++;
        continue;
      }
      return true;
    }
    // UTF-8, decoded as Node decodes it: anything malformed becomes U+FFFD, which is visible.
    let code: number;
    if (c >= 0xc2 && c <= 0xdf && i + 1 < e && (b[i + 1]! & 0xc0) === 0x80) {
      code = ((c & 0x1f) << 6) | (b[i + 1]! & 0x3f);
      i += 2;
    } else if (c >= 0xe0 && c <= 0xef && i + 2 < e && (b[i + 1]! & 0xc0) === 0x80 && (b[i + 2]! & 0xc0) === 0x80) {
      code = ((c & 0x0f) << 12) | ((b[i + 1]! & 0x3f) << 6) | (b[i + 2]! & 0x3f);
      if (code < 0x800) return true;
      i += 3;
    } else return true;
    if (!isSpace(code)) return true;
  }
  return false;
}

function hasBackslash(b: Buffer, s: number, e: number): boolean {
  for (let k = s; k < e; k++) if (b[k] === BACKSLASH) return true;
  return false;
}

/** Whether the bytes [s, e) are exactly the ASCII `text`. */
function bytesEqual(b: Buffer, s: number, e: number, text: string): boolean {
  if (e - s !== text.length) return false;
  for (let k = 0; k < text.length; k++) if (b[s + k] !== text.charCodeAt(k)) return false;
  return true;
}

/**
 * Whether a content array (its `[` at `p`) holds a text block with visible text; undefined when a
 * block's `type` or `text` key is escaped or given twice, or its `type` is escaped.
 */
function arrayHasVisibleText(b: Buffer, p: number): boolean | undefined {
  p = skipSpaces(b, p + 1);
  if (b[p] === 0x5d) return false;
  for (;;) {
    if (b[p] === 0x7b) {
      const block = blockHasVisibleText(b, p);
      if (block === undefined) return undefined;
      if (block.visible) return true;
      p = block.end;
    } else p = afterValue(b, p);
    p = skipSpaces(b, p);
    if (b[p] === 0x5d) return false;
    p = skipSpaces(b, p + 1); // the comma
  }
}

/** One block object (its `{` at `p`): whether it is a text block with visible text, and where it ends. */
function blockHasVisibleText(b: Buffer, p: number): { visible: boolean; end: number } | undefined {
  let typeStart = -1;
  let typeEnd = -1;
  let typeSeen = false;
  let textStart = -1;
  let textEnd = -1;
  let textSeen = false;
  p = skipSpaces(b, p + 1);
  if (b[p] !== 0x7d) {
    for (;;) {
      const keyEnd = afterValue(b, p) - 1;
      const keyStart = p + 1;
      if (hasBackslash(b, keyStart, keyEnd)) return undefined; // an escaped key might spell "type" or "text"
      p = skipSpaces(b, keyEnd + 1);
      p = skipSpaces(b, p + 1); // the colon
      const isType = bytesEqual(b, keyStart, keyEnd, "type");
      const isText = !isType && bytesEqual(b, keyStart, keyEnd, "text");
      const valueEnd = afterValue(b, p);
      if (isType || isText) {
        if (isType ? typeSeen : textSeen) return undefined; // JSON.parse keeps the last: let it decide
        const start = b[p] === QUOTE ? p + 1 : -1;
        const end = b[p] === QUOTE ? valueEnd - 1 : -1;
        if (isType) {
          typeSeen = true;
          typeStart = start;
          typeEnd = end;
        } else {
          textSeen = true;
          textStart = start;
          textEnd = end;
        }
      }
      p = skipSpaces(b, valueEnd);
      if (b[p] === 0x7d) break;
      p = skipSpaces(b, p + 1); // the comma
    }
  }
  const end = p + 1;
  if (typeStart < 0 || textStart < 0) return { visible: false, end };
  if (hasBackslash(b, typeStart, typeEnd)) return undefined;
  return { visible: bytesEqual(b, typeStart, typeEnd, "text") && stringHasVisibleText(b, textStart, textEnd), end };
}

/**
 * For an assistant message line read by `scanLine` (`head` describes it): whether it is a turn
 * without text, or undefined when only a full parse can tell.
 */
export function scannedTextless(b: Buffer, head: LineHead): boolean | undefined {
  const stop = head.stopReasonKind;
  if (stop === VALUE_STRING) {
    if (head.escaped[FIELD_STOP_REASON]) return undefined;
    const s = head.start[FIELD_STOP_REASON]!;
    const e = head.end[FIELD_STOP_REASON]!;
    if (e > s && !bytesEqual(b, s, e, "stop") && !bytesEqual(b, s, e, "toolUse")) return false;
  } else if (stop !== VALUE_MISSING && stop !== VALUE_NULL) return undefined; // true, a number, an object: let JSON decide
  switch (head.contentKind) {
    case VALUE_STRING:
      return !stringHasVisibleText(b, head.start[FIELD_CONTENT]!, head.end[FIELD_CONTENT]!);
    case VALUE_ARRAY: {
      const visible = arrayHasVisibleText(b, head.start[FIELD_CONTENT]!);
      return visible === undefined ? undefined : !visible;
    }
    case VALUE_MISSING:
    case VALUE_NULL:
    case VALUE_OTHER:
      return true;
    default:
      return undefined;
  }
}
