import { promises as fs } from "node:fs";
import { ioError } from "./file-io";
import { fileReplacedError, identityOf, sameFile, type FileIdentity } from "./file-identity";

/** Bytes encoded before each write call: a burst of appends is written in pieces of at most this size. */
const CHUNK_BYTES = 256 * 1024;

/** A line waiting to be written, with the id of the entry it holds (none for the header). */
interface QueuedLine {
  text: string;
  id?: string;
}

/**
 * Where one write landed: the file's size before and after it, and each line written whole, in
 * order, with its length in bytes (newline excluded) and its entry's id (none for the header).
 * `after` is -1 when the write was cut short: the owner must read the file to know where it ends.
 */
export interface WriteResult {
  before: number;
  after: number;
  /** A newline went first, to end a torn last line. */
  leadingNewline: boolean;
  lengths: number[];
  ids: (string | undefined)[];
  /** The file written (the one the queue checked before writing). */
  identity: FileIdentity | undefined;
}

function resultOf(batch: QueuedLine[], ends: number[], leadBytes: number, whole: number, before: number, after: number, identity: FileIdentity | undefined): WriteResult {
  const lengths: number[] = [];
  for (let k = 0; k < whole; k++) lengths.push(ends[k]! - (k === 0 ? leadBytes : ends[k - 1]!) - 1);
  return { before, after, leadingNewline: leadBytes > 0, lengths, ids: batch.slice(0, whole).map((l) => l.id), identity };
}

/**
 * Appends whole lines to a session file in order. Lines appended while a write is under way are
 * batched into the next write.
 *
 * Nothing is lost and nothing is written twice: a failed write keeps exactly the lines that did
 * not reach the file queued for the next flush. When a write is cut short (a full disk writes what
 * fits, then fails), the lines written whole stay written and are not queued again, and the torn
 * bytes of the next line are cut off again when the file still ends with them; otherwise the retry
 * starts on a fresh line, so the torn bytes stay a bad line of their own and the new line stays
 * intact.
 *
 * Before each write the path must still name the file this queue writes (device and inode): a file
 * replaced or deleted while open fails the write with SessionError "replaced" instead of sending
 * the lines to an unlinked file the user can no longer see.
 */
export class AppendQueue {
  private pending: QueuedLine[] = [];
  /** Ids of the lines whose last write failed (and that are still queued). */
  private failed = new Set<string>();
  private running: Promise<void> | undefined;
  private handle: fs.FileHandle | undefined;
  private closed = false;
  /** Where lines are encoded before they are written (see writeBatch). */
  private chunk: Buffer | undefined;

  /**
   * @param identity the file as it was read (undefined for a file this queue will create)
   * @param beforeWrite runs before each write (the one-writer check); throwing stops the write
   * @param knownEnd where the owner knows the file ends with a newline (no need to look), if anywhere
   * @param afterWrite runs after each write that reached the file, with where it landed (lines written whole only)
   */
  constructor(
    private readonly path: string,
    private needsLeadingNewline: boolean,
    private readonly beforeWrite: () => Promise<void>,
    private readonly knownEnd: () => number | undefined,
    private readonly afterWrite: (result: WriteResult) => Promise<void>,
    private identity?: FileIdentity,
  ) {}

  get pendingCount(): number {
    return this.pending.length;
  }

  /** Ids of entries still queued after a failed write (the ones the user must be told about). */
  failedIds(): string[] {
    return [...this.failed];
  }

  /** Ids of every entry not written yet. */
  pendingIds(): string[] {
    return this.pending.flatMap((l) => (l.id === undefined ? [] : [l.id]));
  }

  /** The file's last byte is not a newline (set after loading or tailing a torn file). */
  markUnterminated(): void {
    this.needsLeadingNewline = true;
  }

  /** The file was rewritten (through a temp file and a rename) by its own writer: it is the one to write now. */
  async expect(identity: FileIdentity): Promise<void> {
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    this.identity = identity;
  }

  /** Queues lines (JSON texts without newlines), each with its entry id; call flush() to await them. */
  enqueue(lines: string[], ids: (string | undefined)[] = []): void {
    if (this.closed) throw new Error("append queue is closed");
    lines.forEach((text, i) => this.pending.push({ text, id: ids[i] }));
  }

  /** Writes everything queued so far; rejects with a clear error if the disk refuses. */
  async flush(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
    if (this.pending.length === 0) return;
    this.running = this.writeBatch();
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
    if (this.pending.length > 0) await this.flush();
  }

  /** The path still names the file this queue writes (or, before its first write, nothing yet). */
  private async checkPath(): Promise<void> {
    let st;
    try {
      st = await fs.stat(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      if (this.identity) throw fileReplacedError(this.path, "deleted");
      return;
    }
    if (this.identity && !sameFile(identityOf(st), this.identity)) throw fileReplacedError(this.path, "replaced");
  }

  /** The append handle, checked to hold the file this queue writes; with the file's size before the write. */
  private async open(): Promise<{ handle: fs.FileHandle; size: number }> {
    // The path was checked just before (writeBatch); opening it again needs one more look, as "a+" would create a missing file.
    if (!this.handle) await this.checkPath();
    // "a+": appends, and reads the last byte when the file may end with a torn line
    this.handle ??= await fs.open(this.path, "a+");
    const st = await this.handle.stat();
    if (this.identity && !sameFile(identityOf(st), this.identity)) {
      await this.handle.close().catch(() => undefined);
      this.handle = undefined;
      throw fileReplacedError(this.path, "replaced");
    }
    this.identity ??= identityOf(st);
    return { handle: this.handle, size: st.size };
  }

  private async writeBatch(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    // ends[i]: bytes of the buffer up to the end of line i (after the lead newline, if any)
    const ends: number[] = [];
    let leadBytes = 0;
    let written = 0;
    let sizeBefore = -1;
    let handle: fs.FileHandle | undefined;
    try {
      await this.checkPath();
      await this.beforeWrite();
      ({ handle, size: sizeBefore } = await this.open());
      // A file that ends where the owner last left it ends with a newline; anywhere else, look
      // (a torn last line gets a newline first, so the new line stays intact).
      if (!this.needsLeadingNewline && sizeBefore > 0 && sizeBefore !== this.knownEnd()) {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, sizeBefore - 1);
        if (last[0] !== 0x0a) this.needsLeadingNewline = true;
      }
      // Lines are encoded once each into this queue's chunk buffer, which is written whenever the
      // next line might not fit. The buffer is kept between writes: fresh memory for one buffer the
      // size of a whole burst cost more than encoding it (its pages are touched for the first time).
      const chunk = (this.chunk ??= Buffer.allocUnsafe(CHUNK_BYTES));
      const file = handle;
      let fill = 0;
      let total = 0;
      const send = async (buffer: Buffer, length: number): Promise<void> => {
        let offset = 0;
        while (offset < length) {
          const { bytesWritten } = await file.write(buffer, offset, length - offset);
          offset += bytesWritten;
          written += bytesWritten;
        }
      };
      if (this.needsLeadingNewline) chunk[fill++] = 0x0a;
      total = leadBytes = fill;
      for (const line of batch) {
        const most = line.text.length * 3 + 1; // at most 3 bytes per UTF-16 unit, and the newline
        if (fill + most > CHUNK_BYTES && fill > 0) {
          await send(chunk, fill);
          fill = 0;
        }
        if (most > CHUNK_BYTES) {
          const own = Buffer.from(line.text, "utf8");
          await send(own, own.length);
          total += own.length;
        } else {
          const n = chunk.write(line.text, fill, "utf8");
          fill += n;
          total += n;
        }
        chunk[fill++] = 0x0a;
        ends.push(++total);
      }
      if (fill > 0) await send(chunk, fill);
      this.needsLeadingNewline = false;
    } catch (err) {
      await this.recover(batch, ends, leadBytes, written, sizeBefore, handle);
      throw err instanceof Error && err.name === "SessionError" ? err : ioError(err, "append to", this.path);
    }
    for (const line of batch) if (line.id !== undefined) this.failed.delete(line.id);
    // Where the file ends now (-1 if unknown: the owner reads the file instead of trusting the sizes).
    const sizeAfter = await handle.stat().then((st) => st.size, () => -1);
    // The lines are in the file: a failure placing or reading them back must never queue them again.
    await this.afterWrite(resultOf(batch, ends, leadBytes, batch.length, sizeBefore, sizeAfter, this.identity));
  }

  /**
   * After a failed or short write: the lines written whole stay written; the rest (the torn one
   * included) are queued again, ahead of anything queued meanwhile. Torn bytes are cut off when
   * the file still ends with exactly what this write added; otherwise the retry starts a new line.
   */
  private async recover(batch: QueuedLine[], ends: number[], leadBytes: number, written: number, sizeBefore: number, handle: fs.FileHandle | undefined): Promise<void> {
    let whole = 0;
    while (whole < ends.length && ends[whole]! <= written) whole++;
    const kept = whole > 0 ? ends[whole - 1]! : Math.min(written, leadBytes);
    if (written > kept) {
      let cut = false;
      try {
        const st = await handle?.stat();
        if (handle && st && sizeBefore >= 0 && st.size === sizeBefore + written) {
          await handle.truncate(sizeBefore + kept);
          cut = true;
        }
      } catch {
        // cannot cut: the retry starts on a fresh line instead
      }
      this.needsLeadingNewline = !cut;
    } else if (written > 0) {
      this.needsLeadingNewline = kept < leadBytes;
    }
    const rest = batch.slice(whole);
    for (const line of rest) if (line.id !== undefined) this.failed.add(line.id);
    for (const line of batch.slice(0, whole)) if (line.id !== undefined) this.failed.delete(line.id);
    this.pending = [...rest, ...this.pending];
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    // The owner reads back what a cut-short write left (the sizes do not add up on purpose).
    if (whole > 0) await this.afterWrite(resultOf(batch, ends, leadBytes, whole, sizeBefore, -1, this.identity)).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.chunk = undefined;
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }
}
