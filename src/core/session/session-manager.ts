import { promises as fs } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { EntrySummary } from "../tree/types";
import { type Disposable, toDisposable } from "../util/disposable";
import { Emitter } from "../util/emitter";
import { BodyReader } from "./body-reader";
import { branchSinceCompaction, type BranchLeft, findBranchLeft } from "./path-walk";
import { EntryStore } from "./entry-store";
import { SessionError, type LineProblem } from "./errors";
import { backupPathFor, ioError } from "./file-io";
import { fileReplacedError, identityOf, sameFile, type FileIdentity } from "./file-identity";
import { watchFile } from "./file-tail";
import { createSessionId, generateEntryId, nowIso } from "./ids";
import { editableText } from "./entry-text";
import { findMostRecentSession } from "./session-discovery";
import { SessionReader } from "./session-reader";
import { ingestGrowth, readFrom } from "./session-growth";
import { SessionWriter } from "./session-writer";
import type { WriteResult } from "./append-queue";
import { sessionDirForCwd, sessionFileName, type SessionLocationOptions } from "./paths";
import { branchedLines, writeMigratedLines } from "./session-rewrite";
import { writeJsonLines, writeSessionFile } from "./session-file-write";
import { listAllSessions, listSessions, type ListOptions, type SessionInfo } from "./session-list";
import { loadSession, type LoadedSession } from "./session-loader";
import { preparedSessions } from "./session-preparer";
import { assertRegularFile } from "./session-file-check";
import { INDEX_DEFAULT_MIN_BYTES, indexDirOf, type IndexOptions, type IndexUse } from "./session-index";
import {
  CHECKOUT_CUSTOM_TYPE,
  CURRENT_SESSION_VERSION,
  type CompactionEntry,
  type ImageContent,
  type SessionEntry,
  type SessionHeader,
  type StoredMessage,
  type TextContent,
} from "./types";
import { acquireForWriting } from "./writable";
import { WriterLock, type LockInfo, type WriterLockOptions } from "./writer-lock";

/** How long after a failed write (a full disk, an I/O error) the queued entries are tried again. */
const RETRY_MS = 5_000;

export interface OpenOptions extends SessionLocationOptions {
  /** Where new sessions made from this one (forks) go; default: the file's folder. */
  forkDir?: string;
  /** Use this cwd instead of the header's. */
  cwdOverride?: string;
  /** Never write or lock: a viewer. */
  readOnly?: boolean;
  /** When another Arbor process holds the session: throw (default) or open as a live read-only view. */
  whenLocked?: "throw" | "read-only";
  lock?: WriterLockOptions;
  /** The reopen index in Arbor's cache (default: on for files of 1 MiB and more); false: none. */
  index?: IndexOptions | false;
}

/** What changed in a session; front ends apply these as increments. */
export type SessionChange =
  | { kind: "entries"; entries: EntrySummary[]; external: boolean }
  | { kind: "leaf"; leafId: string | null }
  | { kind: "labels"; labels: { targetId: string; label: string | undefined }[] }
  | { kind: "name"; name: string | undefined }
  | { kind: "problems"; problems: LineProblem[] }
  | { kind: "read-only"; reason: string; holder?: LockInfo; replaced?: boolean }
  /** Entries whose write failed and that wait in memory for the next try (empty: all saved again). */
  | { kind: "unsaved"; ids: string[]; error?: Error }
  | { kind: "reset" }
  | { kind: "error"; error: Error };

/** The result of a checkout: where the leaf went, and text offered for re-editing. */
export interface CheckoutResult {
  leafId: string | null;
  editText?: string;
}

/**
 * A session file as an append-only tree with a movable leaf, compatible with Pi's
 * SessionManager: same operations, same meanings. File I/O is asynchronous: appends update the
 * index at once and are written in order by a queue (await `flush()` for durability). Beyond Pi:
 * a checkout survives a reload (a marker entry Pi also resumes from), the file is followed live
 * as other processes append, only one Arbor process writes a session at a time, and nothing is
 * ever rewritten in place.
 */
export class SessionManager extends SessionReader implements Disposable {
  private readonly changes = new Emitter<SessionChange>();
  /** Subscribe to changes; the returned disposable unsubscribes. */
  readonly onDidChange = this.changes.event;

  private offset = 0;
  private lineCount = 0;
  /** The file this manager read and writes (undefined until a new session's file exists). */
  private identity: FileIdentity | undefined;
  /** The file's size and modification time when it was last read whole (see getCacheBasis). */
  private readStamp: { size: number; mtimeMs: number } | undefined;
  /** The file was replaced or deleted while open: no more writes or reads; everything stays in memory. */
  private detached = false;
  private retryTimer: NodeJS.Timeout | undefined;
  /** The file ends with a newline at `offset` (no torn or unterminated last line after what was read). */
  private endsClean = true;
  /** The file exists and holds the header (Pi waits for the first assistant message to create it). */
  private onDisk = false;
  /** The header and the entries held back so far are queued for the file. */
  private headerQueued = false;
  private hasAssistant = false;
  private needsMigrationRewrite = false;
  private writer: SessionWriter | undefined;
  private tail: Disposable | undefined;
  private catchUpChain: Promise<void> = Promise.resolve();
  private flushScheduled = false;
  private disposed = false;
  private index: IndexOptions | false | undefined;
  private indexUse: IndexUse = "off";
  private indexWritten: Promise<void> = Promise.resolve();

  private constructor(header: SessionHeader, cwd: string, sessionDir: string, sessionFile: string | undefined, persist: boolean) {
    super(header, cwd, sessionDir, sessionFile, persist);
  }

  // ---------------------------------------------------------------- factories

  /** A new session for `cwd`, in its per-cwd folder (or the explicit sessions directory). */
  static async create(cwd: string, opts: SessionLocationOptions & { parentSession?: string; lock?: WriterLockOptions } = {}): Promise<SessionManager> {
    const dir = sessionDirForCwd(cwd, opts);
    const header = SessionManager.newHeader(cwd, opts.parentSession);
    const sm = new SessionManager(header, cwd, dir, join(dir, sessionFileName(header.timestamp, header.id)), true);
    await fs.mkdir(dir, { recursive: true });
    sm.writer = sm.makeWriter(await WriterLock.acquire(sm.sessionFile!, opts.lock), undefined);
    return sm;
  }

  /** Opens a session file. Refuses a missing, empty or header-less file with a clear error. */
  static async open(path: string, opts: OpenOptions = {}): Promise<SessionManager> {
    const file = resolve(path);
    // A FIFO, device or folder is refused before it is opened (a read would hang) or locked.
    await assertRegularFile(file);
    // A session being prepared in the background is taken as it stands (never read twice), and any
    // other preparation waits while this one opens.
    const claim = opts.index === false ? undefined : preparedSessions.claim(file);
    let loaded: LoadedSession;
    try {
      loaded = (await claim?.loaded) ?? (await loadSession(file, { index: opts.index }));
    } finally {
      claim?.done();
    }
    const cwd = opts.cwdOverride ?? (typeof loaded.header.cwd === "string" ? loaded.header.cwd : process.cwd());
    const sm = new SessionManager(loaded.header, cwd, opts.forkDir ?? dirname(file), file, true);
    sm.index = opts.index;
    sm.adopt(loaded);
    if (opts.readOnly) {
      sm.readOnlyReason = "opened read-only";
      return sm;
    }
    try {
      sm.writer = sm.makeWriter(await acquireForWriting(file, opts.lock), sm.identity);
    } catch (err) {
      // A folder or file that cannot be written (read-only, full) still opens, as a read-only view.
      const viewInstead = err instanceof SessionError && (err.code === "read-only" || (err.code === "locked" && opts.whenLocked === "read-only"));
      if (!viewInstead) throw err;
      sm.readOnlyReason = err.message;
    }
    return sm;
  }

  /** A session that lives only in memory (the test seam). */
  static inMemory(cwd: string = process.cwd()): SessionManager {
    return new SessionManager(SessionManager.newHeader(cwd), cwd, "", undefined, false);
  }

  /** The most recently modified session of `cwd`, or a new one. */
  static async continueRecent(cwd: string, opts: OpenOptions = {}): Promise<SessionManager> {
    const dir = sessionDirForCwd(cwd, opts);
    const recent = await findMostRecentSession(dir);
    return recent ? SessionManager.open(recent, opts) : SessionManager.create(cwd, opts);
  }

  /**
   * A new session for `targetCwd` holding the whole history of another session file, with
   * `parentSession` pointing at it. Bad lines of the source are carried over as they are.
   */
  static async forkFrom(sourcePath: string, targetCwd: string, opts: SessionLocationOptions & { lock?: WriterLockOptions } = {}): Promise<SessionManager> {
    const source = resolve(sourcePath);
    await assertRegularFile(source);
    const loaded = await loadSession(source);
    const dir = sessionDirForCwd(targetCwd, opts);
    await fs.mkdir(dir, { recursive: true });
    const header = SessionManager.newHeader(targetCwd, source);
    const file = join(dir, sessionFileName(header.timestamp, header.id));
    // Streamed, so that a session of any size forks in a fixed amount of memory.
    try {
      await writeSessionFile(
        file,
        async (sink) => {
          await sink.writeLine(JSON.stringify(header));
          await writeMigratedLines(source, loaded, sink, { dropHeader: true });
        },
        { action: `Could not fork ${source} into ${file}`, kept: `${source} is unchanged` },
      );
    } finally {
      loaded.store.reader?.close();
    }
    return SessionManager.open(file, { ...opts, forkDir: dir, lock: opts.lock });
  }

  /**
   * A new session holding the root-to-`leafId` path of `source` (label entries dropped, labels on
   * the path re-applied), linked to it through `parentSession`. `leafId` null gives an empty
   * session. The source is only read, so a read-only view can be forked. Like Pi, the new file is
   * written once it holds an assistant message.
   */
  static async branchFrom(source: SessionManager, leafId: string | null, opts: { sessionDir?: string; lock?: WriterLockOptions; whole?: boolean; cwd?: string } = {}): Promise<SessionManager> {
    if (leafId !== null && !source.store.has(leafId)) throw new SessionError("unknown-entry", `No entry with id ${leafId} in this session`, source.sessionFile);
    // `cwd`: the new session works in another folder (a fork into a new git worktree).
    const cwd = opts.cwd ?? source.cwd;
    const header = SessionManager.newHeader(cwd, source.persist ? source.sessionFile : undefined);
    // `whole`: every entry in memory, written or not, every branch (Save as New Session).
    const entries = opts.whole ? source.getEntries() : leafId === null ? [] : branchedLines(source.store, source.getPathIds(leafId));
    if (!source.persist) {
      const sm = SessionManager.inMemory(cwd);
      for (const e of entries) sm.store.add(e as unknown as Record<string, unknown>, 0);
      sm.leafId = SessionManager.resumeLeaf(sm.store);
      return sm;
    }
    const dir = opts.sessionDir ?? source.sessionDir;
    await fs.mkdir(dir, { recursive: true });
    const file = join(dir, sessionFileName(header.timestamp, header.id));
    const store = new EntryStore();
    for (const e of entries) store.add(e as unknown as Record<string, unknown>, 0);
    const sm = new SessionManager(header, cwd, dir, file, true);
    const lock = await WriterLock.acquire(file, opts.lock);
    const onDisk = store.hasAssistant();
    if (onDisk) {
      await writeJsonLines(file, [header, ...entries], { action: `Could not write the new session ${file}`, kept: `${source.sessionFile} is unchanged and everything stays open in this window` }).catch(async (err: unknown) => {
        await lock.release();
        throw err;
      });
    }
    sm.store = store;
    sm.onDisk = onDisk;
    sm.headerQueued = onDisk;
    sm.hasAssistant = onDisk;
    sm.leafId = SessionManager.resumeLeaf(store);
    sm.writer = sm.makeWriter(lock, onDisk ? identityOf(await fs.stat(file)) : undefined);
    if (onDisk) await sm.catchUp();
    // A whole copy resumes where the source stood, on whatever branch (a checkout marker if needed).
    if (opts.whole && leafId !== null && sm.leafId !== leafId) sm.checkoutAt(leafId);
    return sm;
  }

  /** The sessions of `cwd`, newest first (see listSessions). */
  static list(cwd: string, opts: ListOptions = {}): Promise<SessionInfo[]> {
    return listSessions(cwd, opts);
  }

  /** The sessions of every workspace, newest first. */
  static listAll(opts: ListOptions = {}): Promise<SessionInfo[]> {
    return listAllSessions(opts);
  }

  private static newHeader(cwd: string, parentSession?: string): SessionHeader {
    const header: SessionHeader = { type: "session", version: CURRENT_SESSION_VERSION, id: createSessionId(), timestamp: nowIso(), cwd };
    if (parentSession !== undefined) header.parentSession = parentSession;
    return header;
  }

  private adopt(loaded: LoadedSession): void {
    if (this.store !== loaded.store) this.store.reader?.close();
    this.header = loaded.header;
    this.store = loaded.store;
    this.problems = loaded.problems;
    this.offset = loaded.offset;
    this.lineCount = loaded.lineCount;
    this.identity = { dev: loaded.dev, ino: loaded.ino };
    this.readStamp = { size: loaded.stamp.size, mtimeMs: loaded.stamp.mtimeMs };
    this.endsClean = !(loaded.unterminated && loaded.offset >= loaded.stamp.size);
    this.onDisk = true;
    this.headerQueued = true;
    this.needsMigrationRewrite = loaded.fileVersion < CURRENT_SESSION_VERSION;
    this.hasAssistant = loaded.store.hasAssistant();
    this.leafId = SessionManager.resumeLeaf(loaded.store);
    this.indexUse = loaded.indexUse;
    if (loaded.indexWritten) this.indexWritten = loaded.indexWritten;
  }

  /** How the last load used the reopen index (off, none, unchanged, grown, stale, corrupt). */
  getIndexUse(): IndexUse {
    return this.indexUse;
  }

  /**
   * Where the reopen index lives for this session (undefined: none) and which bytes of which file
   * were read: what a cache kept beside the index is keyed on (see the command line's tree text).
   */
  getCacheBasis(): { dir: string; minBytes: number; file: string; dev: number; ino: number; bytes: number; size: number; mtimeMs: number } | undefined {
    const dir = indexDirOf(this.index);
    const file = this.getSessionFile();
    if (dir === undefined || !file || !this.identity || !this.readStamp || this.detached) return undefined;
    const minBytes = (this.index === false ? undefined : this.index?.minBytes) ?? INDEX_DEFAULT_MIN_BYTES;
    const { size, mtimeMs } = this.readStamp;
    return { dir, minBytes, file, dev: this.identity.dev, ino: this.identity.ino, bytes: this.offset, size, mtimeMs };
  }

  /** Settles when the reopen index made by the last load is saved (it is saved in the background). */
  whenIndexSaved(): Promise<void> {
    return this.indexWritten;
  }

  /** Pi resumes at the last entry in file order; an Arbor checkout marker stands for its parent. */
  private static resumeLeaf(store: EntryStore): string | null {
    const last = store.lastIndex();
    if (last < 0) return null;
    if (store.isCheckoutMarker(last)) {
      const parentId = store.parentIdAt(last);
      return parentId !== null && store.has(parentId) ? parentId : null;
    }
    return store.idAt(last);
  }

  // ---------------------------------------------------------------- appends

  private assertWritable(): void {
    if (this.disposed) throw new SessionError("disposed", "This session has been closed", this.sessionFile);
    if (this.readOnlyReason !== undefined) {
      throw new SessionError("read-only", `Session is read-only: ${this.readOnlyReason}`, this.sessionFile);
    }
  }

  private newId(): string {
    return generateEntryId(this.store);
  }

  private appendEntry(entry: SessionEntry, moveLeaf = true): string {
    this.assertWritable();
    const result = this.store.add(entry as unknown as Record<string, unknown>, 0);
    const at = typeof result === "number" ? result : this.store.indexOf(entry.id);
    if (this.store.roleAt(at) === "assistant") this.hasAssistant = true;
    if (moveLeaf) this.leafId = entry.id;
    this.persistEntry(entry);
    // A summary is made only for someone who listens (a headless agent appends without one).
    if (this.changes.hasListeners) this.changes.fire({ kind: "entries", entries: [this.store.summaryAt(at)], external: false });
    if (entry.type === "label") this.changes.fire({ kind: "labels", labels: [{ targetId: entry.targetId, label: entry.label || undefined }] });
    if (entry.type === "session_info") this.changes.fire({ kind: "name", name: this.store.name });
    if (moveLeaf) this.changes.fire({ kind: "leaf", leafId: this.leafId });
    return entry.id;
  }

  private base(): { id: string; parentId: string | null; timestamp: string } {
    return { id: this.newId(), parentId: this.leafId, timestamp: nowIso() };
  }

  /** Appends a message (user, assistant, toolResult, bashExecution, custom) under the leaf. */
  appendMessage(message: StoredMessage): string {
    const b = this.base();
    return this.appendEntry({ type: "message", ...b, message });
  }
  appendThinkingLevelChange(thinkingLevel: string): string {
    const b = this.base();
    return this.appendEntry({ type: "thinking_level_change", ...b, thinkingLevel });
  }
  appendModelChange(provider: string, modelId: string): string {
    const b = this.base();
    return this.appendEntry({ type: "model_change", ...b, provider, modelId });
  }
  appendCompaction(summary: string, firstKeptEntryId: string, tokensBefore: number, details?: unknown, fromHook?: boolean): string {
    const b = this.base();
    const entry: CompactionEntry = { type: "compaction", ...b, summary, firstKeptEntryId, tokensBefore };
    if (details !== undefined) entry.details = details;
    if (fromHook !== undefined) entry.fromHook = fromHook;
    return this.appendEntry(entry);
  }
  appendCustomEntry(customType: string, data?: unknown): string {
    const b = this.base();
    return this.appendEntry(data === undefined ? { type: "custom", customType, ...b } : { type: "custom", customType, data, ...b });
  }
  appendCustomMessageEntry(customType: string, content: string | (TextContent | ImageContent)[], display: boolean, details?: unknown): string {
    const b = this.base();
    const entry: SessionEntry = { type: "custom_message", customType, content, display, ...b };
    if (details !== undefined) entry.details = details;
    return this.appendEntry(entry);
  }
  /** Names the session (an empty name clears it). */
  appendSessionInfo(name: string): string {
    const b = this.base();
    return this.appendEntry({ type: "session_info", ...b, name: name.trim() });
  }
  /** Sets (or, with undefined or "", clears) the label of an entry. */
  appendLabelChange(targetId: string, label: string | undefined): string {
    if (!this.store.has(targetId)) throw new SessionError("unknown-entry", `No entry with id ${targetId} in this session`, this.sessionFile);
    const b = this.base();
    const entry: SessionEntry = { type: "label", ...b, targetId };
    if (label) entry.label = label;
    return this.appendEntry(entry);
  }

  // ---------------------------------------------------------------- leaf moves

  /** The position of an entry, or a clear error. */
  private requireEntry(id: string): number {
    const i = this.store.indexOf(id);
    if (i < 0) throw new SessionError("unknown-entry", `No entry with id ${id} in this session`, this.sessionFile);
    return i;
  }

  /** Moves the leaf to an entry (in memory only, as Pi does). */
  branch(id: string): void {
    this.requireEntry(id);
    this.setLeaf(id);
  }

  /** Moves the leaf before the first entry: the next append starts a new root. */
  resetLeaf(): void {
    this.setLeaf(null);
  }

  private setLeaf(id: string | null): void {
    if (this.leafId === id) return;
    this.leafId = id;
    this.changes.fire({ kind: "leaf", leafId: id });
  }

  /** Moves the leaf to `fromId` (or before the root) and records a summary of the branch left behind. */
  branchWithSummary(fromId: string | null, summary: string, details?: unknown, fromHook?: boolean): string {
    if (fromId !== null) this.requireEntry(fromId);
    this.assertWritable();
    this.leafId = fromId;
    const entry: SessionEntry = { type: "branch_summary", id: this.newId(), parentId: fromId, timestamp: nowIso(), fromId: fromId ?? "root", summary };
    if (details !== undefined) entry.details = details;
    if (fromHook !== undefined) entry.fromHook = fromHook;
    return this.appendEntry(entry);
  }

  /**
   * Checks out an entry with Pi's navigation semantics: on a user message (or a custom message)
   * the leaf goes to its parent and its text is offered for editing; any other entry becomes the
   * leaf. The new position survives a reload: a checkout marker (a custom entry Pi ignores in
   * context) is appended under it, so the last entry in file order resolves to the same context
   * in Pi and in Arbor. Read-only sessions move the leaf in memory only.
   */
  checkout(id: string): CheckoutResult {
    const at = this.requireEntry(id);
    let leafId: string | null = id;
    let editText: string | undefined;
    if (this.store.roleAt(at) === "user" || this.store.typeAt(at) === "custom_message") {
      const entry = this.store.entryAt(at);
      const content = entry.type === "custom_message" ? entry.content : entry.type === "message" && entry.message.role === "user" ? entry.message.content : "";
      editText = editableText(content);
      const parentId = this.store.parentIdAt(at);
      leafId = parentId !== null && this.store.has(parentId) ? parentId : null;
    }
    this.checkoutAt(leafId);
    return editText === undefined ? { leafId } : { leafId, editText };
  }

  /**
   * The entries a move of the leaf from `fromId` to `toId` leaves behind (oldest first) and where
   * the two paths meet, from positions alone: no entry is read (see findBranchLeft).
   */
  getBranchLeft(fromId: string | null, toId: string | null): BranchLeft {
    return findBranchLeft(this.store, fromId, toId);
  }

  /**
   * The path to the leaf from its latest compaction on (that compaction first), or [] when it has
   * none: what the context's use reads of the path, without parsing the rest of it.
   */
  getBranchSinceCompaction(): SessionEntry[] {
    return branchSinceCompaction(this.store, this.leafId);
  }

  /** Moves the leaf to exactly `leafId`, persisted with a checkout marker when a reload would not resume there. */
  private checkoutAt(leafId: string | null): void {
    this.setLeaf(leafId);
    if (this.persist && !this.isReadOnly() && SessionManager.resumeLeaf(this.store) !== leafId) {
      const marker: SessionEntry = { type: "custom", customType: CHECKOUT_CUSTOM_TYPE, data: { leafId }, id: this.newId(), parentId: leafId, timestamp: nowIso() };
      this.appendEntry(marker, false);
    }
  }

  // ---------------------------------------------------------------- forks

  /**
   * Pi's `createBranchedSession`: a new file holding only the root-to-`leafId` path (label
   * entries dropped, then one fresh label entry per label on the path), whose header links to
   * this file; this manager then works on the new file. Returns its path (undefined in memory).
   */
  async createBranchedSession(leafId: string): Promise<string | undefined> {
    if (!this.store.has(leafId)) throw new SessionError("unknown-entry", `No entry with id ${leafId} in this session`, this.sessionFile);
    const header = SessionManager.newHeader(this.cwd, this.persist ? this.sessionFile : undefined);
    if (!this.persist) delete header.parentSession;
    const entries = branchedLines(this.store, this.getPathIds(leafId));
    const store = new EntryStore();
    for (const e of entries) store.add(e as unknown as Record<string, unknown>, 0);
    if (!this.persist) {
      this.header = header;
      this.store = store;
      this.leafId = SessionManager.resumeLeaf(store);
      this.changes.fire({ kind: "reset" });
      return undefined;
    }
    await this.flush();
    const file = join(this.sessionDir, sessionFileName(header.timestamp, header.id));
    const hasAssistant = store.hasAssistant();
    if (hasAssistant) await writeJsonLines(file, [header, ...entries], { action: `Could not write the forked session ${file}`, kept: "this session is unchanged" });
    await this.switchFile(file, header, store, hasAssistant);
    return file;
  }

  private async switchFile(file: string, header: SessionHeader, store: EntryStore, onDisk: boolean): Promise<void> {
    this.tail?.dispose();
    this.tail = undefined;
    await this.writer?.close();
    this.writer = undefined;
    this.header = header;
    this.store.reader?.close();
    this.store = store;
    this.sessionFile = file;
    this.problems = [];
    this.onDisk = onDisk;
    this.headerQueued = onDisk;
    this.needsMigrationRewrite = false;
    this.hasAssistant = store.hasAssistant();
    this.leafId = SessionManager.resumeLeaf(store);
    this.offset = 0;
    this.lineCount = 0;
    this.endsClean = true;
    this.readOnlyReason = undefined;
    this.detached = false;
    this.identity = onDisk ? identityOf(await fs.stat(file)) : undefined;
    this.readStamp = undefined;
    this.writer = this.makeWriter(await WriterLock.acquire(file), this.identity);
    if (onDisk) await this.catchUp();
    this.changes.fire({ kind: "reset" });
  }

  // ---------------------------------------------------------------- writing

  private makeWriter(lock: WriterLock, identity: FileIdentity | undefined): SessionWriter {
    return new SessionWriter(
      this.sessionFile!,
      lock,
      {
        prepare: () => this.rewriteIfOldFormat(),
        knownEnd: () => (this.onDisk && this.endsClean ? this.offset : undefined),
        written: (result) => this.placeWritten(result),
      },
      identity,
    );
  }

  /** Before the first append, a file in an old format is rewritten migrated (crash-safe, with a backup). */
  private async rewriteIfOldFormat(): Promise<void> {
    if (!this.needsMigrationRewrite || !this.sessionFile) return;
    const loaded = await loadSession(this.sessionFile);
    // Only the file's bytes and this session's ids are used: the loaded index's reader is let go.
    loaded.store.reader?.close();
    const file = this.sessionFile;
    let copied = 0;
    const written = await writeSessionFile(
      file,
      async (sink) => void (copied = await writeMigratedLines(file, loaded, sink, { dropHeader: false, idsFrom: this.store })),
      {
        action: `Could not bring ${file} to the current format before writing to it`,
        kept: "the file is unchanged and the new entries wait in memory",
        backupPath: backupPathFor(file, `v${loaded.fileVersion}`),
        // A second writer (an older Pi) that appended meanwhile would lose its lines to the rename: try again later instead.
        beforeRename: async () => {
          if ((await fs.stat(file)).size !== copied) throw new SessionError("io", "another program wrote to it meanwhile (Arbor tries again)", file);
        },
      },
    );
    this.needsMigrationRewrite = false;
    this.header = { ...this.header, version: CURRENT_SESSION_VERSION };
    const st = await fs.stat(this.sessionFile);
    this.identity = identityOf(st);
    this.readStamp = undefined;
    await this.writer?.expect(this.identity);
    this.offset = written.bytes;
    this.lineCount = written.lines;
    this.endsClean = true;
  }

  private persistEntry(entry: SessionEntry): void {
    if (!this.persist || !this.writer) return;
    if (!this.headerQueued && !this.hasAssistant) return; // Pi waits for the first reply before creating the file
    if (!this.headerQueued) {
      const lines = [JSON.stringify(this.header)];
      const ids: (string | undefined)[] = [undefined];
      for (let i = 0; i < this.store.size; i++) {
        lines.push(JSON.stringify(this.store.entryAt(i)));
        ids.push(this.store.idAt(i));
      }
      this.writer.enqueue(lines, ids);
      this.headerQueued = true;
    } else {
      this.writer.enqueue([JSON.stringify(entry)], [entry.id]);
    }
    if (!this.flushScheduled) {
      // One write per burst of appends: everything appended in this tick goes out together.
      this.flushScheduled = true;
      queueMicrotask(() => {
        this.flushScheduled = false;
        this.flush().catch(() => undefined); // reported by flush itself
      });
    }
  }

  /**
   * Losing the lock makes this window a read-only view, and so does a file replaced or deleted
   * while open: its unwritten entries stay in memory (Save as New Session keeps them). Any other
   * failure (a full disk, an I/O error) keeps the entries queued, tells the front ends which ones,
   * and tries again a little later; a retry writes each line once.
   */
  private onWriteError(error: Error): void {
    if (error instanceof SessionError && error.code === "replaced") this.detach(error);
    else if (error instanceof SessionError && error.code === "locked" && this.readOnlyReason === undefined) {
      this.readOnlyReason = error.message;
      this.changes.fire({ kind: "read-only", reason: error.message });
    }
    this.changes.fire({ kind: "error", error });
    this.changes.fire({ kind: "unsaved", ids: this.writer?.failedIds() ?? [], error });
    if (!this.isReadOnly()) this.scheduleRetry();
  }

  /** Stops writing to (and reading) a file that is no longer the one this session read. */
  private detach(error: SessionError): void {
    if (this.detached) return;
    this.detached = true;
    this.tail?.dispose();
    this.tail = undefined;
    this.readOnlyReason = error.message;
    this.changes.fire({ kind: "read-only", reason: error.message, replaced: true });
  }

  /** The file was replaced or deleted while open (this session keeps everything in memory; save it as a new one). */
  isDetached(): boolean {
    return this.detached;
  }

  /** Entries whose write failed and that are kept in memory until a write succeeds (or a save as a new session). */
  getUnsavedEntryIds(): string[] {
    return this.writer?.failedIds() ?? [];
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.disposed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.disposed && !this.isReadOnly()) this.flush().catch(() => undefined);
    }, RETRY_MS);
    this.retryTimer.unref();
  }

  /** Resolves when every append so far is written to the file. */
  async flush(): Promise<void> {
    const hadFailures = (this.writer?.failedIds().length ?? 0) > 0;
    try {
      await this.writer?.flush();
    } catch (err) {
      this.onWriteError(err as Error);
      throw err;
    }
    if (hadFailures && this.writer?.failedIds().length === 0) this.changes.fire({ kind: "unsaved", ids: [] });
  }

  // ---------------------------------------------------------------- following the file

  /**
   * Follows the file as other processes append to it: only the new bytes are read, a line
   * still being written waits for its newline, and a file replaced or truncated is read anew.
   */
  startLiveTail(): Disposable {
    if (!this.sessionFile) return toDisposable(() => undefined);
    this.tail?.dispose();
    const tail = watchFile(this.sessionFile, () => this.catchUp());
    this.tail = tail;
    return toDisposable(() => {
      tail.dispose();
      if (this.tail === tail) this.tail = undefined;
    });
  }

  /**
   * After a write: when the file grew by exactly the bytes written, right where this session
   * left it, nobody else wrote in between, and the new lines are placed without reading them back.
   * Otherwise (another process appended, a torn line was ended first) the file is read from
   * where the session left it, as the live tail does. Serialized with the tail's reads.
   */
  private placeWritten(result: WriteResult): Promise<void> {
    const ids = result.ids;
    this.onDisk = true;
    // The file this session's first write created is the one the live tail must keep seeing.
    this.identity ??= result.identity;
    const place = async (): Promise<void> => {
      let bytes = result.leadingNewline ? 1 : 0;
      for (const n of result.lengths) bytes += n + 1;
      if (this.disposed || result.leadingNewline || !this.endsClean || result.before !== this.offset || result.after !== result.before + bytes) return this.readGrowth();
      // Entries written here are read back from the file when asked for again: it needs a reader.
      if (!this.store.reader && this.sessionFile) this.store.reader = BodyReader.open(this.sessionFile);
      let at = result.before;
      let line = this.lineCount;
      result.lengths.forEach((length, k) => {
        line++;
        const id = ids[k];
        const i = id ? this.store.indexOf(id) : -1;
        if (i >= 0 && this.store.lineAt(i) === 0) this.store.setLocation(i, line, { offset: at, length });
        at += length + 1;
      });
      this.offset = at;
      this.lineCount = line;
    };
    const next = this.catchUpChain.then(place);
    this.catchUpChain = next.catch(() => undefined);
    return next;
  }

  /** Reads whatever the file gained since the last read. Serialized. */
  catchUp(): Promise<void> {
    const next = this.catchUpChain.then(() => this.readGrowth());
    this.catchUpChain = next.catch(() => undefined);
    return next;
  }

  private async readGrowth(): Promise<void> {
    const file = this.sessionFile;
    if (!file || !this.onDisk || this.disposed || this.detached) return;
    let st;
    try {
      st = await fs.stat(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw ioError(err, "read", file);
      // A writer stops (keeping everything); a viewer keeps showing what it read.
      if (!this.isReadOnly()) this.detach(fileReplacedError(file, "deleted"));
      return;
    }
    const replaced = this.identity !== undefined && !sameFile(identityOf(st), this.identity);
    if (replaced || st.size < this.offset) {
      // A writer never reads another file into the session it writes: it stops and keeps its entries.
      if (!this.isReadOnly()) return this.detach(fileReplacedError(file, "replaced"));
      return this.reload();
    }
    this.identity = identityOf(st);
    let buf = await readFrom(file, this.offset, st.size);
    if (!buf) return;
    if (!this.endsClean && buf[0] === 0x0a) {
      // The newline that ends a last line read without one: that line was counted already.
      this.offset += 1;
      this.endsClean = true;
      buf = buf.subarray(1);
    }
    const nameBefore = this.store.name;
    const growth = ingestGrowth(this.store, buf, this.offset, this.lineCount + 1, this.leafId, this.isReadOnly());
    this.offset += growth.consumedBytes;
    this.lineCount += growth.consumedLines;
    if (growth.consumedBytes > 0) this.endsClean = true;
    if (growth.sawAssistant) this.hasAssistant = true;
    const { problems } = growth;
    if (problems.length) {
      this.problems = [...this.problems.filter((p) => !problems.some((q) => q.line === p.line)), ...problems].sort((a, b) => a.line - b.line);
      this.changes.fire({ kind: "problems", problems });
    }
    // The leaf moves before "entries" fires, as for an entry appended here: a listener of "entries"
    // sees the leaf the new entries brought (the tree follows it), and "leaf" fires after.
    const leafMoved = growth.leafId !== this.leafId;
    if (leafMoved) this.leafId = growth.leafId;
    if (growth.added.length) this.changes.fire({ kind: "entries", entries: growth.added, external: true });
    if (growth.labels.length) this.changes.fire({ kind: "labels", labels: growth.labels });
    if (this.store.name !== nameBefore) this.changes.fire({ kind: "name", name: this.store.name });
    if (leafMoved) this.changes.fire({ kind: "leaf", leafId: this.leafId });
  }

  private async reload(): Promise<void> {
    const loaded = await loadSession(this.sessionFile!, { index: this.index });
    const keep = this.leafId;
    this.adopt(loaded);
    if (keep !== null && this.store.has(keep)) this.leafId = keep;
    this.changes.fire({ kind: "reset" });
  }

  // ---------------------------------------------------------------- lifetime

  /** Writes what is queued, stops following the file and releases the writer lock. */
  async close(): Promise<void> {
    if (this.disposed) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    try {
      // A detached session cannot write: its entries stay in memory until it is saved as a new session.
      if (!this.detached) await this.flush();
    } finally {
      this.disposed = true;
      this.tail?.dispose();
      await this.writer?.close();
      this.store.reader?.close();
      this.changes.dispose();
    }
  }

  /** Synchronous dispose for owners that cannot await; pending writes still complete. */
  dispose(): void {
    void this.close().catch(() => undefined);
  }
}
