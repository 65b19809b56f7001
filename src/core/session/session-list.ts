import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { join, resolve } from "node:path";
import { defaultCacheDir } from "./cache-dir";
import { writeFileAtomic } from "./file-io";
import { openRegularFile } from "./session-file-check";
import { resolveExplicitSessionDir, resolveSessionsRoot, sessionDirForCwd, type SessionLocationOptions } from "./paths";

/** What a session list shows about one session file. */
export interface SessionInfo {
  path: string;
  id: string;
  /** The header's working directory ("" for old sessions without one). */
  cwd: string;
  name?: string;
  parentSessionPath?: string;
  created: Date;
  /** Newest user/assistant message time, else the header time, else the file's mtime. */
  modified: Date;
  /** Number of `message` entries. */
  messageCount: number;
  /** The first user message's text, or "(no messages)". */
  firstMessage: string;
  /** Current labels in this session (for search). */
  labels: string[];
  /** Lines that could not be read. */
  badLines: number;
  size: number;
}

export interface ListOptions extends SessionLocationOptions {
  /** Where the listing index lives; false turns it off. Default: `$XDG_CACHE_HOME/arbor` or `~/.cache/arbor`. */
  indexDir?: string | false;
  onProgress?: (loaded: number, total: number) => void;
}

/** Per-file scan state, kept in the index so that a grown file is read only from where it ended. */
interface ScanState {
  id: string;
  cwd: string;
  created: string;
  parentSessionPath?: string;
  name?: string;
  messageCount: number;
  firstMessage: string;
  lastActivity?: number;
  labels: Record<string, string>;
  badLines: number;
  /** bytes read as complete lines */
  offset: number;
}

interface IndexRecord {
  size: number;
  mtimeMs: number;
  ino: number;
  state: ScanState | null;
}

interface IndexFile {
  version: 1;
  files: Record<string, IndexRecord>;
}

const INDEX_VERSION = 1;
const MESSAGE_PREFIX = /^\{"type":"message","id":"[^"\\]*","parentId":(?:null|"[^"\\]*"),"timestamp":"([^"\\]*)","message":\{"role":"([A-Za-z]+)"/;
const TRAILING_MS = /"timestamp":(\d+)\}\}\s*$/;

const defaultIndexDir = defaultCacheDir;

function indexPathFor(dir: string, opts: ListOptions): string | undefined {
  if (opts.indexDir === false) return undefined;
  const hash = createHash("sha256").update(resolve(dir)).digest("hex").slice(0, 16);
  return join(opts.indexDir ?? defaultIndexDir(), `list-index-${hash}.json`);
}

async function readIndex(path: string | undefined): Promise<IndexFile> {
  if (!path) return { version: INDEX_VERSION, files: {} };
  try {
    const parsed = JSON.parse(await fs.readFile(path, "utf8")) as IndexFile;
    if (parsed.version === INDEX_VERSION && parsed.files && typeof parsed.files === "object") return parsed;
  } catch {
    // Missing or damaged: the index is only a cache, start a new one.
  }
  return { version: INDEX_VERSION, files: {} };
}

/** The listing's `firstMessage` for a session without a user message (Pi lists the same). */
export const NO_MESSAGES = "(no messages)";

/** A user message's text as the listing reads it for `firstMessage` (its text blocks, joined). */
export function userMessageText(message: unknown): string {
  const m = message as { role?: unknown; content?: unknown } | undefined;
  return m && m.role === "user" && "content" in m ? textOf(m.content) : "";
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((b): b is { type: "text"; text: string } => !!b && b.type === "text" && typeof b.text === "string")
    .map((b) => b.text)
    .join(" ");
}

/**
 * Reads a file's lines into the scan state, one line at a time, taking the cheap path where a line's
 * shape allows. `rejected`: the file does not start with a session header.
 */
class LineScan {
  rejected = false;
  private first: boolean;

  constructor(
    public state: ScanState | null,
    atStart: boolean,
  ) {
    this.first = atStart;
  }

  /** The line `buf[start, nl)`; `end` is the file offset just after its newline. */
  line(buf: Buffer, start: number, nl: number, end: number): void {
    if (nl === start) return;
    const state = this.state;
    if (!this.first && state) {
      const head = buf.toString("latin1", start, Math.min(nl, start + 200));
      const m = MESSAGE_PREFIX.exec(head);
      if (m && (m[2] !== "user" || state.firstMessage)) {
        const relevant = m[2] === "user" || m[2] === "assistant";
        const t = relevant ? TRAILING_MS.exec(buf.toString("latin1", Math.max(start, nl - 40), nl)) : null;
        if (!relevant || t) {
          state.messageCount++;
          if (t) state.lastActivity = Math.max(state.lastActivity ?? 0, Number(t[1]));
          state.offset = end;
          return;
        }
      }
    }
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(buf.toString("utf8", start, nl)) as Record<string, unknown>;
    } catch {
      if (state) {
        state.badLines++;
        state.offset = end;
      }
      return;
    }
    if (this.first) {
      this.first = false;
      if (value.type !== "session" || typeof value.id !== "string") {
        this.rejected = true;
        return;
      }
      this.state = {
        id: value.id,
        cwd: typeof value.cwd === "string" ? value.cwd : "",
        created: String(value.timestamp ?? ""),
        parentSessionPath: typeof value.parentSession === "string" ? value.parentSession : undefined,
        messageCount: 0,
        firstMessage: "",
        labels: {},
        badLines: 0,
        offset: end,
      };
      return;
    }
    if (!state) {
      this.rejected = true;
      return;
    }
    state.offset = end;
    applyEntry(state, value);
  }

  /**
   * A line too long to hold whole (an image or a pasted log, up to gigabytes), judged from its first
   * and last bytes: a message is counted, with its time and, for a first user message, the start of
   * its text. Nothing else that long can matter to a listing.
   */
  longLine(head: Buffer, tail: Buffer, end: number): void {
    const state = this.state;
    // A session header is never that long: not a session file.
    if (this.first || !state) {
      this.rejected = true;
      return;
    }
    state.offset = end;
    const start = head.toString("latin1", 0, Math.min(head.length, 400));
    const type = /"type"\s*:\s*"([^"\\]*)"/.exec(start)?.[1];
    if (type !== "message") {
      if (type === undefined) state.badLines++;
      return;
    }
    state.messageCount++;
    const role = /"role"\s*:\s*"([A-Za-z]+)"/.exec(start)?.[1];
    if (role !== "user" && role !== "assistant") return;
    const t = TRAILING_MS.exec(tail.toString("latin1"));
    const stamp = t ? Number(t[1]) : new Date(/"timestamp"\s*:\s*"([^"\\]*)"/.exec(start)?.[1] ?? "").getTime();
    if (!Number.isNaN(stamp)) state.lastActivity = Math.max(state.lastActivity ?? 0, stamp);
    if (role === "user" && !state.firstMessage) state.firstMessage = leadingText(head);
  }
}

/** The start of a message's first text, decoded from the first bytes of its line. */
function leadingText(head: Buffer): string {
  const s = head.toString("utf8");
  const m = /"(?:text|content)"\s*:\s*"/g;
  m.lastIndex = Math.max(0, s.indexOf('"role"'));
  if (!m.exec(s)) return "";
  const escapes: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f" };
  let out = "";
  for (let i = m.lastIndex; i < s.length; i++) {
    const c = s[i]!;
    if (c === '"') break;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const n = s[i + 1];
    if (n === undefined) break;
    if (n === "u") {
      const hex = s.slice(i + 2, i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) break;
      out += String.fromCharCode(parseInt(hex, 16));
      i += 5;
    } else {
      out += escapes[n] ?? n;
      i++;
    }
  }
  return out;
}

function applyEntry(state: ScanState, value: Record<string, unknown>): void {
  if (value.type === "session_info") {
    state.name = typeof value.name === "string" && value.name.trim() ? value.name.trim() : undefined;
  } else if (value.type === "label" && typeof value.targetId === "string") {
    if (typeof value.label === "string" && value.label) state.labels[value.targetId] = value.label;
    else delete state.labels[value.targetId];
  } else if (value.type === "message") {
    state.messageCount++;
    const m = value.message as { role?: unknown; content?: unknown; timestamp?: unknown } | undefined;
    if (!m || (m.role !== "user" && m.role !== "assistant") || !("content" in m)) return;
    if (typeof m.timestamp === "number") state.lastActivity = Math.max(state.lastActivity ?? 0, m.timestamp);
    else if (typeof value.timestamp === "string") {
      const t = new Date(value.timestamp).getTime();
      if (!Number.isNaN(t)) state.lastActivity = Math.max(state.lastActivity ?? 0, t);
    }
    if (!state.firstMessage && m.role === "user") state.firstMessage = textOf(m.content);
  }
}

/** Bytes read from a file at a time while listing. */
const CHUNK_BYTES = 1 << 20;
/** A line longer than this is not held whole: only its first and last bytes are kept. */
const LONG_LINE_BYTES = 1 << 20;
const HEAD_BYTES = 64 << 10;
const TAIL_BYTES = 64;
/**
 * Files read at once, over all folders: with the sizes above, listing holds at most about
 * SCAN_CONCURRENCY x (chunk + line) = 4 x 2 MB of file bytes, however large the files and lines are.
 */
const SCAN_CONCURRENCY = 4;

let scanning = 0;
const waitingScans: (() => void)[] = [];

/** Runs `scan` when one of the SCAN_CONCURRENCY slots is free (a freed slot passes straight on). */
async function withScanSlot<T>(scan: () => Promise<T>): Promise<T> {
  if (scanning < SCAN_CONCURRENCY) scanning++;
  else await new Promise<void>((resolve) => waitingScans.push(resolve));
  try {
    return await scan();
  } finally {
    const next = waitingScans.shift();
    if (next) next();
    else scanning--;
  }
}

function lastBytes(kept: Buffer, more: Buffer): Buffer {
  if (more.length >= TAIL_BYTES) return Buffer.from(more.subarray(more.length - TAIL_BYTES));
  const both = Buffer.concat([kept, more]);
  return both.subarray(Math.max(0, both.length - TAIL_BYTES));
}

async function scanFile(path: string, previous: IndexRecord | undefined, size: number, ino: number): Promise<ScanState | null> {
  // A file that only grew is read from where the last scan ended.
  const resume = previous?.state && previous.ino === ino && previous.size <= size && previous.state.offset <= size;
  const from = resume ? previous!.state!.offset : 0;
  const scan = new LineScan(resume ? structuredClone(previous!.state!) : null, !resume);
  // Never a FIFO or a device, even one swapped in since the folder was read.
  const handle = await openRegularFile(path);
  try {
    const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK_BYTES, size - from)));
    // The line in progress: held whole while it is short, else only its head and tail.
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let long: { head: Buffer; tail: Buffer } | undefined;
    let at = from;
    while (at < size && !scan.rejected) {
      const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, size - at), at);
      if (bytesRead === 0) break;
      const data = chunk.subarray(0, bytesRead);
      const base = at;
      at += bytesRead;
      let pos = 0;
      while (pos < data.length && !scan.rejected) {
        const nl = data.indexOf(0x0a, pos);
        const stop = nl < 0 ? data.length : nl;
        const end = base + stop + 1;
        if (long) {
          long.tail = lastBytes(long.tail, data.subarray(pos, stop));
        } else if (pendingBytes + (stop - pos) > LONG_LINE_BYTES) {
          const head = Buffer.concat([...pending, data.subarray(pos, Math.min(stop, pos + HEAD_BYTES))], Math.min(HEAD_BYTES, pendingBytes + (stop - pos)));
          long = { head, tail: lastBytes(Buffer.concat(pending), data.subarray(pos, stop)) };
          pending = [];
          pendingBytes = 0;
        } else if (nl >= 0 && pendingBytes === 0) {
          scan.line(data, pos, nl, end);
        } else {
          // The chunk buffer is reused: keep a copy of the piece.
          pending.push(Buffer.from(data.subarray(pos, stop)));
          pendingBytes += stop - pos;
          if (nl >= 0) {
            const line = Buffer.concat(pending);
            pending = [];
            pendingBytes = 0;
            scan.line(line, 0, line.length, end);
          }
        }
        if (nl < 0) break;
        if (long) {
          scan.longLine(long.head, long.tail, end);
          long = undefined;
        }
        pos = nl + 1;
      }
    }
    return scan.rejected ? null : scan.state;
  } finally {
    await handle.close();
  }
}

function toInfo(path: string, state: ScanState, size: number, mtimeMs: number): SessionInfo {
  const headerTime = new Date(state.created).getTime();
  const modified =
    typeof state.lastActivity === "number" && state.lastActivity > 0
      ? new Date(state.lastActivity)
      : !Number.isNaN(headerTime)
        ? new Date(headerTime)
        : new Date(mtimeMs);
  const info: SessionInfo = {
    path,
    id: state.id,
    cwd: state.cwd,
    created: new Date(state.created),
    modified,
    messageCount: state.messageCount,
    firstMessage: state.firstMessage || NO_MESSAGES,
    labels: Object.values(state.labels),
    badLines: state.badLines,
    size,
  };
  if (state.name !== undefined) info.name = state.name;
  if (state.parentSessionPath !== undefined) info.parentSessionPath = state.parentSessionPath;
  return info;
}

/** Lists the session files of one folder, using (and refreshing) the listing index. */
export async function listSessionsInDir(dir: string, opts: ListOptions = {}): Promise<SessionInfo[]> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => n.endsWith(".jsonl"));
  } catch {
    return [];
  }
  const indexPath = indexPathFor(dir, opts);
  const index = await readIndex(indexPath);
  const next: IndexFile = { version: INDEX_VERSION, files: {} };
  let changed = Object.keys(index.files).length !== names.length;
  let loaded = 0;
  // Filled by position, so that sessions with the same time keep the folder's order (as Pi lists them).
  const found: (SessionInfo | undefined)[] = new Array(names.length);
  await Promise.all(
    names.map((name, position) => withScanSlot(async () => {
      const path = join(dir, name);
      try {
        const st = await fs.stat(path);
        if (!st.isFile()) return;
        const previous = index.files[name];
        let record = previous;
        if (!previous || previous.size !== st.size || previous.mtimeMs !== st.mtimeMs || previous.ino !== st.ino) {
          record = { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, state: await scanFile(path, previous, st.size, st.ino) };
          changed = true;
        }
        next.files[name] = record!;
        if (record!.state) found[position] = toInfo(path, record!.state, st.size, st.mtimeMs);
      } catch {
        // Vanished or unreadable while listing: left out this time.
      } finally {
        opts.onProgress?.(++loaded, names.length);
      }
    })),
  );
  if (changed && indexPath) {
    try {
      await fs.mkdir(opts.indexDir === undefined ? defaultIndexDir() : (opts.indexDir as string), { recursive: true });
      await writeFileAtomic(indexPath, JSON.stringify(next));
    } catch {
      // The index is a cache: failing to save it costs speed, not correctness.
    }
  }
  const infos = found.filter((i): i is SessionInfo => i !== undefined);
  return infos.sort((a, b) => b.modified.getTime() - a.modified.getTime());
}

/** The sessions of one working directory (its Pi folder, or the explicit sessions directory). */
export function listSessions(cwd: string, opts: ListOptions = {}): Promise<SessionInfo[]> {
  return listSessionsInDir(sessionDirForCwd(cwd, opts), opts);
}

/** The sessions of every working directory (and of the explicit sessions directory, if set). */
export async function listAllSessions(opts: ListOptions = {}): Promise<SessionInfo[]> {
  const root = resolveSessionsRoot(opts);
  const dirs: string[] = [];
  try {
    for (const d of await fs.readdir(root, { withFileTypes: true })) if (d.isDirectory()) dirs.push(join(root, d.name));
  } catch {
    // No sessions root yet.
  }
  const explicit = resolveExplicitSessionDir(opts);
  if (explicit && !dirs.includes(explicit)) dirs.push(explicit);
  const all = (await Promise.all(dirs.map((d) => listSessionsInDir(d, { ...opts, onProgress: undefined })))).flat();
  return all.sort((a, b) => b.modified.getTime() - a.modified.getTime());
}
