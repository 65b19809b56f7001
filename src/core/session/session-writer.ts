import { AppendQueue, type WriteResult } from "./append-queue";
import type { FileIdentity } from "./file-identity";
import type { WriterLock } from "./writer-lock";

/** What the session does around each write. */
export interface WriterHooks {
  /** Runs before a write, once the lock is confirmed (e.g. rewriting a file in an old format). */
  prepare(): Promise<void>;
  /** Where the file ends with a newline as far as the session knows (it read or wrote up to there), if anywhere. */
  knownEnd(): number | undefined;
  /** Runs after a write with where it landed (e.g. placing the new lines in the index). */
  written(result: WriteResult): Promise<void>;
}

/**
 * The write side of one session file: an ordered append queue guarded by the writer lock. Before
 * every write it confirms the lock is still ours, that the path still names the file it writes
 * (see AppendQueue), and that the file ends with a newline (a torn last line gets one first, so
 * the new line stays intact).
 */
export class SessionWriter {
  private readonly queue: AppendQueue;

  /** @param identity the file as it was read; undefined for a session whose file is not written yet */
  constructor(
    readonly file: string,
    private readonly lock: WriterLock,
    hooks: WriterHooks,
    identity?: FileIdentity,
  ) {
    this.queue = new AppendQueue(
      file,
      false,
      async () => {
        await lock.verify(file);
        await hooks.prepare();
      },
      () => hooks.knownEnd(),
      (result) => hooks.written(result),
      identity,
    );
  }

  /** Queues whole lines (JSON texts without newlines), each with the id of its entry (none for the header). */
  enqueue(lines: string[], ids?: (string | undefined)[]): void {
    this.queue.enqueue(lines, ids);
  }

  /** Writes everything queued; rejects with a clear error (the lines stay queued) when it cannot. */
  flush(): Promise<void> {
    return this.queue.flush();
  }

  /** Ids of entries whose write failed and that are still waiting to be written. */
  failedIds(): string[] {
    return this.queue.failedIds();
  }

  /** Ids of every entry not written yet. */
  pendingIds(): string[] {
    return this.queue.pendingIds();
  }

  /** The file was rewritten by this writer (migration): the new file is the one to write. */
  expect(identity: FileIdentity): Promise<void> {
    return this.queue.expect(identity);
  }

  /** Stops writing and gives the lock up. */
  async close(): Promise<void> {
    await this.queue.close();
    await this.lock.release();
  }
}
