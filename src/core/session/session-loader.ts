import { promises as fs } from "node:fs";
import { EntryStore } from "./entry-store";
import { SessionError, type LineProblem } from "./errors";
import { ioError } from "./file-io";
import { parseChunk, tornLineProblem, type RawLine } from "./line-parser";
import { migrateLines } from "./migrate";
import { CURRENT_SESSION_VERSION, type SessionHeader } from "./types";

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
}

/** How much of a file is parsed between two yields to the event loop. */
const SLICE_BYTES = 8 * 1024 * 1024;

function isHeader(value: Record<string, unknown>): boolean {
  return value.type === "session" && typeof value.id === "string";
}

/**
 * Reads a session file. Never writes: a file in an old format is migrated in memory only, bad
 * lines are reported and skipped, and an empty file or one without a session header is refused
 * with a clear error (never truncated).
 */
export async function loadSession(path: string): Promise<LoadedSession> {
  let buf: Buffer;
  let ino: number;
  let dev: number;
  try {
    const st = await fs.stat(path);
    if (!st.isFile()) throw new SessionError("not-a-file", `${path} is ${st.isDirectory() ? "a directory" : "not a regular file"}, not a session file`, path);
    ino = st.ino;
    dev = st.dev;
    buf = await fs.readFile(path);
  } catch (err) {
    throw err instanceof SessionError ? err : ioError(err, "read", path);
  }
  const store = new EntryStore();
  const problems: LineProblem[] = [];
  let header: SessionHeader | undefined;
  let fileVersion = CURRENT_SESSION_VERSION;
  let notHeader: number | undefined;
  const v1Lines: RawLine[] = [];
  // Lines are indexed as they are parsed; only v1 files (no ids yet) are collected for migration.
  // A large file is parsed in slices that end on a line break, yielding between them so that the
  // extension host stays responsive while a 100 MB session opens.
  let part = buf;
  const visit = (l: RawLine) => {
    if (!header) {
      if (notHeader !== undefined) return;
      if (!isHeader(l.value)) {
        notHeader = l.line;
        return;
      }
      header = l.value as unknown as SessionHeader;
      fileVersion = typeof header.version === "number" ? header.version : 1;
      store.migrateOnParse = fileVersion < CURRENT_SESSION_VERSION;
      return;
    }
    if (l.value.type === "session") return;
    if (fileVersion < 2) v1Lines.push(l);
    else addTo(store, problems, l.value, l.line, { buf: part, start: l.start, end: l.end });
  };
  let sliceStart = 0;
  let nextLine = 1;
  let chunk = parseChunk(Buffer.alloc(0), 1, true);
  const chunkProblems: LineProblem[] = [];
  for (;;) {
    let sliceEnd = Math.min(buf.length, sliceStart + SLICE_BYTES);
    if (sliceEnd < buf.length) {
      const nl = buf.indexOf(0x0a, sliceEnd);
      sliceEnd = nl < 0 ? buf.length : nl + 1;
    }
    part = buf.subarray(sliceStart, sliceEnd);
    chunk = parseChunk(part, nextLine, sliceEnd === buf.length, visit);
    chunkProblems.push(...chunk.problems);
    nextLine += chunk.consumedLines;
    if (sliceEnd === buf.length) break;
    sliceStart = sliceEnd;
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (!header && notHeader === undefined && chunkProblems.length === 0) {
    throw new SessionError("empty", `Session file is empty: ${path}`, path);
  }
  if (!header) {
    const where = notHeader !== undefined ? `line ${notHeader}` : "no line";
    throw new SessionError("bad-header", `Not a Pi session file (${where} is not a session header): ${path}`, path);
  }
  problems.push(...chunkProblems);
  if (fileVersion < 2) {
    // v1 entries have no ids: they are given ids here, in memory, and kept parsed.
    migrateLines([header as unknown as Record<string, unknown>, ...v1Lines.map((l) => l.value)]);
    for (const l of v1Lines) addTo(store, problems, l.value, l.line);
  }
  // The last slice holds the end of the file: where reading its growth resumes.
  let offset = sliceStart + chunk.consumedBytes;
  let lineCount = nextLine - 1;
  if (chunk.unterminatedEntry) {
    offset = buf.length;
    lineCount += 1;
  } else if (chunk.pendingBytes > 0) {
    problems.push(tornLineProblem(lineCount + 1, buf.toString("utf8", offset)));
  }
  problems.sort((a, b) => a.line - b.line);
  return {
    header,
    store,
    problems,
    offset,
    lineCount,
    unterminated: buf.length > 0 && buf[buf.length - 1] !== 0x0a,
    fileVersion,
    ino,
    dev,
  };
}

function addTo(
  store: EntryStore,
  problems: LineProblem[],
  value: Record<string, unknown>,
  line: number,
  raw?: { buf: Buffer; start: number; end: number },
): void {
  const result = store.add(value, line, raw);
  if ("kind" in result) problems.push(result);
}
