import { promises as fs } from "node:fs";
import { resolve } from "node:path";
import type { SessionInfo } from "./session-list";
import { loadSession, type LoadedSession } from "./session-loader";
import { INDEX_DEFAULT_MIN_BYTES, indexDirOf, indexLooksCurrent, type IndexOptions } from "./session-index";

/**
 * Builds the reopen index of sessions a user is likely to open next (the Sessions list's largest
 * recent ones), in the background, one at a time, so that the click that opens one reads its index
 * instead of scanning the whole file.
 *
 * - An open of the session being prepared takes the preparation's result as it stands (it waits
 *   for the rest of the scan, never for a second one).
 * - An open of any other session holds the preparation between two chunks of the file until that
 *   open is done and a moment has passed: the user's click always has the machine first.
 * - A session that changed in the last seconds (one being written) waits until it has settled, and
 *   one whose saved index still matches the file is left alone.
 */

/** A session written less than this long ago is prepared later (it is likely to change again). */
const SETTLE_MS = 5_000;
/** After an open, the preparation waits this long before it goes on. */
const AFTER_OPEN_MS = 1_500;

export interface PreparerOptions {
  /** Where the indexes live (default: Arbor's cache). */
  index?: IndexOptions;
  /** Told when a preparation starts (with its path) and when the preparer is idle again (undefined). */
  onBusy?: (path: string | undefined) => void;
  /** Told when a preparation fails (the session then opens the ordinary way). */
  onError?: (path: string, error: Error) => void;
  /** How long a preparation waits after an open before it goes on (default 1.5 s). */
  afterOpenMs?: number;
  /** How long a session must be left unwritten before it is prepared (default 5 s). */
  settleMs?: number;
}

interface Job {
  path: string;
  abort: AbortController;
  /** The loaded session, once the scan is done (undefined if it failed or was stopped). */
  loaded: Promise<LoadedSession | undefined>;
  claimed: boolean;
}

/** The parts of an open a preparation hands over or holds for. */
export interface OpenClaim {
  /** The prepared session, when it was this one's (verified against the file as it is now). */
  readonly loaded: Promise<LoadedSession | undefined>;
  /** The open is done: held preparations go on after a moment. */
  done(): void;
}

export class SessionPreparer {
  private queue: string[] = [];
  private job: Job | undefined;
  private running = false;
  private runDone: Promise<void> = Promise.resolve();
  private opens = 0;
  private quietUntil = 0;
  private resumeTimer: NodeJS.Timeout | undefined;
  private waiters: (() => void)[] = [];
  private disposed = false;
  private options: PreparerOptions = {};

  configure(options: PreparerOptions): void {
    this.options = options;
  }

  /** The sessions to prepare, most wanted first; replaces any list given before. */
  prepare(paths: readonly string[]): void {
    if (this.disposed) return;
    this.queue = [...new Set(paths.map((p) => resolve(p)))].filter((p) => p !== this.job?.path);
    void this.pump();
  }

  /** The path being prepared now, if any. */
  get preparing(): string | undefined {
    return this.job?.path;
  }

  /** Settles when no preparation is under way (after `dispose`: once the one under way has stopped). */
  async whenIdle(): Promise<void> {
    while (this.running) await this.runDone;
  }

  /** Whether the preparation under way is held between two chunks (an open has the machine). */
  get holding(): boolean {
    return this.waiters.length > 0;
  }

  /**
   * An open of `path` is starting. Returns the preparation's result when `path` is being prepared,
   * and holds any other preparation until `done()`.
   */
  claim(path: string): OpenClaim {
    const file = resolve(path);
    const job = this.job;
    this.opens++;
    let finished = false;
    const done = (): void => {
      if (finished) return;
      finished = true;
      this.opens--;
      // A held preparation's timer sees the quiet time and goes on after it.
      this.userActive();
    };
    if (!job || job.path !== file || job.claimed) return { loaded: Promise.resolve(undefined), done };
    job.claimed = true;
    // Its own preparation is not held by this open.
    this.release();
    return { loaded: job.loaded.then(async (loaded) => (loaded && (await unchangedSince(loaded, file)) ? loaded : discard(loaded))), done };
  }

  /**
   * The user is doing something (a command, a click in the tree or the chat): a preparation waits,
   * from its next chunk, until a moment after the last of these, so the user's work has the machine.
   */
  userActive(): void {
    this.quietUntil = Math.max(this.quietUntil, Date.now() + (this.options.afterOpenMs ?? AFTER_OPEN_MS));
  }

  /** Stops the preparation under way and forgets the rest. */
  dispose(): void {
    this.disposed = true;
    this.queue = [];
    this.job?.abort.abort(new Error("the preparation was stopped"));
    if (this.resumeTimer) clearTimeout(this.resumeTimer);
    this.release();
  }

  private held(): boolean {
    return !this.disposed && (this.opens > (this.job?.claimed ? 1 : 0) || Date.now() < this.quietUntil);
  }

  /** Between two chunks: a promise while an open has the machine. */
  private readonly pause = (): Promise<void> | undefined => {
    if (!this.held() || this.job?.claimed) return undefined;
    if (!this.resumeTimer) this.scheduleResume(Math.max(50, this.quietUntil - Date.now()));
    return new Promise<void>((go) => this.waiters.push(go));
  };

  private scheduleResume(ms: number): void {
    if (this.resumeTimer) clearTimeout(this.resumeTimer);
    this.resumeTimer = setTimeout(() => {
      this.resumeTimer = undefined;
      if (this.held()) return this.scheduleResume(Math.max(50, this.quietUntil - Date.now()));
      this.release();
      void this.pump();
    }, ms);
    this.resumeTimer.unref?.();
  }

  private release(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const go of waiting) go();
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    let finished!: () => void;
    this.runDone = new Promise<void>((resolve) => (finished = resolve));
    const later: string[] = [];
    let laterMs = Infinity;
    try {
      while (!this.disposed && this.queue.length > 0) {
        if (this.held()) {
          this.scheduleResume(Math.max(50, this.quietUntil - Date.now()));
          break;
        }
        const path = this.queue.shift()!;
        const verdict = await this.worthPreparing(path);
        if (verdict === "now") await this.run(path);
        else if (typeof verdict === "number") {
          later.push(path);
          laterMs = Math.min(laterMs, verdict);
        }
      }
    } finally {
      this.running = false;
      finished();
    }
    if (later.length > 0 && !this.disposed) {
      // Sessions still being written: looked at again once they have settled.
      setTimeout(() => this.prepare([...this.queue, ...later]), laterMs).unref?.();
    }
  }

  /** "now": prepare it; "skip": nothing to do; a number: look again after that many ms. */
  private async worthPreparing(path: string): Promise<"now" | "skip" | number> {
    const dir = indexDirOf(this.options.index);
    if (dir === undefined) return "skip";
    try {
      const st = await fs.stat(path);
      if (!st.isFile() || st.size < (this.options.index?.minBytes ?? INDEX_DEFAULT_MIN_BYTES)) return "skip";
      const age = Date.now() - st.mtimeMs;
      const settle = this.options.settleMs ?? SETTLE_MS;
      if (age < settle) return settle - age;
      return (await indexLooksCurrent(path, dir, st)) ? "skip" : "now";
    } catch {
      return "skip";
    }
  }

  private async run(path: string): Promise<void> {
    const abort = new AbortController();
    const loading = loadSession(path, { index: this.options.index, signal: abort.signal, pause: this.pause });
    const job: Job = { path, abort, claimed: false, loaded: loading.catch(() => undefined) };
    this.job = job;
    this.options.onBusy?.(path);
    try {
      const loaded = await loading;
      // The index is saved before the next one starts; a session nobody opened is then let go.
      await loaded.indexWritten;
      if (!job.claimed) loaded.store.reader?.close();
    } catch (error) {
      if (!abort.signal.aborted) this.options.onError?.(path, error as Error);
    } finally {
      this.job = undefined;
      this.options.onBusy?.(undefined);
    }
  }
}

/** Whether the file at `path` is still the one that was loaded, at the same size and time. */
async function unchangedSince(loaded: LoadedSession, path: string): Promise<boolean> {
  try {
    const st = await fs.stat(path);
    return st.dev === loaded.stamp.dev && st.ino === loaded.stamp.ino && st.size === loaded.stamp.size && st.mtimeMs === loaded.stamp.mtimeMs;
  } catch {
    return false;
  }
}

function discard(loaded: LoadedSession | undefined): undefined {
  loaded?.store.reader?.close();
  return undefined;
}

/** At most this many of the listed sessions are prepared (the most recently used large ones). */
const MAX_PREPARED = 8;

/** The sessions worth preparing from a listing: large enough to have an index, newest first, not the open one. */
export function sessionsToPrepare(infos: readonly Pick<SessionInfo, "path" | "size" | "modified">[], current: string | undefined, minBytes = INDEX_DEFAULT_MIN_BYTES): string[] {
  return infos
    .filter((i) => i.size >= minBytes && i.path !== current)
    .sort((a, b) => b.modified.getTime() - a.modified.getTime())
    .slice(0, MAX_PREPARED)
    .map((i) => i.path);
}

/** The process's preparer: the extension feeds it the Sessions list, every open asks it first. */
export const preparedSessions = new SessionPreparer();
