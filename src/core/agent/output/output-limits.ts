/**
 * How much command and tool output a session keeps inline. Long output is cut to its tail (or, for
 * file reads, its head) so a single run cannot flood the session file or the model's context; the
 * full text goes to a file whose path is recorded next to the cut text.
 */

/** Limits on the text kept inline; whichever is reached first applies. */
export interface OutputLimits {
  maxLines: number;
  maxBytes: number;
}

/** Pi's limits, so sessions written by either tool cut output alike: 2000 lines or 50 KiB. */
export const DEFAULT_OUTPUT_LIMITS: Readonly<OutputLimits> = Object.freeze({ maxLines: 2000, maxBytes: 50 * 1024 });

/** The kept part of a text and how it relates to the whole. */
export interface Truncation {
  content: string;
  truncated: boolean;
  totalLines: number;
  totalBytes: number;
  /** Lines in `content` (a cut first line counts as one). */
  keptLines: number;
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** The last `maxBytes` bytes of `text`, never splitting a character. */
function tailBytes(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= maxBytes) return text;
  let start = buf.length - maxBytes;
  // Skip UTF-8 continuation bytes so the slice starts on a character boundary.
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return buf.subarray(start).toString("utf8");
}

/**
 * Keeps the end of `text`: whole lines from the last one backwards while both limits hold. When even
 * the last line is too long, its own tail is kept (the only case where a line is cut).
 */
export function truncateTail(text: string, limits: OutputLimits = DEFAULT_OUTPUT_LIMITS): Truncation {
  const lines = text.split("\n");
  const totalBytes = byteLength(text);
  if (lines.length <= limits.maxLines && totalBytes <= limits.maxBytes) {
    return { content: text, truncated: false, totalLines: lines.length, totalBytes, keptLines: lines.length };
  }
  const kept: string[] = [];
  let bytes = 0;
  for (let i = lines.length - 1; i >= 0 && kept.length < limits.maxLines; i--) {
    const cost = byteLength(lines[i]!) + (kept.length > 0 ? 1 : 0);
    if (bytes + cost > limits.maxBytes) {
      if (kept.length === 0) kept.push(tailBytes(lines[i]!, limits.maxBytes));
      break;
    }
    kept.unshift(lines[i]!);
    bytes += cost;
  }
  return { content: kept.join("\n"), truncated: true, totalLines: lines.length, totalBytes, keptLines: kept.length };
}

/**
 * Keeps the start of `text`: whole lines from the first one while both limits hold. A first line
 * longer than the byte limit yields nothing (the caller says so and suggests a narrower read).
 */
export function truncateHead(text: string, limits: OutputLimits = DEFAULT_OUTPUT_LIMITS): Truncation {
  const lines = text.split("\n");
  const totalBytes = byteLength(text);
  if (lines.length <= limits.maxLines && totalBytes <= limits.maxBytes) {
    return { content: text, truncated: false, totalLines: lines.length, totalBytes, keptLines: lines.length };
  }
  const kept: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    if (kept.length >= limits.maxLines) break;
    const cost = byteLength(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + cost > limits.maxBytes) break;
    kept.push(line);
    bytes += cost;
  }
  return { content: kept.join("\n"), truncated: true, totalLines: lines.length, totalBytes, keptLines: kept.length };
}

/** Terminal colour and cursor sequences, which mean nothing in a transcript. */
const ANSI_SEQUENCE = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;
/** Control characters other than tab and newline, carriage returns included (as Pi drops them). */
const CONTROL_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** Output made fit for a transcript: no escape sequences, no carriage returns, no binary control bytes. */
export function sanitizeOutput(text: string): string {
  return text.replace(ANSI_SEQUENCE, "").replace(CONTROL_CHARS, "");
}
