import { closeSync, fstatSync, type Stats } from "node:fs";
import { BodyReader } from "./body-reader";
import { readLines } from "./chunked-lines";
import { runStepsInSlices, turn } from "../util/steps";
import { EntryStore } from "./entry-store";
import { SessionError, type LineProblem } from "./errors";
import { ioError } from "./file-io";
import { LineIngest } from "./line-ingest";
import { tooLongProblem, tornLineProblem } from "./line-parser";
import { migrateLines } from "./migrate";
import { openRegularFd } from "./session-file-check";
import { INDEX_DEFAULT_MIN_BYTES, indexDirOf, judgeIndex, readIndex, snapshotForIndex, waitForIndexWrite, writeIndex, type IndexOptions, type IndexUse } from "./session-index";
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
  /** How the reopen index was used. */
  indexUse: IndexUse;
  /** Settles when the reopen index made by this load is saved (or failed to be). */
  indexWritten?: Promise<void>;
}

export interface LoadOptions {
  /** The reopen index (default: on, in Arbor's cache folder, for files of 1 MiB and more). */
  index?: IndexOptions | false;
  /** Stops the read between two chunks of the file; the load then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Asked between two chunks of the file: a promise holds the read until it settles. */
  pause?: () => Promise<void> | undefined;
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
export async function loadSession(path: string, opts: LoadOptions = {}): Promise<LoadedSession> {
  let fd: number;
  let st: Stats;
  try {
    // What the path is, before any open (a FIFO must not hang the read); then the open file again.
    fd = await openRegularFd(path);
  } catch (err) {
    throw err instanceof SessionError ? err : ioError(err, "read", path);
  }
  try {
    st = fstatSync(fd);
  } catch (err) {
    closeSync(fd);
    throw err instanceof SessionError ? err : ioError(err, "read", path);
  }
  const stamp: FileStamp = { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
  const reader = BodyReader.open(path, fd);
  try {
    const dir = indexDirOf(opts.index);
    const minBytes = (opts.index === false ? undefined : opts.index?.minBytes) ?? INDEX_DEFAULT_MIN_BYTES;
    let use: IndexUse = dir !== undefined && st.size >= minBytes ? "none" : "off";
    let loaded: LoadedSession | undefined;
    if (use === "none") {
      await waitForIndexWrite(path, dir!);
      const saved = await readIndex(path, dir!);
      if (saved.found && !saved.data) use = "corrupt";
      else if (saved.data) {
        const data = saved.data;
        use = judgeIndex(data, path, st, fd);
        if (use === "unchanged") {
          const store = await runStepsInSlices(EntryStore.restoreSteps(data.columns, reader));
          loaded = {
            header: data.header,
            store,
            problems: data.problems.slice(),
            offset: data.offset,
            lineCount: data.lineCount,
            unterminated: data.unterminated,
            fileVersion: data.fileVersion,
            ino: st.ino,
            dev: st.dev,
            stamp,
            indexUse: use,
          };
        } else if (use === "grown") {
          // Only the new bytes are read; a torn last line of the indexed part is read again.
          const store = await runStepsInSlices(EntryStore.restoreSteps(data.columns, reader));
          const ingest = new LineIngest(store);
          ingest.resume(data.header, data.fileVersion);
          ingest.problems.push(...data.problems.filter((p) => p.line <= data.lineCount));
          loaded = { ...(await readInto(path, store, ingest, stamp, data.offset, data.lineCount + 1, opts)), indexUse: use };
        }
      }
    }
    if (!loaded) {
      const store = new EntryStore();
      store.reader = reader;
      loaded = { ...(await readInto(path, store, new LineIngest(store), stamp, 0, 1, opts)), indexUse: use };
    }
    opts.signal?.throwIfAborted();
    if (dir !== undefined && use !== "off" && use !== "unchanged") {
      // Taken before the open returns (in slices), while nothing can change the store.
      const snapshot = await snapshotForIndex(path, st, fd, { ...loaded, size: stamp.size });
      if (snapshot) {
        // Saved after the caller has its session: an open never waits for the cache.
        loaded.indexWritten = new Promise<void>((done) => setImmediate(done)).then(() => writeIndex(snapshot, dir)).catch(() => undefined);
      }
    }
    return loaded;
  } catch (err) {
    reader.close();
    if (opts.signal?.aborted && err === opts.signal.reason) throw err;
    throw err instanceof SessionError ? err : ioError(err, "read", path);
  }
}

/** Lines read before the store makes room for the rest of a large file. */
const ESTIMATE_AFTER_LINES = 4096;
/** A bound on that estimate: a file of a few huge lines, then tiny ones, could ask for far too much. */
const MAX_RESERVE = 1 << 24;

/**
 * Reads bytes [from, stamp.size) of a file into `ingest` (lines numbered from `firstLine`) and
 * finishes the index: the header check, version-1 migration, the torn or unterminated last line.
 */

export async function readInto(path: string, store: EntryStore, ingest: LineIngest, stamp: FileStamp, from: number, firstLine: number, control: Pick<LoadOptions, "signal" | "pause"> = {}): Promise<Omit<LoadedSession, "indexUse">> {
  const fd = store.reader!.descriptor;
  // A large file read from its start: once its first lines show how long they run, the store makes
  // room for the rest, one column between two chunks, each in a task of its own (see EntryStore.reserveStep).
  let room = 0;
  let linesSeen = 0;
  let bytesSeen = 0;
  const between = async (): Promise<void> => {
    await control.pause?.();
    if (from !== 0 || room < 0) return;
    if (room === 0) {
      if (linesSeen < ESTIMATE_AFTER_LINES) return;
      // The entries so far, scaled by the bytes still to come (and a little more).
      room = Math.min(MAX_RESERVE, Math.ceil((store.size * stamp.size * 1.05) / Math.max(1, bytesSeen)));
      if (room < 2 * store.size) {
        room = -1;
        return;
      }
    }
    await turn();
    if (!store.reserveStep(room)) room = -1;
    await turn();
  };
  const read = await readLines(fd, from, stamp.size, firstLine, (buf, words, s, e, lineNo, fileOffset) => {
    ingest.take(buf, words, s, e, lineNo, fileOffset);
    linesSeen = lineNo - firstLine + 1;
    bytesSeen = fileOffset + e - s + 1 - from;
    return ingest.stopped || control.signal?.aborted;
  }, (head, lineNo, _fileOffset, length) => {
    // Past the engine's string limit (issue 9.5): a bad line like any other, reported and kept.
    ingest.problems.push(tooLongProblem(lineNo, length, head));
    return ingest.stopped;
  }, between);
  store.endReserve();
  control.signal?.throwIfAborted();
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
