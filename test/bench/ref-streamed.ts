/**
 * The reference's answers on a file it cannot open: past V8's string limit its SessionManager
 * fails to read the file (it reads it into one string). So that the bench can still check Arbor's
 * results on such a file against the reference's semantics, this reads the lines itself, in
 * chunks (the documented rules: one JSON value per line, blank and malformed lines skipped, a
 * session header first), and hands the entries to the reference's own code: its migration, its
 * index, its tree and its context. Used only to check results, never timed against anything.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { findReferencePackageDir, loadReferenceSessionManager, type RefSessionManager } from "./reference";

type FileEntry = { type?: unknown; id?: unknown; cwd?: unknown };

/** Every entry of `file`, the header first; [] when the first entry is not a session header. */
function readEntries(file: string): FileEntry[] {
  const fd = fs.openSync(file, "r");
  const entries: FileEntry[] = [];
  const chunk = Buffer.alloc(16 * 1024 * 1024);
  let carry: Buffer = Buffer.alloc(0);
  const take = (line: Buffer) => {
    const text = line.toString("utf8");
    if (!text.trim()) return;
    try {
      entries.push(JSON.parse(text) as FileEntry);
    } catch {
      // a malformed line is skipped, as the reference skips it
    }
  };
  try {
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      const data = carry.length ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
      let start = 0;
      for (let nl = data.indexOf(10, start); nl >= 0; nl = data.indexOf(10, start)) {
        take(data.subarray(start, nl));
        start = nl + 1;
      }
      carry = Buffer.from(data.subarray(start));
    }
    if (carry.length) take(carry);
  } finally {
    fs.closeSync(fd);
  }
  const header = entries[0];
  return header && header.type === "session" && typeof header.id === "string" ? entries : [];
}

/** The reference's SessionManager class internals this needs (not part of its typed API). */
interface RefInternals {
  fileEntries: FileEntry[];
  sessionId: string;
  _buildIndex(): void;
}

/** A reference SessionManager (in memory, never written) holding every entry of `file`. */
export async function openReferenceStreamed(file: string): Promise<RefSessionManager> {
  const SessionManager = await loadReferenceSessionManager();
  const mod = (await import(pathToFileURL(path.join(findReferencePackageDir(), "dist", "core", "session-manager.js")).href)) as {
    migrateSessionEntries(entries: FileEntry[]): void;
  };
  const entries = readEntries(file);
  if (entries.length === 0) throw new Error(`${file}: no session header`);
  const header = entries[0]!;
  const sm = SessionManager.inMemory(typeof header.cwd === "string" ? header.cwd : process.cwd());
  const internals = sm as unknown as RefInternals;
  if (!Array.isArray(internals.fileEntries) || typeof internals._buildIndex !== "function") {
    throw new Error("the reference's SessionManager changed its internals; fix test/bench/ref-streamed.ts");
  }
  mod.migrateSessionEntries(entries);
  internals.fileEntries = entries;
  internals.sessionId = header.id as string;
  internals._buildIndex();
  return sm;
}
