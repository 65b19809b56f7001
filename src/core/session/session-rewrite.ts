import { promises as fs } from "node:fs";
import type { EntryStore } from "./entry-store";
import { ioError } from "./file-io";
import { generateEntryId } from "./ids";
import type { LoadedSession } from "./session-loader";
import { CURRENT_SESSION_VERSION, type LabelEntry, type SessionEntry } from "./types";

/**
 * The file's text brought to the current format, line for line: entries are written migrated
 * (with the ids of `idsFrom`, so that ids already handed out stay valid), the header gets the
 * current version, and every other line (bad lines, blank lines) is kept exactly as it was.
 * With `dropHeader`, the header line is left out (for a fork that writes its own).
 */
export async function migratedFileText(
  path: string,
  loaded: LoadedSession,
  opts: { dropHeader: boolean; idsFrom?: EntryStore },
): Promise<string> {
  let text: string;
  try {
    text = await fs.readFile(path, "utf8");
  } catch (err) {
    throw ioError(err, "read", path);
  }
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const store = opts.idsFrom ?? loaded.store;
  const oldFormat = loaded.fileVersion < CURRENT_SESSION_VERSION;
  const byLine = new Map<number, SessionEntry>();
  if (oldFormat) for (const r of store.all()) if (r.summary.line > 0) byLine.set(r.summary.line, store.materialize(r));
  let headerSeen = false;
  const out: string[] = [];
  lines.forEach((line, i) => {
    const lineNo = i + 1;
    if (!headerSeen && isHeaderLine(line)) {
      headerSeen = true;
      if (!opts.dropHeader) out.push(JSON.stringify({ ...loaded.header, version: CURRENT_SESSION_VERSION }));
      return;
    }
    const entry = byLine.get(lineNo);
    out.push(entry ? JSON.stringify(entry) : line);
  });
  return out.length ? `${out.join("\n")}\n` : "";
}

function isHeaderLine(line: string): boolean {
  try {
    const v = JSON.parse(line) as { type?: unknown; id?: unknown };
    return v.type === "session" && typeof v.id === "string";
  } catch {
    return false;
  }
}

/**
 * The entries of a fork at the end of `pathIds`: the path without its label entries (still one
 * unbroken chain), then one fresh label entry (chained under the path) for each label whose target
 * is on the path, with the label's own timestamp.
 */
export function branchedLines(store: EntryStore, pathIds: string[]): SessionEntry[] {
  // Label entries sit on the path (a label is appended under the leaf like any entry). Pi 0.73.1
  // drops them and leaves the next entry pointing at a parent that is no longer in the file, which
  // cuts the fork's history off; here that entry is re-pointed to the nearest kept ancestor.
  const path: SessionEntry[] = [];
  const dropped = new Set<string>();
  for (const id of pathIds) {
    const e = store.entry(id)!;
    if (e.type === "label") {
      dropped.add(e.id);
      continue;
    }
    const previous = path[path.length - 1];
    path.push(previous && e.parentId !== null && dropped.has(e.parentId) ? { ...e, parentId: previous.id } : e);
  }
  const ids = new Set(path.map((e) => e.id));
  let parentId = path.length ? path[path.length - 1]!.id : null;
  const labels: LabelEntry[] = [];
  for (const [targetId, { label, timestamp }] of store.labels()) {
    if (!ids.has(targetId)) continue;
    const id = generateEntryId(ids);
    ids.add(id);
    labels.push({ type: "label", id, parentId, timestamp, targetId, label });
    parentId = id;
  }
  return [...path, ...labels];
}
