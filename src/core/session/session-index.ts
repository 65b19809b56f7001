import { createHash } from "node:crypto";
import { promises as fs, readSync, type Stats } from "node:fs";
import { join, resolve } from "node:path";
import { defaultCacheDir } from "./cache-dir";
import type { EntryStore } from "./entry-store";
import { writeFileAtomic } from "./file-io";
import { runStepsInSlices } from "../util/steps";
import { decodeIndexSteps, encodeIndexSteps, peekIndexKey, type IndexKey, type SessionIndexData } from "./index-codec";
import type { LineProblem } from "./errors";
import type { SessionHeader } from "./types";

/**
 * The reopen index: the structure of an opened session saved in Arbor's cache, so that opening
 * the same file again reads only the index (and, if the file grew, only its new bytes). An index
 * is keyed by the file's identity (device, inode), size, times and a hash of its last bytes; one
 * that does not match, or does not read back intact, is rebuilt, never trusted.
 */
export interface IndexOptions {
  /** Where indexes live (default: `sessions/` in Arbor's cache folder); false: no index. */
  dir?: string | false;
  /** Files smaller than this get no index: they open quickly anyway. Default 1 MiB. */
  minBytes?: number;
}

/** How an open used the reopen index. */
export type IndexUse = "off" | "none" | "unchanged" | "grown" | "stale" | "corrupt";

const TAIL_BYTES = 4096;
const DEFAULT_MIN_BYTES = 1024 * 1024;
/** The cache keeps at most this many indexes, and this many bytes of them (oldest used go first). */
const MAX_INDEXES = 64;
const MAX_INDEX_BYTES = 2 * 1024 * 1024 * 1024;

export function indexDirOf(opts: IndexOptions | false | undefined): string | undefined {
  if (opts === false || opts?.dir === false) return undefined;
  return opts?.dir ?? join(defaultCacheDir(), "sessions");
}

export function indexFileFor(sessionPath: string, dir: string): string {
  return companionFileFor(sessionPath, dir, INDEX_EXTENSION);
}

const INDEX_EXTENSION = ".idx";
/** Caches kept beside an index, with its name and another extension: they go when it goes. */
const COMPANION_EXTENSIONS = [".tree"];

/** A cache file of `sessionPath` beside its index (`extension` one of COMPANION_EXTENSIONS). */
export function companionFileFor(sessionPath: string, dir: string, extension: string): string {
  return join(dir, `${createHash("sha256").update(resolve(sessionPath)).digest("hex").slice(0, 32)}${extension}`);
}

/** sha1 of the bytes [size - 4 KB, size) of an open file. */
export function tailHash(fd: number, size: number): string {
  const from = Math.max(0, size - TAIL_BYTES);
  const buf = Buffer.alloc(size - from);
  let done = 0;
  while (done < buf.length) {
    const n = readSync(fd, buf, done, buf.length - done, from + done);
    if (n === 0) break;
    done += n;
  }
  return createHash("sha1").update(buf.subarray(0, done)).digest("hex");
}

export function keyOf(path: string, st: Stats, fd: number, size = st.size): IndexKey {
  return { path: resolve(path), dev: st.dev, ino: st.ino, size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, tailHash: tailHash(fd, size) };
}

/** A saved index of `path`, or undefined (none, unreadable, or not intact). */
export async function readIndex(path: string, dir: string): Promise<{ data: SessionIndexData | undefined; found: boolean }> {
  const file = indexFileFor(path, dir);
  let buf: Buffer;
  try {
    buf = await fs.readFile(file);
  } catch {
    return { data: undefined, found: false };
  }
  // In slices: a 1,000,000-entry index is 60 MB, and the extension host must keep answering meanwhile.
  const data = await runStepsInSlices(decodeIndexSteps(buf));
  // Used: it stays in the cache longer than indexes nobody opens.
  if (data) fs.utimes(file, new Date(), new Date()).catch(() => undefined);
  return { data, found: true };
}

/**
 * Whether the saved index of `path` still describes the file as `st` shows it, read from the
 * index's head only (no checksum, no tail hash): cheap enough to ask for every listed session.
 * A "yes" here is a hint for preparing indexes ahead of time; an open still checks in full.
 */
export async function indexLooksCurrent(path: string, dir: string, st: Stats): Promise<boolean> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(indexFileFor(path, dir), "r");
    const k = peekIndexKey(await readHead(handle));
    return !!k && k.path === resolve(path) && k.dev === st.dev && k.ino === st.ino && k.size === st.size && k.mtimeMs === st.mtimeMs && k.ctimeMs === st.ctimeMs;
  } catch {
    return false;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** The first bytes of an index file: its magic, meta length and meta (capped, a head is never the whole file). */
async function readHead(handle: fs.FileHandle): Promise<Buffer> {
  const head = Buffer.alloc(12);
  const { bytesRead } = await handle.read(head, 0, 12, 0);
  if (bytesRead < 12) return head.subarray(0, bytesRead);
  const metaLength = Math.min(head.readUInt32LE(8), 64 * 1024 * 1024);
  const all = Buffer.alloc(12 + metaLength);
  head.copy(all);
  const more = await handle.read(all, 12, metaLength, 12);
  return all.subarray(0, 12 + more.bytesRead);
}

/**
 * What a saved index is worth for the file as it is now: "unchanged" (same identity, size,
 * times and tail), "grown" (same identity, longer, and the indexed bytes still end the same way),
 * or "stale" (anything else: truncated, replaced, edited in place, or a different file).
 */
export function judgeIndex(data: SessionIndexData, path: string, st: Stats, fd: number): "unchanged" | "grown" | "stale" {
  const k = data.key;
  if (k.path !== resolve(path) || k.dev !== st.dev || k.ino !== st.ino) return "stale";
  if (st.size === k.size && st.mtimeMs === k.mtimeMs && st.ctimeMs === k.ctimeMs) return tailHash(fd, st.size) === k.tailHash ? "unchanged" : "stale";
  // Growth continues from the last complete line (a torn last line is read again). A last entry
  // that was complete without its newline cannot be continued: its line number would shift.
  const completeWithoutNewline = data.unterminated && data.offset === k.size;
  if (st.size > k.size && !completeWithoutNewline && tailHash(fd, k.size) === k.tailHash) return "grown";
  return "stale";
}

/** What an index is saved from, taken at once after a load (later appends do not leak into it). */
export interface IndexSnapshot {
  data: SessionIndexData;
}

export async function snapshotForIndex(
  path: string,
  st: Stats,
  fd: number,
  loaded: { header: SessionHeader; fileVersion: number; offset: number; lineCount: number; unterminated: boolean; problems: LineProblem[]; store: EntryStore; size: number },
): Promise<IndexSnapshot | undefined> {
  if (!loaded.store.canSnapshot()) return undefined;
  // In slices: the copy of a 1,000,000-entry store's columns held the extension host for 300 ms.
  const columns = await runStepsInSlices(loaded.store.snapshotSteps());
  return {
    data: {
      key: keyOf(path, st, fd, loaded.size),
      header: loaded.header,
      fileVersion: loaded.fileVersion,
      offset: loaded.offset,
      lineCount: loaded.lineCount,
      unterminated: loaded.unterminated,
      problems: loaded.problems.slice(),
      columns,
    },
  };
}

/** A save of an index in progress: waited for by an open of the same session, which also ends any hold on it. */
interface PendingWrite {
  settled: Promise<void>;
  /** Someone waits to read this index: holds no longer apply to its save. */
  urgent: boolean;
  /** Wakes the save if it is waiting for a hold. */
  wake: () => void;
}

/** Index files this process is writing now, by index file (see waitForIndexWrite). */
const writing = new Map<string, PendingWrite>();

/** What holds index saves now (see holdIndexWrites). */
const holds = new Set<Promise<void>>();
/** A hold never lasts longer than this: an index is worth saving even if what held it never ends. */
const MAX_HOLD_MS = 5000;

/**
 * Holds the saving of indexes (before it starts, and between its slices) until `until` settles, or
 * `maxMs` at most: the extension host draws a session's tree first, and the index of a large
 * session (hundreds of milliseconds of encoding at 1,000,000 entries) is saved after.
 */
export function holdIndexWrites(until: Promise<unknown>, maxMs = MAX_HOLD_MS): void {
  let timer: NodeJS.Timeout | undefined;
  const bounded = new Promise<void>((done) => {
    timer = setTimeout(done, maxMs);
    until.then(
      () => done(),
      () => done(),
    );
  });
  const hold = bounded.finally(() => {
    clearTimeout(timer);
    holds.delete(hold);
  });
  holds.add(hold);
}

/** While anything holds index saves (and the save is not urgent): a promise that settles when nothing does. */
function heldFor(pending: PendingWrite): Promise<void> | undefined {
  if (holds.size === 0 || pending.urgent) return undefined;
  return (async () => {
    while (holds.size > 0 && !pending.urgent) {
      const woken = new Promise<void>((wake) => (pending.wake = wake));
      await Promise.race([Promise.all(holds), woken]);
    }
  })();
}

/** Saves an index (atomically: a reader sees the old one or the new one), then trims the cache. */
export function writeIndex(snapshot: IndexSnapshot, dir: string): Promise<void> {
  const file = indexFileFor(snapshot.data.key.path, dir);
  const pending: PendingWrite = { settled: Promise.resolve(), urgent: false, wake: () => undefined };
  const held = () => heldFor(pending);
  const done = (async () => {
    // In slices, as it is read (a 1,000,000-entry index is 60 MB of work), after what holds it.
    await held();
    const bytes = await runStepsInSlices(encodeIndexSteps(snapshot.data), 15, held);
    if (!bytes) return;
    await fs.mkdir(dir, { recursive: true });
    await writeFileAtomic(file, bytes);
    await trimCache(dir);
  })();
  pending.settled = done.catch(() => undefined).finally(() => {
    if (writing.get(file) === pending) writing.delete(file);
  });
  writing.set(file, pending);
  return done;
}

/**
 * Waits while this process is still saving the index of `sessionPath` (a session closed and opened
 * again at once): reading that index when it is saved costs a fraction of reading the file again,
 * which at 1,000,000 entries is seconds. The save goes on at once, whatever holds index saves (the
 * open that waits may itself be what holds them).
 */
export async function waitForIndexWrite(sessionPath: string, dir: string): Promise<void> {
  const pending = writing.get(indexFileFor(sessionPath, dir));
  if (!pending) return;
  pending.urgent = true;
  pending.wake();
  await pending.settled;
}

/** A temp file this old was left by a process that ended in the middle of a save (Ctrl-C, a crash). */
const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Removes the indexes used least lately (with their companions) past MAX_INDEXES or
 * MAX_INDEX_BYTES, companions without their index, and temp files left by saves that never ended.
 */
export async function trimCache(dir: string): Promise<void> {
  const all = await fs.readdir(dir);
  for (const n of all) {
    if (!n.endsWith(".tmp")) continue;
    const st = await fs.stat(join(dir, n)).catch(() => undefined);
    if (st && Date.now() - st.mtimeMs > STALE_TEMP_MS) await fs.rm(join(dir, n), { force: true });
  }
  const names = all.filter((n) => n.endsWith(INDEX_EXTENSION));
  const sizeOf = async (n: string) => (await fs.stat(join(dir, n)).catch(() => undefined))?.size ?? 0;
  const companions = all.filter((n) => COMPANION_EXTENSIONS.some((e) => n.endsWith(e)));
  // A companion whose index is gone is of no use (it is only trusted beside its index).
  for (const n of companions) if (!names.includes(`${n.slice(0, n.lastIndexOf("."))}${INDEX_EXTENSION}`)) await fs.rm(join(dir, n), { force: true });
  const stem = (n: string) => n.slice(0, -INDEX_EXTENSION.length);
  const withCompanions = async (n: string) => {
    let size = await sizeOf(n);
    for (const e of COMPANION_EXTENSIONS) if (all.includes(stem(n) + e)) size += await sizeOf(stem(n) + e);
    return size;
  };
  if (names.length <= MAX_INDEXES) {
    let total = 0;
    for (const n of names) total += await withCompanions(n);
    if (total <= MAX_INDEX_BYTES) return;
  }
  const files = await Promise.all(names.map(async (n) => ({ name: n, st: await fs.stat(join(dir, n)).catch(() => undefined), size: await withCompanions(n) })));
  const present = files.filter((f) => f.st !== undefined).sort((a, b) => b.st!.mtimeMs - a.st!.mtimeMs);
  let total = 0;
  for (let i = 0; i < present.length; i++) {
    total += present[i]!.size;
    if (i < MAX_INDEXES && total <= MAX_INDEX_BYTES) continue;
    await fs.rm(join(dir, present[i]!.name), { force: true });
    for (const e of COMPANION_EXTENSIONS) await fs.rm(join(dir, stem(present[i]!.name) + e), { force: true });
  }
}

export const INDEX_DEFAULT_MIN_BYTES = DEFAULT_MIN_BYTES;
