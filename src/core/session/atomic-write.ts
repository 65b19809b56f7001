import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { basename, dirname, join } from "node:path";

/** How much is gathered in memory before it goes to the file. */
const BUFFER_BYTES = 1024 * 1024;

/**
 * Where a file being replaced is written: whole lines or any bytes, in order, buffered. Nothing
 * here holds the whole content, so a file of any size (past the engine's 512 MB string limit)
 * is written in a fixed amount of memory.
 */
export class FileSink {
  private buf = Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;
  private bytesOut = 0;
  private linesOut = 0;

  constructor(private readonly handle: fs.FileHandle) {}

  /** Bytes written so far (buffered included). */
  get bytes(): number {
    return this.bytesOut;
  }

  /** Newlines written through writeLine/endLine. */
  get lines(): number {
    return this.linesOut;
  }

  /** Writes text or bytes as they are. */
  async write(data: string | Uint8Array): Promise<void> {
    const size = typeof data === "string" ? Buffer.byteLength(data) : data.length;
    if (size === 0) return;
    this.bytesOut += size;
    if (this.used + size > this.buf.length) await this.drain();
    if (size > this.buf.length) return this.writeAll(typeof data === "string" ? Buffer.from(data) : data);
    if (typeof data === "string") this.buf.write(data, this.used);
    else this.buf.set(data, this.used);
    this.used += size;
  }

  /** Ends the current line. */
  async endLine(): Promise<void> {
    await this.write("\n");
    this.linesOut++;
  }

  /** Writes one whole line (text without a newline) and its newline. */
  async writeLine(text: string): Promise<void> {
    await this.write(text);
    await this.endLine();
  }

  /** Sends what is buffered to the file. */
  async drain(): Promise<void> {
    if (this.used === 0) return;
    const out = this.buf.subarray(0, this.used);
    this.used = 0;
    await this.writeAll(out);
    // The buffer just written may still be read by the write in flight: a fresh one is used.
    this.buf = Buffer.allocUnsafe(BUFFER_BYTES);
  }

  private async writeAll(data: Uint8Array): Promise<void> {
    let at = 0;
    // A short write (a disk that fills up) is followed by another, which then fails with ENOSPC.
    while (at < data.length) {
      const { bytesWritten } = await this.handle.write(data, at, data.length - at, null);
      if (bytesWritten <= 0) throw Object.assign(new Error(`write returned ${bytesWritten}`), { code: "EIO" });
      at += bytesWritten;
    }
  }
}

/** What a replacement wrote. */
export interface WriteResult {
  bytes: number;
  lines: number;
}

/**
 * Replaces (or creates) a file crash-safely, writing its new content as a stream: `produce`
 * writes into a temp file beside it, which is fsynced and renamed over the old one; with
 * `backupPath`, the old content is copied there first. When anything fails (a full disk, a read
 * error of the producer), the temp file and a partial backup are removed and the error is thrown
 * as it came (also when `beforeRename` throws): the file at `path` is exactly as it was. A crash leaves the old file or the new
 * one, never a mix (at worst a stray dot-file ending in .tmp).
 */
export async function writeFileStreaming(
  path: string,
  produce: (sink: FileSink) => Promise<void>,
  backupPath?: string,
  /** Runs last before the rename (after the fsync and the backup); throwing cancels the replacement. */
  beforeRename?: () => Promise<void>,
): Promise<WriteResult> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const handle = await fs.open(tmp, "wx");
  let result: WriteResult;
  try {
    const sink = new FileSink(handle);
    await produce(sink);
    await sink.drain();
    result = { bytes: sink.bytes, lines: sink.lines };
    await keepOwnership(path, handle);
    await handle.sync();
  } catch (err) {
    // Leave no half-written temp file behind.
    await handle.close().catch(() => undefined);
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  let backupStarted = false;
  try {
    if (backupPath) {
      backupStarted = true;
      await fs.copyFile(path, backupPath);
    }
    await beforeRename?.();
    await fs.rename(tmp, path);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    // A backup cut short by a full disk is not a backup.
    if (backupStarted) await fs.rm(backupPath!, { force: true }).catch(() => undefined);
    throw err;
  }
  await syncDir(dirname(path));
  return result;
}

/**
 * A rewrite keeps the file's permission bits (a session kept private stays private) and, where
 * this process may, its owner.
 */
async function keepOwnership(path: string, handle: fs.FileHandle): Promise<void> {
  let st;
  try {
    st = await fs.stat(path);
  } catch {
    return; // a new file: the default mode
  }
  await handle.chmod(st.mode & 0o7777);
  if (process.getuid?.() === 0) await handle.chown(st.uid, st.gid).catch(() => undefined);
}

async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await fs.open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic there.
  }
}
