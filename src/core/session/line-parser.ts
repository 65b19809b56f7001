import { constants } from "node:buffer";
import type { LineProblem } from "./errors";

const NEWLINE = 0x0a;
/**
 * The longest line decoded: the engine's string limit (about 512 MB of one-byte characters). A
 * line has at least as many bytes as characters, so anything longer can never be a string.
 */
export const MAX_LINE_BYTES = constants.MAX_STRING_LENGTH;

/** One line that parsed as a JSON object. */
export interface RawLine {
  /** 1-based line number in the file */
  line: number;
  value: Record<string, unknown>;
  /** byte range of the line (without its newline) inside the chunk */
  start: number;
  end: number;
}

export interface ParsedChunk {
  lines: RawLine[];
  problems: LineProblem[];
  /** Bytes of the chunk that are complete lines (up to and including the last newline). */
  consumedBytes: number;
  /** Lines counted in consumedBytes (blank ones included). */
  consumedLines: number;
  /**
   * Bytes after the last newline that do not (yet) form a complete JSON line: a torn last line
   * after a crash, or a line another process is still writing.
   */
  pendingBytes: number;
  /** The chunk's final bytes held a complete JSON line with no newline after it. */
  unterminatedEntry: boolean;
}

export function excerptOf(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

export function isBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/**
 * Parses the text of one line: the entry-like object, or the problem that keeps it from being
 * one. `undefined` when `fragment` is set and the text is not (yet) complete JSON.
 */
export function parseLineText(text: string, lineNo: number, fragment = false): Record<string, unknown> | LineProblem | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    if (fragment) return undefined;
    return { line: lineNo, kind: "malformed", message: `line ${lineNo} is not valid JSON (${(err as Error).message})`, excerpt: excerptOf(text) };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value) || typeof (value as { type?: unknown }).type !== "string") {
    return { line: lineNo, kind: "not-an-entry", message: `line ${lineNo} is JSON but not a session entry (no "type")`, excerpt: excerptOf(text) };
  }
  return value as Record<string, unknown>;
}

/** Whether a parse result is a problem rather than a value. */
export function isProblem(result: Record<string, unknown> | LineProblem): result is LineProblem {
  // Values always carry a string `type`; problems never do.
  return typeof (result as { type?: unknown }).type !== "string";
}

/**
 * Splits a chunk of a session file into lines and parses each one. Lines that do not parse are
 * reported with their line number and otherwise left alone. When `atEof` is set, a final
 * fragment without a newline is parsed too if it is complete JSON; otherwise it is left pending.
 * With `onLine`, lines are passed to it as they are parsed instead of being collected.
 */
export function parseChunk(buf: Buffer, firstLine: number, atEof: boolean, onLine?: (line: RawLine) => void): ParsedChunk {
  const lines: RawLine[] = [];
  const problems: LineProblem[] = [];
  let pos = 0;
  let lineNo = firstLine;
  let consumedLines = 0;
  const parseOne = (start: number, end: number, isFragment: boolean): boolean => {
    if (end - start > MAX_LINE_BYTES) {
      // Past the engine's string limit: it cannot be decoded, let alone parsed. Reported and kept.
      if (isFragment) return false;
      problems.push(tooLongProblem(lineNo, end - start, buf.subarray(start, start + 200)));
      return true;
    }
    if (isBlank(buf, start, end)) return true;
    const result = parseLineText(buf.toString("utf8", start, end), lineNo, isFragment);
    if (result === undefined) return false;
    if (isProblem(result)) {
      problems.push(result);
      return true;
    }
    const raw = { line: lineNo, value: result, start, end };
    // With a visitor, each parsed line is handed over and dropped at once, so a huge file is never
    // held as parsed objects all together.
    if (onLine) onLine(raw);
    else lines.push(raw);
    return true;
  };
  while (pos < buf.length) {
    const nl = buf.indexOf(NEWLINE, pos);
    if (nl < 0) break;
    parseOne(pos, nl, false);
    pos = nl + 1;
    lineNo++;
    consumedLines++;
  }
  let pendingBytes = buf.length - pos;
  let unterminatedEntry = false;
  if (pendingBytes > 0 && atEof) {
    if (isBlank(buf, pos, buf.length)) {
      pendingBytes = 0;
    } else if (parseOne(pos, buf.length, true)) {
      unterminatedEntry = true;
    }
  }
  return { lines, problems, consumedBytes: pos, consumedLines, pendingBytes, unterminatedEntry };
}

/** The problem report for a line past the engine's string limit, from its first bytes. */
export function tooLongProblem(lineNo: number, length: number, head: Buffer): LineProblem {
  const mb = Math.round(length / 2 ** 20);
  return { line: lineNo, kind: "malformed", message: `line ${lineNo} is too long to read (${mb} MB, over the ${Math.floor(MAX_LINE_BYTES / 2 ** 20)} MB a line can hold); it is kept in the file`, excerpt: excerptOf(head.toString("utf8", 0, Math.min(head.length, 200))) };
}

/** The problem report for a fragment at the end of a file that is not complete JSON. */
export function tornLineProblem(line: number, fragment: string): LineProblem {
  return {
    line,
    kind: "torn",
    message: `line ${line} is incomplete (the file ends mid-line, as after a crash while writing); it is kept, and the next append starts on a new line`,
    excerpt: excerptOf(fragment),
  };
}
