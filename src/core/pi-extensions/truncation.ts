/**
 * Pi's truncation helpers for extensions (`truncateHead`, `truncateTail`, `truncateLine`,
 * `formatSize`, the default limits), over Arbor's own output caps (the same 2000 lines / 50 KiB).
 */
import { DEFAULT_OUTPUT_LIMITS, truncateHead as headOf, truncateTail as tailOf, type Truncation } from "../agent/output/output-limits";

export const DEFAULT_MAX_LINES = DEFAULT_OUTPUT_LIMITS.maxLines;
export const DEFAULT_MAX_BYTES = DEFAULT_OUTPUT_LIMITS.maxBytes;

export interface TruncationOptions {
  maxLines?: number;
  maxBytes?: number;
}

/** Pi's TruncationResult shape. */
export interface TruncationResult {
  content: string;
  truncated: boolean;
  truncatedBy: "lines" | "bytes" | null;
  totalLines: number;
  totalBytes: number;
  outputLines: number;
  outputBytes: number;
  lastLinePartial: boolean;
  firstLineExceedsLimit: boolean;
  maxLines: number;
  maxBytes: number;
}

function limitsOf(options: TruncationOptions = {}): { maxLines: number; maxBytes: number } {
  return { maxLines: options.maxLines ?? DEFAULT_MAX_LINES, maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES };
}

function describe(cut: Truncation, text: string, limits: { maxLines: number; maxBytes: number }, fromEnd: boolean): TruncationResult {
  const lines = text.split("\n");
  const edgeLine = fromEnd ? lines[lines.length - 1]! : lines[0]!;
  const edgeTooLong = Buffer.byteLength(edgeLine, "utf8") > limits.maxBytes;
  const byLines = cut.truncated && lines.length > limits.maxLines && cut.keptLines >= Math.min(limits.maxLines, lines.length);
  return {
    content: cut.content,
    truncated: cut.truncated,
    truncatedBy: !cut.truncated ? null : byLines ? "lines" : "bytes",
    totalLines: cut.totalLines,
    totalBytes: cut.totalBytes,
    outputLines: cut.content === "" ? 0 : cut.keptLines,
    outputBytes: Buffer.byteLength(cut.content, "utf8"),
    lastLinePartial: fromEnd && cut.truncated && edgeTooLong,
    firstLineExceedsLimit: !fromEnd && edgeTooLong,
    maxLines: limits.maxLines,
    maxBytes: limits.maxBytes,
  };
}

/** The start of a text, whole lines, within the limits. */
export function truncateHead(content: string, options?: TruncationOptions): TruncationResult {
  const limits = limitsOf(options);
  return describe(headOf(content, limits), content, limits, false);
}

/** The end of a text, whole lines (a too-long last line is cut to its tail), within the limits. */
export function truncateTail(content: string, options?: TruncationOptions): TruncationResult {
  const limits = limitsOf(options);
  return describe(tailOf(content, limits), content, limits, true);
}

/** One line cut to `maxChars` characters. */
export function truncateLine(line: string, maxChars = 500): { text: string; wasTruncated: boolean } {
  return line.length <= maxChars ? { text: line, wasTruncated: false } : { text: `${line.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
}

/** A byte count for people: B, KB, MB. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}
