import { promises as fs } from "node:fs";
import { ioError } from "./file-io";

/**
 * Appends whole lines to a session file in order. Lines appended while a write is under way are
 * batched into the next write. A failed write keeps its lines queued (nothing is dropped) and the
 * next flush tries again. If the file does not end with a newline (a torn last line), a newline
 * goes first so that the torn bytes stay a line of their own and the new line stays intact.
 */
export class AppendQueue {
  private pending: string[] = [];
  private running: Promise<void> | undefined;
  private handle: fs.FileHandle | undefined;
  private closed = false;

  /**
   * @param beforeWrite runs before each write (the one-writer check); throwing stops the write
   * @param afterWrite runs after each successful write with the number of bytes written
   */
  constructor(
    private readonly path: string,
    private needsLeadingNewline: boolean,
    private readonly beforeWrite: () => Promise<void>,
    private readonly afterWrite: (bytes: number) => Promise<void>,
  ) {}

  get pendingCount(): number {
    return this.pending.length;
  }

  /** The file's last byte is not a newline (set after loading or tailing a torn file). */
  markUnterminated(): void {
    this.needsLeadingNewline = true;
  }

  /** Queues lines (JSON texts without newlines); call flush() to await them. */
  enqueue(lines: string[]): void {
    if (this.closed) throw new Error("append queue is closed");
    this.pending.push(...lines);
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

  private async writeBatch(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    let offset = 0;
    try {
      await this.beforeWrite();
      const text = `${this.needsLeadingNewline ? "\n" : ""}${batch.join("\n")}\n`;
      const bytes = Buffer.from(text, "utf8");
      if (!this.handle) this.handle = await fs.open(this.path, "a");
      while (offset < bytes.length) {
        const { bytesWritten } = await this.handle.write(bytes, offset, bytes.length - offset);
        offset += bytesWritten;
      }
      this.needsLeadingNewline = false;
      await this.afterWrite(bytes.length);
    } catch (err) {
      // A write cut short leaves a torn line: the retry starts on a fresh line.
      if (offset > 0) this.needsLeadingNewline = true;
      this.pending = [...batch, ...this.pending];
      await this.handle?.close().catch(() => undefined);
      this.handle = undefined;
      throw err instanceof Error && err.name === "SessionError" ? err : ioError(err, "append to", this.path);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }
}
