/**
 * The data an exported HTML page carries: the whole session (so the reader can pick any leaf),
 * the leaf it was exported at, and a few facts about the file. It travels inside the page as JSON
 * in a `<script type="application/json">` element; the page's own script reads it back through
 * `parseExportPageData`. Shared by the exporter (Node) and the page (browser), so it imports
 * nothing but types.
 */
import type { SessionEntry } from "../session/types";

/** The id of the element holding the session JSON. */
export const EXPORT_DATA_ELEMENT_ID = "arbor-session-data";
/** The id of the element the page draws into. */
export const EXPORT_APP_ELEMENT_ID = "app";
/** Bumped when the shape below changes incompatibly. */
export const EXPORT_DATA_VERSION = 1;

export interface ExportedSession {
  id: string;
  /** The session's name (last session_info), or null. */
  name: string | null;
  /** The header's working folder. */
  cwd: string;
  /** The header's timestamp. */
  startedAt: string;
  /** The session file's base name (never its full path: the export is meant to be shared). */
  fileName: string | null;
}

export interface ExportPageData {
  version: typeof EXPORT_DATA_VERSION;
  /** "Arbor 0.1.0": who wrote the page. */
  generator: string;
  /** ISO-8601. */
  exportedAt: string;
  session: ExportedSession;
  /** The leaf the page opens on; null for an empty path. */
  leafId: string | null;
  /** Every entry of the file, in file order (the tree needs all of them, the transcript the path). */
  entries: SessionEntry[];
  /** The labels in effect (the last label entry per target wins, over the whole file). */
  labels: { targetId: string; label: string }[];
  /** Lines of the file that could not be read (reported, not exported). */
  badLines: number;
}

/**
 * JSON that can sit inside a `<script type="application/json">` element, whatever the session
 * holds: `<`, `>` and `&` never appear literally (they are written as `\u003c`...), so no text can
 * close the element, open a comment or start a tag; U+2028/U+2029 are escaped too, for any reader
 * that evaluates the text as JavaScript. JSON.parse reads it back unchanged.
 */
export function encodeExportData(data: ExportPageData): string {
  return JSON.stringify(data).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

type Fields = { readonly [key: string]: unknown };

function isRecord(x: unknown): x is Fields {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

const isString = (x: unknown): x is string => typeof x === "string";
const isNullableString = (x: unknown): x is string | null => x === null || typeof x === "string";

/** An entry the page can place in the tree: a string id and type, a string or null parent. */
function isEntryShape(x: unknown): x is SessionEntry {
  return isRecord(x) && isString(x.id) && x.id.length > 0 && isString(x.type) && isNullableString(x.parentId ?? null);
}

/**
 * Validates the page's data at the boundary (the page trusts nothing it did not check). Returns
 * the data, or an error message. Entries without an id or type are dropped rather than failing
 * the whole page, as the session reader drops lines it cannot place.
 */
export function parseExportPageData(x: unknown): ExportPageData | string {
  if (!isRecord(x)) return "the session data is not an object";
  if (x.version !== EXPORT_DATA_VERSION) return `unsupported export data version ${String(x.version)}`;
  const s = x.session;
  if (!isRecord(s) || !isString(s.id) || !isNullableString(s.name) || !isString(s.cwd) || !isString(s.startedAt) || !isNullableString(s.fileName)) {
    return "the session header is malformed";
  }
  if (!isNullableString(x.leafId)) return "the leaf id is malformed";
  if (!Array.isArray(x.entries)) return "the entries are missing";
  if (!Array.isArray(x.labels)) return "the labels are missing";
  const labels = x.labels.filter((l): l is { targetId: string; label: string } => isRecord(l) && isString(l.targetId) && isString(l.label));
  return {
    version: EXPORT_DATA_VERSION,
    generator: isString(x.generator) ? x.generator : "",
    exportedAt: isString(x.exportedAt) ? x.exportedAt : "",
    session: { id: s.id, name: s.name, cwd: s.cwd, startedAt: s.startedAt, fileName: s.fileName },
    leafId: x.leafId,
    entries: x.entries.filter(isEntryShape),
    labels,
    badLines: typeof x.badLines === "number" && Number.isFinite(x.badLines) ? x.badLines : 0,
  };
}
