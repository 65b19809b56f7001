import { promises as fs } from "node:fs";
import type { EntryStore } from "./entry-store";
import type { FileSink } from "./atomic-write";
import { ioError } from "./file-io";
import { generateEntryId } from "./ids";
import type { LoadedSession } from "./session-loader";
import { CURRENT_SESSION_VERSION, type LabelEntry, type SessionEntry } from "./types";

/** How much of the source is read at once. */
const READ_BYTES = 1024 * 1024;
/** A line longer than this before the header is seen is copied as it is (no header is that long). */
const HEADER_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Writes the file brought to the current format into `sink`, line for line, reading it in
 * chunks: entries are written migrated (with the ids of `idsFrom`, so that ids already handed
 * out stay valid), the header gets the current version, and every other line (bad lines, blank
 * lines, lines past the engine's string limit) is copied byte for byte without ever becoming a
 * string. With `dropHeader`, the header line is left out (for a fork that writes its own). An
 * unterminated last line gets its newline. Resolves to the number of bytes of the file read (up
 * to its end as it was when the read finished).
 */
export async function writeMigratedLines(
  path: string,
  loaded: LoadedSession,
  sink: FileSink,
  opts: { dropHeader: boolean; idsFrom?: EntryStore },
): Promise<number> {
  const store = opts.idsFrom ?? loaded.store;
  const byLine = loaded.fileVersion < CURRENT_SESSION_VERSION ? entriesByLine(store) : new Map<number, () => SessionEntry>();
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(path, "r");
  } catch (err) {
    throw ioError(err, "read", path);
  }
  try {
    let headerSeen = false;
    let lineNo = 1;
    let mode: "replace" | "collect" | "copy" | undefined; // undefined: at the start of a line
    let parts: Buffer[] = [];
    let collected = 0;
    const startLine = () => {
      mode = byLine.has(lineNo) ? "replace" : headerSeen ? "copy" : "collect";
      parts = [];
      collected = 0;
    };
    const endLine = async () => {
      if (mode === "replace") await sink.writeLine(JSON.stringify(byLine.get(lineNo)!()));
      else if (mode === "copy") await sink.endLine();
      else {
        const line = Buffer.concat(parts);
        if (isHeaderLine(line)) {
          headerSeen = true;
          if (!opts.dropHeader) await sink.writeLine(JSON.stringify({ ...loaded.header, version: CURRENT_SESSION_VERSION }));
        } else {
          await sink.write(line);
          await sink.endLine();
        }
      }
      mode = undefined;
      lineNo++;
    };
    const take = async (bytes: Buffer) => {
      if (mode === "copy") return sink.write(bytes);
      if (mode !== "collect") return; // a replaced line: its old bytes are not needed
      parts.push(bytes);
      collected += bytes.length;
      if (collected > HEADER_MAX_BYTES) {
        mode = "copy";
        for (const p of parts) await sink.write(p);
        parts = [];
      }
    };
    let pos = 0;
    for (;;) {
      // A fresh buffer per read: collected parts keep pointing into the ones before.
      const buf = Buffer.allocUnsafe(READ_BYTES);
      let n: number;
      try {
        n = (await handle.read(buf, 0, buf.length, pos)).bytesRead;
      } catch (err) {
        throw ioError(err, "read", path);
      }
      if (n === 0) break;
      pos += n;
      for (let at = 0; at < n; ) {
        if (mode === undefined) startLine();
        const nl = buf.indexOf(0x0a, at);
        const end = nl < 0 || nl >= n ? n : nl;
        if (end > at) await take(buf.subarray(at, end));
        if (end === n) break;
        await endLine();
        at = end + 1;
      }
    }
    if (mode !== undefined) await endLine();
    return pos;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The entries of a file in an old format by line number, each parsed only when it is written. */
function entriesByLine(store: EntryStore): Map<number, () => SessionEntry> {
  const byLine = new Map<number, () => SessionEntry>();
  for (let i = 0; i < store.size; i++) if (store.lineAt(i) > 0) byLine.set(store.lineAt(i), () => store.entryAt(i));
  return byLine;
}

function isHeaderLine(line: Buffer): boolean {
  try {
    const v = JSON.parse(line.toString("utf8")) as { type?: unknown; id?: unknown };
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
