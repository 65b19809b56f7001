import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { writeFileAtomic } from "./file-io";
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

function defaultIndexDir(): string {
  const base = process.env.XDG_CACHE_HOME?.trim() || join(homedir(), ".cache");
  return join(base, "arbor");
}

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

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((b): b is { type: "text"; text: string } => !!b && b.type === "text" && typeof b.text === "string")
    .map((b) => b.text)
    .join(" ");
}

/** Reads the lines of `buf` into the scan state, taking the cheap path where a line's shape allows. */
function scanLines(buf: Buffer, state: ScanState | null, atStart: boolean, base: number): ScanState | null {
  let pos = 0;
  let first = atStart;
  while (pos < buf.length) {
    const nl = buf.indexOf(0x0a, pos);
    if (nl < 0) break;
    const start = pos;
    pos = nl + 1;
    if (nl === start) continue;
    if (!first && state) {
      const head = buf.toString("latin1", start, Math.min(nl, start + 200));
      const m = MESSAGE_PREFIX.exec(head);
      if (m && (m[2] !== "user" || state.firstMessage)) {
        const relevant = m[2] === "user" || m[2] === "assistant";
        const t = relevant ? TRAILING_MS.exec(buf.toString("latin1", Math.max(start, nl - 40), nl)) : null;
        if (!relevant || t) {
          state.messageCount++;
          if (t) state.lastActivity = Math.max(state.lastActivity ?? 0, Number(t[1]));
          state.offset = base + pos;
          continue;
        }
      }
    }
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(buf.toString("utf8", start, nl)) as Record<string, unknown>;
    } catch {
      if (state) state.badLines++;
      if (state) state.offset = base + pos;
      continue;
    }
    if (first) {
      first = false;
      if (value.type !== "session" || typeof value.id !== "string") return null;
      state = {
        id: value.id,
        cwd: typeof value.cwd === "string" ? value.cwd : "",
        created: String(value.timestamp ?? ""),
        parentSessionPath: typeof value.parentSession === "string" ? value.parentSession : undefined,
        messageCount: 0,
        firstMessage: "",
        labels: {},
        badLines: 0,
        offset: base + pos,
      };
      continue;
    }
    if (!state) return null;
    state.offset = base + pos;
    applyEntry(state, value);
  }
  return state;
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

async function scanFile(path: string, previous: IndexRecord | undefined, size: number, ino: number): Promise<ScanState | null> {
  // A file that only grew is read from where the last scan ended.
  const resume = previous?.state && previous.ino === ino && previous.size <= size && previous.state.offset <= size;
  const from = resume ? previous!.state!.offset : 0;
  const handle = await fs.open(path, "r");
  try {
    const buf = Buffer.alloc(size - from);
    const { bytesRead } = await handle.read(buf, 0, buf.length, from);
    const state = resume ? structuredClone(previous!.state!) : null;
    return scanLines(buf.subarray(0, bytesRead), state, !resume, from);
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
    firstMessage: state.firstMessage || "(no messages)",
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
    names.map(async (name, position) => {
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
    }),
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
