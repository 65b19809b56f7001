import { promises as fs } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { resolveContext } from "../context/build-context";
import type { EntrySummary } from "../tree/types";
import { type Disposable, toDisposable } from "../util/disposable";
import { Emitter } from "../util/emitter";
import { AppendQueue } from "./append-queue";
import { EntryStore, type EntryRecord } from "./entry-store";
import { SessionError, type LineProblem } from "./errors";
import { backupPathFor, ioError, writeFileAtomic } from "./file-io";
import { watchFile } from "./file-tail";
import { createSessionId, generateEntryId, nowIso } from "./ids";
import { parseChunk } from "./line-parser";
import { sessionDirForCwd, sessionFileName, type SessionLocationOptions } from "./paths";
import { branchedLines, migratedFileText } from "./session-rewrite";
import { listAllSessions, listSessions, type ListOptions, type SessionInfo } from "./session-list";
import { loadSession, type LoadedSession } from "./session-loader";
import { buildEntryTree, buildSummaryTree, type SessionTreeNode, type SummaryTreeNode } from "./session-tree";
import {
  CHECKOUT_CUSTOM_TYPE,
  CURRENT_SESSION_VERSION,
  type CompactionEntry,
  type ImageContent,
  type SessionContext,
  type SessionEntry,
  type SessionHeader,
  type StoredMessage,
  type TextContent,
} from "./types";
import { WriterLock, type LockInfo, type WriterLockOptions } from "./writer-lock";

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
}

/** What changed in a session; front ends apply these as increments. */
export type SessionChange =
  | { kind: "entries"; entries: EntrySummary[]; external: boolean }
  | { kind: "leaf"; leafId: string | null }
  | { kind: "labels"; labels: { targetId: string; label: string | undefined }[] }
  | { kind: "name"; name: string | undefined }
  | { kind: "problems"; problems: LineProblem[] }
  | { kind: "read-only"; reason: string; holder?: LockInfo }
  | { kind: "reset" }
  | { kind: "error"; error: Error };

/** The result of a checkout: where the leaf went, and text offered for re-editing. */
export interface CheckoutResult {
  leafId: string | null;
  editText?: string;
}

function messageText(content: string | (TextContent | ImageContent)[]): string {
  if (typeof content === "string") return content;
  return content.filter((b): b is TextContent => b.type === "text").map((b) => b.text).join("\n");
}

/**
 * A session file as an append-only tree with a movable leaf, compatible with Pi's
 * SessionManager: same operations, same meanings. File I/O is asynchronous: appends update the
 * index at once and are written in order by a queue (await `flush()` for durability). Beyond Pi:
 * a checkout survives a reload (a marker entry Pi also resumes from), the file is followed live
 * as other processes append, only one Arbor process writes a session at a time, and nothing is
 * ever rewritten in place.
 */
export class SessionManager implements Disposable {
  private readonly changes = new Emitter<SessionChange>();
  /** Subscribe to changes; the returned disposable unsubscribes. */
  readonly onDidChange = this.changes.event;

  private store = new EntryStore();
  private leafId: string | null = null;
  private problems: LineProblem[] = [];
  private offset = 0;
  private lineCount = 0;
  private ino = 0;
  /** The file exists and holds the header (Pi waits for the first assistant message to create it). */
  private onDisk = false;
  /** The header and the entries held back so far are queued for the file. */
  private headerQueued = false;
  private hasAssistant = false;
  private needsMigrationRewrite = false;
  private queue: AppendQueue | undefined;
  private lock: WriterLock | undefined;
  private readOnlyReason: string | undefined;
  private tail: Disposable | undefined;
  private catchUpChain: Promise<void> = Promise.resolve();
  private flushScheduled = false;
  private disposed = false;

  private constructor(
    private header: SessionHeader,
    private cwd: string,
    private sessionDir: string,
    private sessionFile: string | undefined,
    private readonly persist: boolean,
  ) {}

  // ---------------------------------------------------------------- factories

  /** A new session for `cwd`, in its per-cwd folder (or the explicit sessions directory). */
  static async create(cwd: string, opts: SessionLocationOptions & { parentSession?: string; lock?: WriterLockOptions } = {}): Promise<SessionManager> {
    const dir = sessionDirForCwd(cwd, opts);
    const header = SessionManager.newHeader(cwd, opts.parentSession);
    const sm = new SessionManager(header, cwd, dir, join(dir, sessionFileName(header.timestamp, header.id)), true);
    await fs.mkdir(dir, { recursive: true });
    sm.lock = await WriterLock.acquire(sm.sessionFile!, opts.lock);
    sm.queue = sm.makeQueue();
    return sm;
  }

  /** Opens a session file. Refuses a missing, empty or header-less file with a clear error. */
  static async open(path: string, opts: OpenOptions = {}): Promise<SessionManager> {
    const file = resolve(path);
    const loaded = await loadSession(file);
    const cwd = opts.cwdOverride ?? (typeof loaded.header.cwd === "string" ? loaded.header.cwd : process.cwd());
    const sm = new SessionManager(loaded.header, cwd, opts.forkDir ?? dirname(file), file, true);
    sm.adopt(loaded);
    if (opts.readOnly) {
      sm.readOnlyReason = "opened read-only";
      return sm;
    }
    try {
      sm.lock = await WriterLock.acquire(file, opts.lock);
    } catch (err) {
      if (!(err instanceof SessionError) || err.code !== "locked" || opts.whenLocked !== "read-only") throw err;
      sm.readOnlyReason = err.message;
      return sm;
    }
    sm.queue = sm.makeQueue();
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
    const loaded = await loadSession(source);
    const dir = sessionDirForCwd(targetCwd, opts);
    await fs.mkdir(dir, { recursive: true });
    const header = SessionManager.newHeader(targetCwd, source);
    const file = join(dir, sessionFileName(header.timestamp, header.id));
    const body = await migratedFileText(source, loaded, { dropHeader: true });
    await writeFileAtomic(file, `${JSON.stringify(header)}\n${body}`);
    return SessionManager.open(file, { ...opts, forkDir: dir, lock: opts.lock });
  }

  /**
   * A new session holding the root-to-`leafId` path of `source` (label entries dropped, labels on
   * the path re-applied), linked to it through `parentSession`. `leafId` null gives an empty
   * session. The source is only read, so a read-only view can be forked. Like Pi, the new file is
   * written once it holds an assistant message.
   */
  static async branchFrom(source: SessionManager, leafId: string | null, opts: { sessionDir?: string; lock?: WriterLockOptions } = {}): Promise<SessionManager> {
    if (leafId !== null && !source.store.has(leafId)) throw new SessionError("unknown-entry", `No entry with id ${leafId} in this session`, source.sessionFile);
    const header = SessionManager.newHeader(source.cwd, source.persist ? source.sessionFile : undefined);
    const entries = leafId === null ? [] : branchedLines(source.store, source.getPathIds(leafId));
    if (!source.persist) {
      const sm = SessionManager.inMemory(source.cwd);
      for (const e of entries) sm.store.add(e as unknown as Record<string, unknown>, 0);
      sm.leafId = SessionManager.resumeLeaf(sm.store);
      return sm;
    }
    const dir = opts.sessionDir ?? source.sessionDir;
    await fs.mkdir(dir, { recursive: true });
    const file = join(dir, sessionFileName(header.timestamp, header.id));
    const store = new EntryStore();
    for (const e of entries) store.add(e as unknown as Record<string, unknown>, 0);
    const sm = new SessionManager(header, source.cwd, dir, file, true);
    sm.lock = await WriterLock.acquire(file, opts.lock);
    const onDisk = store.all().some((r) => r.role === "assistant");
    if (onDisk) await writeFileAtomic(file, [header, ...entries].map((e) => JSON.stringify(e)).join("\n") + "\n");
    sm.store = store;
    sm.onDisk = onDisk;
    sm.headerQueued = onDisk;
    sm.hasAssistant = onDisk;
    sm.leafId = SessionManager.resumeLeaf(store);
    sm.queue = sm.makeQueue();
    if (onDisk) await sm.catchUp();
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
    this.header = loaded.header;
    this.store = loaded.store;
    this.problems = loaded.problems;
    this.offset = loaded.offset;
    this.lineCount = loaded.lineCount;
    this.ino = loaded.ino;
    this.onDisk = true;
    this.headerQueued = true;
    this.needsMigrationRewrite = loaded.fileVersion < CURRENT_SESSION_VERSION;
    this.hasAssistant = loaded.store.all().some((r) => r.role === "assistant");
    this.leafId = SessionManager.resumeLeaf(loaded.store);
  }

  /** Pi resumes at the last entry in file order; an Arbor checkout marker stands for its parent. */
  private static resumeLeaf(store: EntryStore): string | null {
    const last = store.last();
    if (!last) return null;
    if (last.summary.checkoutMarker) return last.parentId !== null && store.has(last.parentId) ? last.parentId : null;
    return last.id;
  }

  // ---------------------------------------------------------------- reads

  getHeader(): SessionHeader {
    return this.header;
  }
  getCwd(): string {
    return this.cwd;
  }
  getSessionDir(): string {
    return this.sessionDir;
  }
  getSessionId(): string {
    return this.header.id;
  }
  getSessionFile(): string | undefined {
    return this.sessionFile;
  }
  isPersisted(): boolean {
    return this.persist;
  }
  /** Why this manager cannot write, or undefined when it can. */
  getReadOnlyReason(): string | undefined {
    return this.readOnlyReason;
  }
  isReadOnly(): boolean {
    return this.readOnlyReason !== undefined;
  }
  /** Lines of the file that could not be read as entries (kept in the file). */
  getProblems(): readonly LineProblem[] {
    return this.problems;
  }
  getLeafId(): string | null {
    return this.leafId;
  }
  getLeafEntry(): SessionEntry | undefined {
    return this.leafId ? this.getEntry(this.leafId) : undefined;
  }
  getEntry(id: string): SessionEntry | undefined {
    return this.store.entry(id);
  }
  hasEntry(id: string): boolean {
    return this.store.has(id);
  }
  getEntryCount(): number {
    return this.store.size;
  }
  getSummary(id: string): EntrySummary | undefined {
    return this.store.record(id)?.summary;
  }
  /** The light view of every entry, in file order. */
  getSummaries(): EntrySummary[] {
    return this.store.all().map((r) => r.summary);
  }
  /** Every entry in file order (parses all of them: the slow path on huge files). */
  getEntries(): SessionEntry[] {
    return this.store.all().map((r) => this.store.materialize(r));
  }
  getChildren(parentId: string): SessionEntry[] {
    return this.store.childrenOf(parentId).map((id) => this.store.entry(id)!);
  }
  getLabel(id: string): string | undefined {
    return this.store.labelOf(id);
  }
  /** The label map: target id -> label (last label entry in file order wins). */
  getLabels(): Map<string, string> {
    return new Map([...this.store.labels()].map(([k, v]) => [k, v.label]));
  }
  getSessionName(): string | undefined {
    return this.store.name;
  }
  /** Ids from the root to `fromId` (default: the leaf). Stops at a missing parent or a cycle. */
  getPathIds(fromId?: string | null): string[] {
    const start = fromId === undefined ? this.leafId : fromId;
    const ids: string[] = [];
    const seen = new Set<string>();
    let current = start ? this.store.record(start) : undefined;
    while (current && !seen.has(current.id)) {
      seen.add(current.id);
      ids.push(current.id);
      current = current.parentId ? this.store.record(current.parentId) : undefined;
    }
    return ids.reverse();
  }
  /** The entries from the root to `fromId` (default: the leaf). */
  getBranch(fromId?: string): SessionEntry[] {
    return this.getPathIds(fromId).map((id) => this.store.entry(id)!);
  }
  /** What the model sees at `leafId` (default: the current leaf). */
  buildSessionContext(leafId?: string | null): SessionContext {
    return resolveContext(this.store, leafId === undefined ? this.leafId : leafId);
  }
  /** Pi's tree: full entries (parses all of them). */
  getTree(): SessionTreeNode[] {
    return buildEntryTree(this.store);
  }
  /** The light tree the UI draws. */
  getSummaryTree(): SummaryTreeNode[] {
    return buildSummaryTree(this.store);
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
    const record = "kind" in result ? this.store.record(entry.id)! : result;
    if (record.role === "assistant") this.hasAssistant = true;
    if (moveLeaf) this.leafId = entry.id;
    this.persistEntry(entry);
    this.changes.fire({ kind: "entries", entries: [record.summary], external: false });
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

  private requireEntry(id: string): EntryRecord {
    const r = this.store.record(id);
    if (!r) throw new SessionError("unknown-entry", `No entry with id ${id} in this session`, this.sessionFile);
    return r;
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
    const record = this.requireEntry(id);
    let leafId: string | null = id;
    let editText: string | undefined;
    if (record.role === "user" || record.type === "custom_message") {
      const entry = this.store.materialize(record);
      const content = entry.type === "custom_message" ? entry.content : entry.type === "message" && entry.message.role === "user" ? entry.message.content : "";
      editText = messageText(content);
      leafId = record.parentId !== null && this.store.has(record.parentId) ? record.parentId : null;
    }
    this.setLeaf(leafId);
    if (this.persist && !this.isReadOnly() && SessionManager.resumeLeaf(this.store) !== leafId) {
      const marker: SessionEntry = { type: "custom", customType: CHECKOUT_CUSTOM_TYPE, data: { leafId }, id: this.newId(), parentId: leafId, timestamp: nowIso() };
      this.appendEntry(marker, false);
    }
    return editText === undefined ? { leafId } : { leafId, editText };
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
    const hasAssistant = store.all().some((r) => r.role === "assistant");
    if (hasAssistant) await writeFileAtomic(file, [header, ...entries].map((e) => JSON.stringify(e)).join("\n") + "\n");
    await this.switchFile(file, header, store, hasAssistant);
    return file;
  }

  private async switchFile(file: string, header: SessionHeader, store: EntryStore, onDisk: boolean): Promise<void> {
    this.tail?.dispose();
    this.tail = undefined;
    await this.queue?.close();
    await this.lock?.release();
    this.header = header;
    this.store = store;
    this.sessionFile = file;
    this.problems = [];
    this.onDisk = onDisk;
    this.headerQueued = onDisk;
    this.needsMigrationRewrite = false;
    this.hasAssistant = store.all().some((r) => r.role === "assistant");
    this.leafId = SessionManager.resumeLeaf(store);
    this.offset = 0;
    this.lineCount = 0;
    this.readOnlyReason = undefined;
    this.lock = await WriterLock.acquire(file);
    this.queue = this.makeQueue();
    if (onDisk) await this.catchUp();
    this.changes.fire({ kind: "reset" });
  }

  // ---------------------------------------------------------------- writing

  private makeQueue(): AppendQueue {
    return new AppendQueue(
      this.sessionFile!,
      false,
      async () => {
        await this.lock?.verify(this.sessionFile!);
        await this.rewriteIfOldFormat();
        if (this.onDisk) await this.ensureTerminated();
      },
      async () => {
        this.onDisk = true;
        await this.catchUp();
      },
    );
  }

  /** Before the first append, a file in an old format is rewritten migrated (crash-safe, with a backup). */
  private async rewriteIfOldFormat(): Promise<void> {
    if (!this.needsMigrationRewrite || !this.sessionFile) return;
    const loaded = await loadSession(this.sessionFile);
    const text = await migratedFileText(this.sessionFile, loaded, { dropHeader: false, idsFrom: this.store });
    await writeFileAtomic(this.sessionFile, text, backupPathFor(this.sessionFile, `v${loaded.fileVersion}`));
    this.needsMigrationRewrite = false;
    this.header = { ...this.header, version: CURRENT_SESSION_VERSION };
    const st = await fs.stat(this.sessionFile);
    this.ino = st.ino;
    this.offset = Buffer.byteLength(text);
    this.lineCount = text.split("\n").length - 1;
  }

  /** If the file ends mid-line (a torn write), the next append must start on a new line. */
  private async ensureTerminated(): Promise<void> {
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(this.sessionFile!, "r");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw err;
    }
    try {
      const { size } = await handle.stat();
      if (size === 0) return;
      const one = Buffer.alloc(1);
      await handle.read(one, 0, 1, size - 1);
      if (one[0] !== 0x0a) this.queue!.markUnterminated();
    } finally {
      await handle.close();
    }
  }

  private persistEntry(entry: SessionEntry): void {
    if (!this.persist || !this.queue) return;
    if (!this.headerQueued && !this.hasAssistant) return; // Pi waits for the first reply before creating the file
    if (!this.headerQueued) {
      this.queue.enqueue([JSON.stringify(this.header), ...this.store.all().map((r) => JSON.stringify(this.store.materialize(r)))]);
      this.headerQueued = true;
    } else {
      this.queue.enqueue([JSON.stringify(entry)]);
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

  /** Losing the lock makes this window a read-only view: its unwritten entries stay in memory (a fork can keep them). */
  private onWriteError(error: Error): void {
    if (error instanceof SessionError && error.code === "locked" && this.readOnlyReason === undefined) {
      this.readOnlyReason = error.message;
      this.changes.fire({ kind: "read-only", reason: error.message });
    }
    this.changes.fire({ kind: "error", error });
  }

  /** Resolves when every append so far is written to the file. */
  async flush(): Promise<void> {
    try {
      await this.queue?.flush();
    } catch (err) {
      this.onWriteError(err as Error);
      throw err;
    }
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

  /** Reads whatever the file gained since the last read. Serialized. */
  catchUp(): Promise<void> {
    const next = this.catchUpChain.then(() => this.readGrowth());
    this.catchUpChain = next.catch(() => undefined);
    return next;
  }

  private async readGrowth(): Promise<void> {
    const file = this.sessionFile;
    if (!file || !this.onDisk || this.disposed) return;
    let st;
    try {
      st = await fs.stat(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw ioError(err, "read", file);
    }
    if ((this.ino !== 0 && st.ino !== this.ino) || st.size < this.offset) return this.reload();
    this.ino = st.ino;
    if (st.size === this.offset) return;
    const handle = await fs.open(file, "r");
    let buf: Buffer;
    try {
      buf = Buffer.alloc(st.size - this.offset);
      const { bytesRead } = await handle.read(buf, 0, buf.length, this.offset);
      buf = buf.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
    const chunk = parseChunk(buf, this.lineCount + 1, false);
    this.offset += chunk.consumedBytes;
    this.lineCount += chunk.consumedLines;
    const added: EntrySummary[] = [];
    const labels: { targetId: string; label: string | undefined }[] = [];
    const problems = [...chunk.problems];
    const nameBefore = this.store.name;
    let follow = this.leafId;
    for (const line of chunk.lines) {
      if (line.value.type === "session") continue;
      const known = typeof line.value.id === "string" ? this.store.record(line.value.id) : undefined;
      if (known) {
        if (known.summary.line === 0) known.summary.line = line.line;
        continue;
      }
      const result = this.store.add(line.value, line.line, { buf, start: line.start, end: line.end });
      if ("kind" in result) {
        problems.push(result);
        continue;
      }
      added.push(result.summary);
      if (result.role === "assistant") this.hasAssistant = true;
      if (result.type === "label") labels.push({ targetId: result.summary.targetId ?? "", label: result.summary.label });
      // Another process continues from where we stand (or we only watch): follow its leaf.
      if (this.isReadOnly() || result.parentId === follow) follow = result.summary.checkoutMarker ? result.parentId : result.id;
    }
    if (problems.length) {
      this.problems = [...this.problems.filter((p) => !problems.some((q) => q.line === p.line)), ...problems].sort((a, b) => a.line - b.line);
      this.changes.fire({ kind: "problems", problems });
    }
    if (added.length) this.changes.fire({ kind: "entries", entries: added, external: true });
    if (labels.length) this.changes.fire({ kind: "labels", labels });
    if (this.store.name !== nameBefore) this.changes.fire({ kind: "name", name: this.store.name });
    if (follow !== this.leafId) this.setLeaf(follow);
  }

  private async reload(): Promise<void> {
    const loaded = await loadSession(this.sessionFile!);
    const keep = this.leafId;
    this.adopt(loaded);
    if (keep !== null && this.store.has(keep)) this.leafId = keep;
    this.changes.fire({ kind: "reset" });
  }

  // ---------------------------------------------------------------- lifetime

  /** Writes what is queued, stops following the file and releases the writer lock. */
  async close(): Promise<void> {
    if (this.disposed) return;
    try {
      await this.flush();
    } finally {
      this.disposed = true;
      this.tail?.dispose();
      await this.queue?.close();
      await this.lock?.release();
      this.changes.dispose();
    }
  }

  /** Synchronous dispose for owners that cannot await; pending writes still complete. */
  dispose(): void {
    void this.close().catch(() => undefined);
  }
}

async function isSessionFile(path: string): Promise<boolean> {
  try {
    const handle = await fs.open(path, "r");
    try {
      const buf = Buffer.alloc(4096);
      const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
      const first = buf.toString("utf8", 0, bytesRead).split("\n")[0] ?? "";
      const header = JSON.parse(first) as { type?: unknown; id?: unknown };
      return header.type === "session" && typeof header.id === "string";
    } finally {
      await handle.close();
    }
  } catch {
    return false;
  }
}

/** The session file in `dir` modified last, or undefined. */
export async function findMostRecentSession(dir: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => n.endsWith(".jsonl"));
  } catch {
    return undefined;
  }
  const candidates: { path: string; mtime: number }[] = [];
  for (const name of names) {
    const path = join(dir, name);
    if (!(await isSessionFile(path))) continue;
    candidates.push({ path, mtime: (await fs.stat(path)).mtimeMs });
  }
  candidates.sort((a, b) => b.mtime - a.mtime);
  return candidates[0]?.path;
}
