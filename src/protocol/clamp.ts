/**
 * Brings what the host sends within the protocol's limits, one field at a time, so that the guards
 * can stay strict without one odd entry (a 20,000-character label, an empty role, a negative
 * `tokensBefore`, an id with control characters) making the webview drop a whole state message and
 * go blank. Pure functions: the host runs each row's summary through `clampSummary` before it
 * crosses the boundary.
 *
 * Text that is too long is cut and ends in "…"; an empty name becomes "(empty)"; a number out of
 * range is dropped; an id the guards would refuse is replaced by a stable stand-in that `SafeIds`
 * maps back when the webview names it. Every entry that had to be changed is marked `clamped`.
 */
import type { EntrySummary } from "../core/tree/types";
import { LIMITS, type EntryDetails } from "./messages";

const CONTROL = /[\u0000-\u001f\u007f]/;
const ELLIPSIS = "…";

/** `text` cut to `max` characters (the last one an ellipsis), without splitting a surrogate pair. */
export function clampText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + ELLIPSIS;
}

function validId(id: string): boolean {
  return id.length > 0 && id.length <= LIMITS.idLength && !CONTROL.test(id);
}

/**
 * Maps ids the protocol refuses (empty, too long, control characters) to stand-ins, the same one
 * each time, and back. Valid ids pass through unchanged, so in practice nothing is mapped.
 */
export class SafeIds {
  private readonly toSafe = new Map<string, string>();
  private readonly toOriginal = new Map<string, string>();

  /** @param exists whether an id is a real one (a stand-in never takes a real id's place) */
  constructor(private readonly exists: (id: string) => boolean = () => false) {}

  /** The id as it may cross the boundary. */
  out(id: string): string {
    if (validId(id)) return id;
    let safe = this.toSafe.get(id);
    if (safe === undefined) {
      let n = this.toSafe.size + 1;
      do safe = `invalid-id-${n++}`;
      while (this.exists(safe) || this.toOriginal.has(safe));
      this.toSafe.set(id, safe);
      this.toOriginal.set(safe, id);
    }
    return safe;
  }

  /** The real id behind what the webview sent back. */
  in(id: string): string {
    return this.toOriginal.get(id) ?? id;
  }

  /** Whether any id had to be replaced. */
  get mapped(): number {
    return this.toSafe.size;
  }
}

type NameField = "role" | "customType" | "toolName" | "provider" | "modelId" | "thinkingLevel";
const NAME_FIELDS: readonly NameField[] = ["role", "customType", "toolName", "provider", "modelId", "thinkingLevel"];
type IdField = "firstKeptEntryId" | "fromId" | "targetId";
const ID_FIELDS: readonly IdField[] = ["firstKeptEntryId", "fromId", "targetId"];

function clampName(name: string): string {
  return name.length === 0 ? "(empty)" : clampText(name, LIMITS.nameLength);
}

/**
 * An entry summary every field of which the guards accept. Returns the same object when nothing
 * needed changing (the common case costs no copy).
 */
export function clampSummary(full: EntrySummary, ids: SafeIds): EntrySummary {
  // The search text is for the host's search only; the webview highlights in what it draws.
  let s = full;
  if (s.searchText !== undefined) {
    s = { ...s };
    delete s.searchText;
  }
  let out: EntrySummary | undefined;
  const set = <K extends keyof EntrySummary>(key: K, value: EntrySummary[K]): void => {
    out ??= { ...s };
    if (value === undefined) delete out[key];
    else out[key] = value;
  };
  const id = ids.out(s.id);
  if (id !== s.id) set("id", id);
  if (s.parentId !== null) {
    const parentId = ids.out(s.parentId);
    if (parentId !== s.parentId) set("parentId", parentId);
  }
  const type = clampName(s.type);
  if (type !== s.type) set("type", type);
  if (s.timestamp.length > LIMITS.timestampLength) set("timestamp", clampText(s.timestamp, LIMITS.timestampLength));
  if (!Number.isInteger(s.line) || s.line < 0) set("line", 0);
  if (s.preview.length > LIMITS.previewLength) set("preview", clampText(s.preview, LIMITS.previewLength));
  for (const key of NAME_FIELDS) {
    const value = s[key];
    if (value === undefined) continue;
    const clamped = clampName(value);
    if (clamped !== value) set(key, clamped);
  }
  for (const key of ID_FIELDS) {
    const value = s[key];
    if (value === undefined) continue;
    const safe = ids.out(value);
    if (safe !== value) set(key, safe);
  }
  if (s.label !== undefined && s.label.length > LIMITS.labelLength) set("label", clampText(s.label, LIMITS.labelLength));
  if (s.tokensBefore !== undefined && !(Number.isFinite(s.tokensBefore) && s.tokensBefore >= 0)) set("tokensBefore", undefined);
  if (out === undefined) return s;
  out.clamped = true;
  return out;
}

/** A label text within the limit, or null for none. */
export function clampLabel(label: string | undefined): string | null {
  if (label === undefined) return null;
  return label.length === 0 ? "(empty)" : clampText(label, LIMITS.labelLength);
}

export function clampSessionName(name: string | null): string | null {
  return name === null ? null : clampText(name, LIMITS.labelLength);
}

/**
 * The details pane's content for an entry as it is in the file, or the reason it cannot be shown
 * (a compaction without a text summary, a missing `firstKeptEntryId`, ...): the pane then shows
 * that reason instead of waiting forever for an answer the guards would drop.
 */
export function detailsOf(entry: Record<string, unknown>, text: () => string, ids: SafeIds): { ok: true; details: EntryDetails } | { ok: false; error: string } {
  const problems: string[] = [];
  const paths = (value: unknown, what: string): string[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      problems.push(`${what} is not a list`);
      return [];
    }
    return value.filter((f): f is string => typeof f === "string").slice(0, LIMITS.filesPerCompaction).map((f) => clampText(f, LIMITS.messageLength));
  };
  const summaryText = (): string => {
    if (typeof entry.summary !== "string") {
      problems.push("its summary is not text");
      return "";
    }
    return clampText(entry.summary, LIMITS.textLength);
  };
  const entryId = (value: unknown, what: string): string => {
    if (typeof value !== "string" || value.length === 0) {
      problems.push(`${what} is missing`);
      return "";
    }
    return ids.out(value);
  };
  if (entry.type === "compaction") {
    const summary = summaryText();
    const tokensBefore = entry.tokensBefore;
    if (typeof tokensBefore !== "number" || !Number.isFinite(tokensBefore) || tokensBefore < 0) problems.push("tokensBefore is not a count of tokens");
    const firstKeptEntryId = entryId(entry.firstKeptEntryId, "firstKeptEntryId");
    const files = entry.details !== null && typeof entry.details === "object" ? (entry.details as Record<string, unknown>) : {};
    const readFiles = paths(files.readFiles, "details.readFiles");
    const modifiedFiles = paths(files.modifiedFiles, "details.modifiedFiles");
    if (problems.length) return { ok: false, error: malformed("compaction", problems) };
    return { ok: true, details: { kind: "compaction", summary, tokensBefore: tokensBefore as number, firstKeptEntryId, readFiles, modifiedFiles } };
  }
  if (entry.type === "branch_summary") {
    const summary = summaryText();
    const fromId = entryId(entry.fromId, "fromId");
    if (problems.length) return { ok: false, error: malformed("branch summary", problems) };
    return { ok: true, details: { kind: "branchSummary", summary, fromId } };
  }
  return { ok: true, details: { kind: "text", text: clampText(text(), LIMITS.textLength) } };
}

function malformed(what: string, problems: string[]): string {
  return clampText(`This ${what} entry is malformed: ${problems.join("; ")}. The line is kept in the file as it is.`, LIMITS.messageLength);
}
