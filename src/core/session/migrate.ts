import { generateEntryId } from "./ids";
import { CURRENT_SESSION_VERSION } from "./types";

/**
 * Brings parsed file lines (header first) to the current format version, in place.
 * v1 -> v2: entries get ids and a parent chain in file order; a compaction's
 * `firstKeptEntryIndex` (an index into all parsed lines, header = 0) becomes `firstKeptEntryId`.
 * v2 -> v3: the message role `hookMessage` becomes `custom`.
 * Returns the version the lines had.
 */
export function migrateLines(lines: Record<string, unknown>[]): number {
  const header = lines.find((l) => l.type === "session");
  const version = typeof header?.version === "number" ? header.version : 1;
  if (version >= CURRENT_SESSION_VERSION) return version;
  if (version < 2) {
    const ids = new Set<string>();
    let previous: string | null = null;
    for (const line of lines) {
      if (line.type === "session") continue;
      const id = generateEntryId(ids);
      ids.add(id);
      line.id = id;
      line.parentId = previous;
      previous = id;
      // Resolved in the same pass, as Pi does: an index that points forward finds no id yet.
      if (line.type === "compaction" && typeof line.firstKeptEntryIndex === "number") {
        const target = lines[line.firstKeptEntryIndex];
        if (target && target.type !== "session") line.firstKeptEntryId = target.id;
        delete line.firstKeptEntryIndex;
      }
    }
  }
  for (const line of lines) {
    if (line.type === "session") continue;
    migrateEntryToV3(line);
  }
  for (const line of lines) if (line.type === "session") line.version = CURRENT_SESSION_VERSION;
  return version;
}

/** The v2 -> v3 step for one entry (used when entries of a v2 file are parsed lazily). */
export function migrateEntryToV3(entry: Record<string, unknown>): void {
  if (entry.type !== "message") return;
  const message = entry.message as { role?: unknown } | undefined;
  if (message && message.role === "hookMessage") message.role = "custom";
}
