import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { hostname } from "node:os";
import { SessionError } from "./errors";

/** What a lock file says about its holder. */
export interface LockInfo {
  pid: number;
  host: string;
  token: string;
  since: string;
  /** free text: which program holds it */
  holder: string;
}

export interface WriterLockOptions {
  /** How often the holder refreshes the lock's mtime. */
  heartbeatMs?: number;
  /** A lock whose mtime is older than this is taken to be abandoned (holder on another host, or hung). */
  staleMs?: number;
  holder?: string;
}

const DEFAULT_HEARTBEAT_MS = 5_000;
const DEFAULT_STALE_MS = 30_000;

/** The lock file that guards a session file: `<session>.jsonl.lock` (Pi ignores it). */
export function lockPathFor(sessionPath: string): string {
  return `${sessionPath}.lock`;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * One writer per session file among Arbor processes. The lock is a file created exclusively
 * next to the session; its holder refreshes its mtime as a heartbeat. A lock is abandoned when
 * its process is gone (same host) or its heartbeat stopped, so a crash never locks a session
 * for good. The holder checks it still owns the lock before every write.
 */
export class WriterLock {
  private timer: NodeJS.Timeout | undefined;
  private released = false;

  private constructor(
    readonly path: string,
    readonly info: LockInfo,
    private readonly heartbeatMs: number,
  ) {}

  /** Takes the lock, or throws SessionError("locked") naming the holder. */
  static async acquire(sessionPath: string, opts: WriterLockOptions = {}): Promise<WriterLock> {
    const path = lockPathFor(sessionPath);
    const info: LockInfo = {
      pid: process.pid,
      host: hostname(),
      token: randomBytes(8).toString("hex"),
      since: new Date().toISOString(),
      holder: opts.holder ?? "arbor",
    };
    const staleMs = opts.staleMs ?? DEFAULT_STALE_MS;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const handle = await fs.open(path, "wx");
        try {
          await handle.writeFile(JSON.stringify(info));
        } finally {
          await handle.close();
        }
        const lock = new WriterLock(path, info, opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
        lock.startHeartbeat();
        return lock;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      const current = await WriterLock.inspect(sessionPath);
      if (current && !(await WriterLock.isAbandoned(path, current, staleMs))) {
        throw new SessionError(
          "locked",
          `Session is open for writing in another Arbor window (pid ${current.pid} on ${current.host}, since ${current.since})`,
          sessionPath,
        );
      }
      // Abandoned (or unreadable): remove it only if it is still the one we judged.
      const again = await WriterLock.inspect(sessionPath);
      if (again?.token === current?.token) await fs.rm(path, { force: true });
    }
    throw new SessionError("locked", `Could not take the writer lock of ${sessionPath}`, sessionPath);
  }

  /** Who holds the lock of a session file, if anyone. */
  static async inspect(sessionPath: string): Promise<LockInfo | undefined> {
    try {
      const text = await fs.readFile(lockPathFor(sessionPath), "utf8");
      const parsed = JSON.parse(text) as Partial<LockInfo>;
      if (typeof parsed.pid !== "number" || typeof parsed.token !== "string") return { pid: -1, host: "?", token: "", since: "?", holder: "?" };
      return parsed as LockInfo;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      // A half-written or garbled lock file: treat as held by nobody we can identify.
      return { pid: -1, host: "?", token: "", since: "?", holder: "?" };
    }
  }

  private static async isAbandoned(path: string, info: LockInfo, staleMs: number): Promise<boolean> {
    if (info.pid > 0 && info.host === hostname() && !processAlive(info.pid)) return true;
    try {
      const stat = await fs.stat(path);
      return Date.now() - stat.mtimeMs > staleMs;
    } catch {
      return true;
    }
  }

  private startHeartbeat(): void {
    this.timer = setInterval(() => {
      const now = new Date();
      fs.utimes(this.path, now, now).catch(() => undefined);
    }, this.heartbeatMs);
    this.timer.unref();
  }

  /** Throws SessionError("locked") if another process has taken the lock meanwhile. */
  async verify(sessionPath: string): Promise<void> {
    if (this.released) throw new SessionError("read-only", "The writer lock was released", sessionPath);
    const current = await WriterLock.inspect(sessionPath);
    if (current?.token !== this.info.token) {
      throw new SessionError("locked", `Another process took over the session ${sessionPath}; this window is now read-only`, sessionPath);
    }
  }

  /** Gives the lock up (only if it is still ours). */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (this.timer) clearInterval(this.timer);
    try {
      const text = await fs.readFile(this.path, "utf8");
      if ((JSON.parse(text) as LockInfo).token === this.info.token) await fs.rm(this.path, { force: true });
    } catch {
      // Already gone, or replaced by someone else's lock: nothing of ours to remove.
    }
  }
}
