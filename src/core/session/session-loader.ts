import { closeSync, fstatSync } from "node:fs";
import { BodyReader } from "./body-reader";
import { readLines } from "./chunked-lines";
import { EntryStore } from "./entry-store";
import { SessionError, type LineProblem } from "./errors";
import { ioError } from "./file-io";
import { LineIngest } from "./line-ingest";
import { tooLongProblem, tornLineProblem } from "./line-parser";
import { migrateLines } from "./migrate";
import { openRegularFd } from "./session-file-check";
import type { SessionHeader } from "./types";

/** Identity of a file's contents as last read (for the live tail and the reopen index). */
export interface FileStamp {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

/** A session file read into an index, with what is needed to keep reading it as it grows. */
export interface LoadedSession {
  header: SessionHeader;
  store: EntryStore;
  problems: LineProblem[];
  /** Bytes read as complete lines: where reading the file's growth resumes. */
  offset: number;
  /** Lines counted up to offset. */
  lineCount: number;
  /** The file's last byte is not a newline (a torn or unterminated last line). */
  unterminated: boolean;
  /** The format version the file was written in (before in-memory migration). */
  fileVersion: number;
  ino: number;
  /** The device of the file read (with `ino`, which file the path named). */
  dev: number;
  /** The file as it was when read (size: the bytes that were read). */
  stamp: FileStamp;
}

/**
 * Reads a session file into an index. Never writes: a file in an old format is migrated in
 * memory only, bad lines are reported and skipped, and an empty file or one without a session
 * header is refused with a clear error (never truncated).
 *
 * Message lines become skeletons read straight from the bytes (their bodies stay in the file and
 * are read back on demand through the store's reader, which keeps the file open); the file is
 * read in chunks, never whole, so memory grows with the number of entries, not the file's size.
 */
export async function loadSession(path: string): Promise<LoadedSession> {
  let fd: number;
  let stamp: FileStamp;
  try {
    // What the path is, before any open (a FIFO must not hang the read); then the open file again.
    fd = await openRegularFd(path);
  } catch (err) {
    throw err instanceof SessionError ? err : ioError(err, "read", path);
  }
  try {
    const st = fstatSync(fd);
    stamp = { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
  } catch (err) {
    closeSync(fd);
    throw err instanceof SessionError ? err : ioError(err, "read", path);
  }
  const store = new EntryStore();
  store.reader = BodyReader.open(path, fd);
  try {
    return await readInto(path, store, new LineIngest(store), stamp, 0, 1);
  } catch (err) {
    store.reader.close();
    throw err instanceof SessionError ? err : ioError(err, "read", path);
  }
}

/**
 * Reads bytes [from, stamp.size) of a file into `ingest` (lines numbered from `firstLine`) and
 * finishes the index: the header check, version-1 migration, the torn or unterminated last line.
 */
export async function readInto(path: string, store: EntryStore, ingest: LineIngest, stamp: FileStamp, from: number, firstLine: number): Promise<LoadedSession> {
  const fd = store.reader!.descriptor;
  const read = await readLines(fd, from, stamp.size, firstLine, (buf, words, s, e, lineNo, fileOffset) => {
    ingest.take(buf, words, s, e, lineNo, fileOffset);
    return ingest.stopped;
  }, (head, lineNo, _fileOffset, length) => {
    // Past the engine's string limit (issue 9.5): a bad line like any other, reported and kept.
    ingest.problems.push(tooLongProblem(lineNo, length, head));
    return ingest.stopped;
  });
  let offset = from + read.consumedBytes;
  let lineCount = firstLine - 1 + read.consumedLines;
  const problems = ingest.problems;
  let tornAt: number | undefined;
  if (!read.stopped && read.fragment.length > 0) {
    const text = read.fragment.toString("utf8");
    if (ingest.takeFragment(text, lineCount + 1, offset, read.fragment.length)) {
      offset += read.fragment.length;
      lineCount += 1;
    } else if (!/^[ \t\r]*$/.test(text)) tornAt = lineCount + 1;
  }
  const header = ingest.header;
  if (!header && ingest.notHeader === undefined && problems.length === 0) {
    throw new SessionError("empty", `Session file is empty: ${path}`, path);
  }
  if (!header) {
    const where = ingest.notHeader !== undefined ? `line ${ingest.notHeader}` : "no line";
    throw new SessionError("bad-header", `Not a Pi session file (${where} is not a session header): ${path}`, path);
  }
  if (ingest.fileVersion < 2 && ingest.v1Lines.length > 0) {
    // v1 entries have no ids: they are given ids here, in memory, and kept parsed.
    migrateLines([header as unknown as Record<string, unknown>, ...ingest.v1Lines.map((l) => l.value)]);
    for (const l of ingest.v1Lines) {
      const added = store.add(l.value, l.line);
      if (typeof added !== "number") problems.push(added);
    }
    ingest.v1Lines.length = 0;
  }
  if (tornAt !== undefined) problems.push(tornLineProblem(tornAt, read.fragment.toString("utf8")));
  problems.sort((a, b) => a.line - b.line);
  const lastByte = stamp.size > 0 ? lastByteOf(store, stamp.size) : undefined;
  return {
    header,
    store,
    problems,
    offset,
    lineCount,
    unterminated: lastByte !== undefined && lastByte !== 0x0a,
    fileVersion: ingest.fileVersion,
    ino: stamp.ino,
    dev: stamp.dev,
    stamp,
  };
}

function lastByteOf(store: EntryStore, size: number): number | undefined {
  try {
    return store.reader!.read(size - 1, 1)[0];
  } catch {
    return undefined;
  }
}
