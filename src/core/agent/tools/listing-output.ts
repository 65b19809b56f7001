/**
 * The output of the listing tools (grep, find, ls), as Pi's tools shape theirs: rows up to a count
 * limit the call may raise, the whole cut to the byte limit (never mid-row), and a bracketed note
 * saying what was left out and how to get more. The facts go to the result's details.
 */
import { truncateHead, type OutputLimits } from "../output/output-limits";
import { textOutcome, type ToolOutcome } from "./tool";

/** Longest grep row shown, in characters (Pi's limit); longer ones end in "... [truncated]". */
export const MAX_ROW_CHARACTERS = 500;

/** A row cut to MAX_ROW_CHARACTERS. */
export function capRow(row: string): { text: string; cut: boolean } {
  return row.length <= MAX_ROW_CHARACTERS ? { text: row, cut: false } : { text: `${row.slice(0, MAX_ROW_CHARACTERS)}... [truncated]`, cut: true };
}

/** A byte count for people, as Pi writes it (B, KB, MB). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

/** What a listing found and where it stopped. */
export interface Listing {
  rows: readonly string[];
  limits: OutputLimits;
  /** The count limit, when it stopped the listing: the note offers twice as many. */
  countLimit?: { limit: number; noun: string; detailsKey: string; refine: boolean };
  /** Some rows were cut to MAX_ROW_CHARACTERS. */
  rowsCut?: boolean;
}

/** The tool's answer for a listing that found something. */
export function listingOutcome(listing: Listing): ToolOutcome {
  // The count limit already bounds the rows; only the byte limit cuts here.
  const cut = truncateHead(listing.rows.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER, maxBytes: listing.limits.maxBytes });
  const notes: string[] = [];
  const details: Record<string, unknown> = {};
  const count = listing.countLimit;
  if (count) {
    notes.push(`Stopped at ${count.limit} ${count.noun}; call again with limit=${count.limit * 2} for more${count.refine ? ", or narrow the pattern" : ""}`);
    details[count.detailsKey] = count.limit;
  }
  if (cut.truncated) {
    notes.push(`Output cut at ${formatSize(listing.limits.maxBytes)} (${cut.keptLines} of ${cut.totalLines} rows shown)`);
    details.truncation = { truncated: true, maxBytes: listing.limits.maxBytes, totalLines: cut.totalLines, outputLines: cut.keptLines, totalBytes: cut.totalBytes };
  }
  if (listing.rowsCut) {
    notes.push(`Rows longer than ${MAX_ROW_CHARACTERS} characters were cut; read the file for the whole line`);
    details.linesTruncated = true;
  }
  const text = notes.length > 0 ? `${cut.content}\n\n[${notes.join(". ")}.]` : cut.content;
  return textOutcome(text, false, Object.keys(details).length > 0 ? details : undefined);
}

/** Reads an optional boolean argument, or throws. */
export function optionalBoolean(args: Record<string, unknown>, name: string): boolean | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw new Error(`The "${name}" argument must be true or false.`);
  return value;
}

/** Reads an optional string argument, or throws. */
export function optionalString(args: Record<string, unknown>, name: string): string | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new Error(`The "${name}" argument must be a string.`);
  return value;
}

/** Reads an optional non-negative integer argument (a count that may be 0), or throws. */
export function optionalCount(args: Record<string, unknown>, name: string): number | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) throw new Error(`The "${name}" argument must be a whole number of at least 0.`);
  return value;
}
