import { closeSync, fstatSync, openSync, promises as fs, readSync } from "node:fs";
import { resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { FileSink } from "../core/session/atomic-write";
import { companionFileFor, tailHash, trimCache } from "../core/session/session-index";

/**
 * What `arbor tree` says about each entry ("user: the build fails…"), kept in Arbor's cache beside
 * the session's reopen index, so that drawing the tree again reads this instead of every entry's
 * body (at 100,000 entries, most of the time of a redraw was spent reading bodies for previews).
 *
 * It is keyed as the index is: the file's identity (device, inode), the bytes it describes, and a
 * hash of their last 4 KB. A session that grew keeps the descriptions of its first entries (an
 * append-only file does not change them); anything else (a rename-over, a truncation, an edit that
 * changes the last bytes) makes it stale, and it is not used. A file that does not read back intact
 * is not used either. Descriptions are stored as made, before escaping: what is printed is escaped
 * again on every read, so a cache file changed by someone else cannot reach the terminal.
 *
 * Layout: the descriptions' UTF-8 bytes back to back, then a table of (start, length) per entry
 * position (a length of MISSING: none), then the meta JSON, then the meta's length, the entry
 * count and the magic.
 */

const MAGIC = Buffer.from("ARBTREE1");
/**
 * How descriptions and entry positions are made (render-tree.ts, summarize.ts, the loader): a
 * change to either must change this, so that caches written before are not used.
 */
const DESCRIPTIONS = 1;
const TRAILER = 8 + MAGIC.length;
const MISSING = 0xffffffff;
const EXTENSION = ".tree";
/** Reads of descriptions this close together are one read. */
const MERGE_GAP = 64 * 1024;

interface Meta {
  descriptions: number;
  path: string;
  dev: number;
  ino: number;
  /** Bytes of the session file described (complete lines). */
  bytes: number;
  /** Hash of the last 4 KB of those bytes. */
  tailHash: string;
  /** The file when the cache was saved: the same size and times mean unchanged. */
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** What a cache is checked against: the session as this process read it. */
export interface TreeTextBasis {
  dir: string;
  minBytes: number;
  file: string;
  dev: number;
  ino: number;
  /** Bytes read as complete lines. */
  bytes: number;
  /** The file's size and modification time when it was read. */
  size: number;
  mtimeMs: number;
}

/** A saved cache that still describes the session as read: its descriptions by entry position. */
export class TreeTextCache {
  private constructor(
    private readonly fd: number,
    /** Entry positions described (0 .. count-1). */
    readonly count: number,
    private readonly starts: Uint32Array,
    private readonly lengths: Uint32Array,
  ) {}

  /** The cache of `basis.file`, or undefined (none, stale, or not intact). Never throws. */
  static open(basis: TreeTextBasis): TreeTextCache | undefined {
    let fd: number | undefined;
    try {
      fd = openSync(companionFileFor(basis.file, basis.dir, EXTENSION), "r");
      const cache = TreeTextCache.read(fd, basis);
      if (cache) fd = undefined;
      return cache;
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  private static read(fd: number, basis: TreeTextBasis): TreeTextCache | undefined {
    const size = fstatSync(fd).size;
    if (size < TRAILER) return undefined;
    const trailer = readExactly(fd, size - TRAILER, TRAILER);
    if (!trailer.subarray(8).equals(MAGIC)) return undefined;
    const metaLength = trailer.readUInt32LE(0);
    const count = trailer.readUInt32LE(4);
    const tableBytes = count * 8;
    const blobBytes = size - TRAILER - metaLength - tableBytes;
    if (blobBytes < 0) return undefined;
    const tail = readExactly(fd, blobBytes, tableBytes + metaLength);
    const meta = JSON.parse(tail.toString("utf8", tableBytes)) as Partial<Meta> | null;
    if (!meta || meta.descriptions !== DESCRIPTIONS || meta.path !== resolve(basis.file) || meta.dev !== basis.dev || meta.ino !== basis.ino) return undefined;
    if (typeof meta.bytes !== "number" || meta.bytes > basis.bytes || typeof meta.tailHash !== "string") return undefined;
    if (typeof meta.size !== "number" || typeof meta.mtimeMs !== "number" || typeof meta.ctimeMs !== "number") return undefined;
    if (!stillDescribes(basis, meta as Meta)) return undefined;
    const starts = new Uint32Array(count);
    const lengths = new Uint32Array(count);
    for (let i = 0; i < count; i++) {
      const start = tail.readUInt32LE(i * 8);
      const length = tail.readUInt32LE(i * 8 + 4);
      if (length !== MISSING && start + length > blobBytes) return undefined;
      starts[i] = start;
      lengths[i] = length;
    }
    return new TreeTextCache(fd, count, starts, lengths);
  }

  /**
   * The descriptions of the given positions that the cache holds (a read per run of nearby ones).
   * A cache that cannot be read (changed under this process) gives what it gave so far, and no more.
   */
  read(positions: readonly number[]): Map<number, string> {
    const out = new Map<number, string>();
    if (this.closed) return out;
    try {
      this.readInto(positions, out);
    } catch {
      this.close();
    }
    return out;
  }

  private readInto(positions: readonly number[], out: Map<number, string>): void {
    const held = positions.filter((p) => p < this.count && this.lengths[p] !== MISSING).sort((a, b) => this.starts[a]! - this.starts[b]!);
    for (let k = 0; k < held.length; ) {
      const from = this.starts[held[k]!]!;
      let to = from + this.lengths[held[k]!]!;
      let last = k;
      while (last + 1 < held.length && this.starts[held[last + 1]!]! <= to + MERGE_GAP) {
        last++;
        to = Math.max(to, this.starts[held[last]!]! + this.lengths[held[last]!]!);
      }
      const bytes = readExactly(this.fd, from, to - from);
      for (; k <= last; k++) {
        const p = held[k]!;
        const s = this.starts[p]! - from;
        out.set(p, bytes.toString("utf8", s, s + this.lengths[p]!));
      }
    }
  }

  private closed = false;

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

/**
 * Whether the session file still holds the bytes the cache describes, judged as the reopen index
 * is: unchanged (same size and times) or grown (longer, and the described bytes end the same way).
 * An edit in place changes the times; a rename-over changes the identity.
 */
function stillDescribes(basis: TreeTextBasis, meta: Meta): boolean {
  // The file as it is now, for the bytes the cache describes (undefined: another file, or shorter).
  const now = currentMeta({ ...basis, bytes: meta.bytes });
  if (!now) return false;
  const unchanged = now.size === meta.size && now.mtimeMs === meta.mtimeMs && now.ctimeMs === meta.ctimeMs;
  if (!unchanged && now.size <= meta.size) return false;
  return now.tailHash === meta.tailHash;
}

/** The meta of a cache of the session file as it is now (undefined if it is no longer the file read). */
function currentMeta(basis: TreeTextBasis): Meta | undefined {
  const fd = openSync(basis.file, "r");
  try {
    const st = fstatSync(fd);
    if (st.dev !== basis.dev || st.ino !== basis.ino || st.size < basis.bytes) return undefined;
    const { dev, ino, bytes } = basis;
    return { descriptions: DESCRIPTIONS, path: resolve(basis.file), dev, ino, bytes, tailHash: tailHash(fd, bytes), size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs };
  } finally {
    closeSync(fd);
  }
}

function readExactly(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, done, length - done, position + done);
    if (n === 0) throw new Error("short read");
    done += n;
  }
  return buf;
}

/**
 * A new cache, written as the tree is drawn (descriptions in drawing order), saved by rename when
 * complete. Any failure drops it: a cache never fails the command.
 */
export class TreeTextWriter {
  private readonly starts: Uint32Array;
  private readonly lengths: Uint32Array;
  private at = 0;
  /** Dropped (a failure, or abandoned) or saved: nothing more is written. */
  private ended = false;

  private constructor(
    private readonly basis: TreeTextBasis,
    /** The session file when the drawing began; it must be the same when the cache is saved. */
    private readonly meta: Meta,
    private readonly tmp: string,
    private readonly handle: fs.FileHandle,
    private readonly sink: FileSink,
    count: number,
  ) {
    this.starts = new Uint32Array(count);
    this.lengths = new Uint32Array(count).fill(MISSING);
  }

  /**
   * A writer for `count` entry positions, or undefined when the cache folder cannot take it or the
   * session file is no longer as it was read (descriptions are read from the file as it is now).
   */
  static async create(basis: TreeTextBasis, count: number): Promise<TreeTextWriter | undefined> {
    try {
      const meta = currentMeta(basis);
      if (!meta || meta.size !== basis.size || meta.mtimeMs !== basis.mtimeMs) return undefined;
      await fs.mkdir(basis.dir, { recursive: true });
      const target = companionFileFor(basis.file, basis.dir, EXTENSION);
      const tmp = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
      const handle = await fs.open(tmp, "wx", 0o600);
      return new TreeTextWriter(basis, meta, tmp, handle, new FileSink(handle), count);
    } catch {
      return undefined;
    }
  }

  /** Adds the descriptions of a batch of positions. */
  async add(entries: Iterable<[number, string]>): Promise<void> {
    if (this.ended) return;
    try {
      for (const [pos, text] of entries) {
        if (pos >= this.starts.length || this.lengths[pos] !== MISSING) continue;
        const bytes = Buffer.byteLength(text);
        if (this.at + bytes >= MISSING) throw new Error("too large for a cache");
        this.starts[pos] = this.at;
        this.lengths[pos] = bytes;
        this.at += bytes;
        await this.sink.write(text);
      }
    } catch {
      await this.abandon();
    }
  }

  /** Writes the table and saves the cache in place of the old one. */
  async save(): Promise<void> {
    if (this.ended) return;
    try {
      // Whatever changed the file while it was drawn (even an edit of the same size) may be in some
      // descriptions and not in others: such a cache is not saved.
      const now = currentMeta(this.basis);
      const meta = this.meta;
      if (!now || now.size !== meta.size || now.mtimeMs !== meta.mtimeMs || now.ctimeMs !== meta.ctimeMs || now.tailHash !== meta.tailHash) {
        throw new Error("the session file changed while it was drawn");
      }
      const table = Buffer.allocUnsafe(this.starts.length * 8);
      for (let i = 0; i < this.starts.length; i++) {
        table.writeUInt32LE(this.starts[i]!, i * 8);
        table.writeUInt32LE(this.lengths[i]!, i * 8 + 4);
      }
      const metaBytes = Buffer.from(JSON.stringify(meta));
      const trailer = Buffer.alloc(TRAILER);
      trailer.writeUInt32LE(metaBytes.length, 0);
      trailer.writeUInt32LE(this.starts.length, 4);
      MAGIC.copy(trailer, 8);
      await this.sink.write(table);
      await this.sink.write(metaBytes);
      await this.sink.write(trailer);
      await this.sink.drain();
      await this.handle.close();
      await fs.rename(this.tmp, companionFileFor(this.basis.file, this.basis.dir, EXTENSION));
      this.ended = true;
    } catch {
      await this.abandon();
      return;
    }
    // The cache counts towards the folder's limits, as indexes do.
    await trimCache(this.basis.dir).catch(() => undefined);
  }

  /** Drops the cache being written (nothing, once it is saved). */
  async abandon(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.handle.close().catch(() => undefined);
    await fs.rm(this.tmp, { force: true }).catch(() => undefined);
  }
}
