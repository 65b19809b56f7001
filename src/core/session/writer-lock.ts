import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { SessionError } from "./errors";
import { ioError } from "./file-io";
import { createExclusive, replaceAtomically } from "./lock-file";

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
  /**
   * A lock whose heartbeat has not changed for this long is abandoned. For a holder on another
   * machine this is measured by this machine's own clock, from when the heartbeat was last seen
   * changing, never by comparing the two clocks.
   */
  staleMs?: number;
  /**
   * How long `acquire` may watch a lock held on another machine before it decides (default 0:
   * decide from what this process has seen of it so far, which is "held" the first time).
   */
  judgeWaitMs?: number;
  holder?: string;
}

const DEFAULT_HEARTBEAT_MS = 5_000;
const DEFAULT_STALE_MS = 30_000;
/** A takeover guard older than this was left by a process that died mid-takeover. */
const GUARD_STALE_MS = 60_000;
/** Errors that mean "this folder cannot be written": the session opens as a read-only view. */
const READ_ONLY_CODES = new Set(["EACCES", "EPERM", "EROFS"]);

/** The lock file that guards a session file: `<session>.jsonl.lock` (Pi ignores it). */
export function lockPathFor(sessionPath: string): string {
  return `${sessionPath}.lock`;
}

/**
 * The session file's real path (symlinks resolved), so that two paths to one file share one lock.
 * A file not created yet resolves through its folder.
 */
export async function realSessionPath(sessionPath: string): Promise<string> {
  try {
    return await fs.realpath(sessionPath);
  } catch {
    try {
      return join(await fs.realpath(dirname(sessionPath)), basename(sessionPath));
    } catch {
      return sessionPath;
    }
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The heartbeats this process has seen, by lock path: what the lock looked like and when (by this
 * machine's monotonic clock) it was first seen looking so. A lock on another machine is abandoned
 * only once it has looked the same for `staleMs` here: a clock that runs ahead or behind there
 * changes nothing.
 */
const seen = new Map<string, { signature: string; since: number; lastLook: number }>();

type Judgement = "abandoned" | "alive" | "unknown";

/**
 * One writer per session file among Arbor processes. The lock is a file created whole and
 * exclusively next to the session's real path; its holder refreshes its mtime as a heartbeat. A
 * lock is abandoned when its process is gone (same host) or its heartbeat stopped, so a crash never
 * locks a session for good; an abandoned lock is taken over atomically (one taker at a time, by
 * renaming a fresh lock over it) and verified. The holder checks it still owns the lock before
 * every write.
 */
export class WriterLock {
  private timer: NodeJS.Timeout | undefined;
  private released = false;

  private constructor(
    readonly path: string,
    readonly info: LockInfo,
    private readonly heartbeatMs: number,
  ) {}

  /**
   * Takes the lock, or throws SessionError "locked" (naming the holder) or "read-only" (the
   * folder cannot be written: EACCES, EPERM, EROFS, or the disk is full).
   */
  static async acquire(sessionPath: string, opts: WriterLockOptions = {}): Promise<WriterLock> {
    const path = lockPathFor(await realSessionPath(sessionPath));
    const info: LockInfo = {
      pid: process.pid,
      host: hostname(),
      token: randomBytes(8).toString("hex"),
      since: new Date().toISOString(),
      holder: opts.holder ?? "arbor",
    };
    const content = JSON.stringify(info);
    const staleMs = opts.staleMs ?? DEFAULT_STALE_MS;
    const deadline = performance.now() + (opts.judgeWaitMs ?? 0);
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await createExclusive(path, content);
        return await WriterLock.confirmed(path, info, opts, sessionPath);
      } catch (err) {
        if (err instanceof SessionError) throw err;
        const code = (err as NodeJS.ErrnoException).code ?? "";
        if (READ_ONLY_CODES.has(code)) {
          throw new SessionError("read-only", `The folder of ${sessionPath} cannot be written (${code}): it opens as a read-only view`, sessionPath);
        }
        if (code === "ENOSPC") throw new SessionError("read-only", `No space left on the disk to open ${sessionPath} for writing: it opens as a read-only view`, sessionPath);
        if (code !== "EEXIST") throw ioError(err, "lock", sessionPath);
      }
      const current = await WriterLock.readLock(path);
      if (!current) continue; // released meanwhile: try again
      let judgement = await WriterLock.judge(path, current, staleMs);
      // Watch a lock we cannot judge yet (another machine's, not seen long enough) while allowed to.
      while (judgement === "unknown" && performance.now() < deadline) {
        await sleep(Math.max(20, Math.min(500, staleMs / 4)));
        const again = await WriterLock.readLock(path);
        if (!again || again.token !== current.token) break;
        judgement = await WriterLock.judge(path, current, staleMs);
      }
      if (judgement !== "abandoned") {
        if (judgement === "unknown" && (await WriterLock.readLock(path))?.token !== current.token) continue;
        throw new SessionError(
          "locked",
          `Session is open for writing in another Arbor window (pid ${current.pid} on ${current.host}, since ${current.since})`,
          sessionPath,
        );
      }
      if (await WriterLock.takeOver(path, current, content)) return await WriterLock.confirmed(path, info, opts, sessionPath);
    }
    throw new SessionError("locked", `Could not take the writer lock of ${sessionPath}`, sessionPath);
  }

  /** Reads the lock back: it must hold our token (a racing taker may have replaced it). */
  private static async confirmed(path: string, info: LockInfo, opts: WriterLockOptions, sessionPath: string): Promise<WriterLock> {
    const back = await WriterLock.readLock(path);
    if (back?.token !== info.token) throw new SessionError("locked", `Another Arbor window took the writer lock of ${sessionPath} at the same moment`, sessionPath);
    const lock = new WriterLock(path, info, opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
    lock.startHeartbeat();
    return lock;
  }

  /**
   * Replaces an abandoned lock with ours, one taker at a time: a guard file created exclusively
   * admits a single taker, which checks the lock is still the one judged abandoned and renames a
   * fresh lock over it. Returns false when someone else got there first.
   */
  private static async takeOver(path: string, judged: LockInfo, content: string): Promise<boolean> {
    const guard = `${path}.takeover`;
    try {
      await createExclusive(guard, content);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      // Someone is taking over right now; a guard left by a taker that died is cleared after a while.
      try {
        const st = await fs.stat(guard);
        if (Date.now() - st.mtimeMs > GUARD_STALE_MS) await fs.rm(guard, { force: true });
      } catch {
        // gone already
      }
      await sleep(20);
      return false;
    }
    try {
      const now = await WriterLock.readLock(path);
      if (!now || now.token !== judged.token) return false;
      await replaceAtomically(path, content);
      seen.delete(path);
      return true;
    } finally {
      await fs.rm(guard, { force: true }).catch(() => undefined);
    }
  }

  /** Who holds the lock of a session file, if anyone. */
  static async inspect(sessionPath: string): Promise<LockInfo | undefined> {
    return WriterLock.readLock(lockPathFor(await realSessionPath(sessionPath)));
  }

  private static async readLock(path: string): Promise<LockInfo | undefined> {
    try {
      const text = await fs.readFile(path, "utf8");
      const parsed = JSON.parse(text) as Partial<LockInfo>;
      if (typeof parsed.pid !== "number" || typeof parsed.token !== "string") return { pid: -1, host: "?", token: "", since: "?", holder: "?" };
      return parsed as LockInfo;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      // A garbled lock file (left by an old version): held by nobody we can identify.
      return { pid: -1, host: "?", token: "", since: "?", holder: "?" };
    }
  }

  /**
   * Whether a lock is abandoned. Same host: its process is gone, or its heartbeat (on this very
   * clock) is older than `staleMs`. Another host: its heartbeat has not changed for `staleMs` as
   * measured here; until this process has watched it that long, "unknown".
   */
  private static async judge(path: string, info: LockInfo, staleMs: number): Promise<Judgement> {
    const sameHost = info.pid > 0 && info.host === hostname();
    if (sameHost && !processAlive(info.pid)) return "abandoned";
    let st;
    try {
      st = await fs.stat(path);
    } catch {
      return "abandoned";
    }
    if (sameHost) return Date.now() - st.mtimeMs > staleMs ? "abandoned" : "alive";
    const signature = `${info.token}|${st.ino}|${st.size}|${st.mtimeMs}`;
    const now = performance.now();
    const before = seen.get(path);
    if (!before || before.signature !== signature) {
      seen.set(path, { signature, since: now, lastLook: now });
      // A change proves the holder alive only if it happened recently: since a look within staleMs.
      return before && now - before.lastLook < staleMs ? "alive" : "unknown";
    }
    before.lastLook = now;
    return now - before.since >= staleMs ? "abandoned" : "unknown";
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
    const current = await WriterLock.readLock(this.path);
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
