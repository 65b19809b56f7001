import type { EntrySummary } from "../tree/types";
import type { BodyReader } from "./body-reader";
import { SessionError, type LineProblem } from "./errors";
import { migrateEntryToV3 } from "./migrate";
import { summarizeEntry } from "./summarize";
import { lightMessageEntry } from "./summary-scan";
import { IdIndex } from "./id-index";
import { resized } from "../util/typed-columns";
import { runSteps, STEP_EVERY, type Steps } from "../util/steps";
import type { TextLines } from "./text-lines";
import { isTextlessTurn } from "../tree/search-text";
import { CHECKOUT_CUSTOM_TYPE, type SessionEntry } from "./types";

/** Parsed lines shorter than this stay in memory; longer ones are read again from the file when needed. */
const KEEP_PARSED_BELOW_BYTES = 512;
/** Bodies read back from the file that stay cached (most recent first out last). */
const BODY_CACHE_BYTES = 32 * 1024 * 1024;
/** Summaries of message entries computed from their bodies that stay cached. */
const SUMMARY_CACHE_ENTRIES = 200_000;

const FLAG_CHECKOUT = 1;
/** An assistant turn without visible text (see isTextlessTurn): the tree's filters hide it. */
const FLAG_TEXTLESS = 2;

/** Where an entry's line sits in the session file. */
export interface LineSpan {
  offset: number;
  length: number;
}

/**
 * The index of a session's entries in file order. It holds the skeleton of every entry (id,
 * parent, type, role, timestamp, line, where its bytes are) in columns; summaries and full entries
 * are made from the file's bytes only when asked for, and only a bounded number of them are kept.
 * Memory grows with the number of entries, not with the size of the file.
 *
 * Entries appended in this process, entries of files migrated in memory, and short lines parsed
 * at load are held parsed. A store without a body reader (an in-memory session) holds all.
 */
export class EntryStore {
  private count = 0;
  private ids: string[] = [];
  private parents: (string | null)[] = [];
  /** Position of each entry's parent (the last entry with that id): NO_PARENT, or UNRESOLVED when not known at add time. */
  private parentAt: Int32Array = new Int32Array(16);
  /** Some parentAt values may be stale (an id was given again): resolve through the map until rebuilt. */
  private parentsStale = false;
  /** Some id is given by more than one line (then a line can stand for a later entry). */
  private duplicates = 0;
  private types: string[] = [];
  private roles: (string | undefined)[] = [];
  /** Timestamps of the entries added in this process (after `restoredTimes`, when the store was restored). */
  private timestamps: string[] = [];
  /** Timestamps of the entries restored from a reopen index, decoded when asked for. */
  private restoredTimes: TextLines | undefined;
  /** Columns given room ahead of a read so far (see reserveStep). */
  private reserved = 0;
  private lines: Int32Array = new Int32Array(16);
  private offsets: Float64Array = new Float64Array(16);
  private lengths: Float64Array = new Float64Array(16);
  private flags: Uint8Array = new Uint8Array(16);
  private byId = new IdIndex();
  /** Entries held parsed, by position. */
  private readonly held = new Map<number, SessionEntry>();
  /** Summaries kept for good: held entries and every entry that is not a message (few, and small). */
  private readonly keptSummaries = new Map<number, EntrySummary>();
  private readonly summaryCache = new Map<number, EntrySummary>();
  private readonly bodyCache = new Map<number, SessionEntry>();
  private bodyCacheBytes = 0;
  private readonly labelMap = new Map<string, { label: string; timestamp: string }>();
  private nameValue: string | undefined;
  private assistants = 0;
  /** Reads entry lines back from the file (absent for in-memory sessions). */
  reader: BodyReader | undefined;
  /** Set for version-2 files, whose entries are migrated as they are parsed. */
  migrateOnParse = false;

  get size(): number {
    return this.count;
  }

  // ------------------------------------------------------------------ adding

  /**
   * Makes room for about `count` entries ahead of a read (an estimate from the file's size), one
   * column per call so that each call is a short task; false once every column has room. Growing
   * five arrays of a million strings by half at a time copied them into fresh memory in tasks of
   * 100 to 230 ms. `endReserve` gives the arrays their true length again.
   */
  reserveStep(count: number): boolean {
    if (count <= this.count || this.restoredTimes) return false;
    const longer = <T>(column: T[]): T[] => {
      if (column.length >= count) return column;
      const next = new Array<T>(count);
      for (let k = 0; k < this.count; k++) next[k] = column[k]!;
      return next;
    };
    // One column a call: the typed ones together (their memory is zeroed lazily), then each array.
    const steps = [
      () => {
        if (count > this.lines.length) this.growColumns(count);
      },
      () => (this.ids = longer(this.ids)),
      () => (this.parents = longer(this.parents)),
      () => (this.types = longer(this.types)),
      () => (this.roles = longer(this.roles)),
      () => (this.timestamps = longer(this.timestamps)),
    ];
    const step = steps[this.reserved];
    if (!step) return false;
    this.reserved++;
    step();
    return true;
  }

  /** The typed columns, `to` entries long (their entries so far kept). */
  private growColumns(to: number): void {
    this.lines = resized(this.lines, to);
    this.offsets = resized(this.offsets, to);
    this.lengths = resized(this.lengths, to);
    this.flags = resized(this.flags, to);
    this.parentAt = resized(this.parentAt, to);
  }

  /** After a read that reserved room: the arrays end at the last entry again. */
  endReserve(): void {
    if (this.reserved === 0) return;
    for (const column of [this.ids, this.parents, this.types, this.roles, this.timestamps]) if (column.length > this.count) column.length = this.count;
    this.reserved = 0;
  }

  /** `parentId` undefined: the parent is the entry added just before (the loader checked the bytes). */
  private push(id: string, parentId: string | null | undefined, type: string, role: string | undefined, timestamp: string, line: number, offset: number, length: number): number {
    const i = this.count++;
    if (i === this.lines.length) this.growColumns(Math.max(16, this.lines.length * 2));
    // Set by position, not pushed: the columns may have been made longer ahead of a read (reserveStep).
    this.ids[i] = id;
    // The parent's own id string is reused when known, so that a parent link costs no new string.
    let parent = NO_PARENT;
    if (parentId === undefined) parent = i - 1;
    else if (parentId !== null) parent = this.byId.get(parentId) ?? UNRESOLVED;
    this.parents[i] = parent >= 0 ? this.ids[parent]! : parentId!;
    this.parentAt[i] = parent;
    this.types[i] = type;
    this.roles[i] = role;
    this.timestamps[i - (this.restoredTimes?.length ?? 0)] = timestamp;
    this.lines[i] = line;
    this.offsets[i] = offset;
    this.lengths[i] = length;
    if (role === "assistant") this.assistants++;
    return i;
  }

  private register(i: number, id: string, line: number): number | LineProblem {
    if (this.byId.set(id, i)) return i;
    // The id now names another entry: a cached path through it, and parent links to it, may no longer hold.
    this.duplicates++;
    this.forgetPath();
    this.parentsStale = true;
    return { line, kind: "duplicate-id", message: `line ${line} reuses the id ${id} of an earlier entry; the later one wins`, excerpt: id };
  }

  /**
   * Adds a message entry read by the loader's fast path: only its skeleton, its body stays in
   * the file. `parentId` undefined means the entry added just before is its parent. Returns the
   * entry's position, or a problem (a duplicate id) after adding it.
   */
  addSkeleton(id: string, parentId: string | null | undefined, role: string | undefined, timestamp: string, line: number, offset: number, length: number, textless = false): number | LineProblem {
    const i = this.push(id, parentId, "message", role, timestamp, line, offset, length);
    if (textless) this.flags[i] = FLAG_TEXTLESS;
    return this.register(i, id, line);
  }

  /**
   * Adds one parsed line as an entry (with `span`, where its bytes are in the file). Returns the
   * entry's position, or a problem when the line is not a usable entry (the line is then left
   * alone in the file) or reuses an id (it is added, and wins).
   */
  add(value: Record<string, unknown>, line: number, span?: LineSpan): number | LineProblem {
    const id = value.id;
    if (typeof id !== "string" || id.length === 0) {
      return { line, kind: "not-an-entry", message: `line ${line} has type "${String(value.type)}" but no id`, excerpt: String(value.type) };
    }
    if (this.migrateOnParse) migrateEntryToV3(value);
    const message = value.message as { role?: unknown } | undefined;
    const type = String(value.type);
    const role = type === "message" && message && typeof message.role === "string" ? message.role : undefined;
    const timestamp = typeof value.timestamp === "string" ? value.timestamp : "";
    const i = this.push(id, typeof value.parentId === "string" ? value.parentId : null, type, role, timestamp, line, span ? span.offset : -1, span ? span.length : -1);
    const entry = value as unknown as SessionEntry;
    if (!span || !this.reader || span.length < KEEP_PARSED_BELOW_BYTES) this.held.set(i, entry);
    // The few entries that are not messages keep the summary made now; held entries make theirs when asked.
    else if (type !== "message") this.keptSummaries.set(i, summarizeEntry(value, line));
    if (type === "custom" && value.customType === CHECKOUT_CUSTOM_TYPE) this.flags[i] = FLAG_CHECKOUT;
    else if (role === "assistant" && isTextlessTurn(message)) this.flags[i] = FLAG_TEXTLESS;
    this.indexMetadata(type, value);
    return this.register(i, id, line);
  }

  private indexMetadata(type: string, value: Record<string, unknown>): void {
    if (type === "label" && typeof value.targetId === "string") {
      const label = typeof value.label === "string" ? value.label : undefined;
      if (label) this.labelMap.set(value.targetId, { label, timestamp: String(value.timestamp ?? "") });
      else this.labelMap.delete(value.targetId);
    } else if (type === "session_info") {
      const name = typeof value.name === "string" ? value.name.trim() : "";
      this.nameValue = name || undefined;
    }
  }

  /**
   * Records where an entry appended in this process landed in the file. Its parsed body is then
   * let go (it is read back from the file when asked for), so that a long session's memory does
   * not grow with what it wrote.
   */
  setLocation(i: number, line: number, span?: LineSpan): void {
    this.lines[i] = line;
    const kept = this.keptSummaries.get(i);
    if (kept) kept.line = line;
    if (span) {
      this.offsets[i] = span.offset;
      this.lengths[i] = span.length;
      if (this.reader && !this.migrateOnParse) this.held.delete(i);
    }
  }

  /** The columns of a store whose entries are all in its file (see canSnapshot). */
  snapshot(): StoreColumns {
    return runSteps(this.snapshotSteps());
  }

  /**
   * `snapshot` as steps (see runStepsInSlices): each column is copied in a step of its own (tens of
   * MB of fresh memory at a million entries). The store must not change until the steps end.
   */
  *snapshotSteps(): Steps<StoreColumns> {
    if (this.parentsStale) this.relinkParents();
    const parentIds: [number, string][] = [];
    for (let i = 0; i < this.count; i++) {
      const parentId = this.parents[i]!;
      if (parentId !== null && (this.parentAt[i]! < 0 || this.ids[this.parentAt[i]!] !== parentId)) parentIds.push([i, parentId]);
      if ((i + 1) % STEP_EVERY === 0) yield;
    }
    const n = this.count;
    const ids = this.ids.slice();
    yield;
    const types = this.types.slice();
    yield;
    const roles = this.roles.slice();
    yield;
    let timestamps: string[];
    if (this.restoredTimes) {
      timestamps = new Array<string>(n);
      const restored = this.restoredTimes;
      for (let i = 0; i < restored.length; i++) {
        timestamps[i] = restored.at(i);
        if ((i + 1) % STEP_EVERY === 0) yield;
      }
      for (let k = 0; k < this.timestamps.length; k++) timestamps[restored.length + k] = this.timestamps[k]!;
    } else timestamps = this.timestamps.slice();
    yield;
    const parentAt = this.parentAt.slice(0, n);
    const lines = this.lines.slice(0, n);
    yield;
    const offsets = this.offsets.slice(0, n);
    yield;
    const lengths = this.lengths.slice(0, n);
    const flags = this.flags.slice(0, n);
    return {
      count: n,
      ids,
      parentIds,
      parentAt,
      types,
      roles,
      timestamps,
      lines,
      offsets,
      lengths,
      flags,
      labels: [...this.labelMap],
      name: this.nameValue,
      migrateOnParse: this.migrateOnParse,
      assistants: this.assistants,
      duplicates: this.duplicates,
    };
  }

  /** Whether every entry is in the file as written (no entry only in memory, no ids made up in memory). */
  canSnapshot(): boolean {
    for (let i = 0; i < this.count; i++) if (this.offsets[i]! < 0) return false;
    return true;
  }

  /** A store over `reader`'s file from saved columns (the reopen index). */
  static restore(c: StoreColumns, reader: BodyReader): EntryStore {
    return runSteps(EntryStore.restoreSteps(c, reader));
  }

  /** restore as steps (see runStepsInSlices): the passes over every entry yield as they go. */
  static *restoreSteps(c: StoreColumns, reader: BodyReader): Steps<EntryStore> {
    const store = new EntryStore();
    store.reader = reader;
    store.count = c.count;
    store.ids = c.ids;
    store.parentAt = c.parentAt;
    store.parents = new Array<string | null>(c.count);
    yield;
    for (let i = 0; i < c.count; i++) {
      const at = c.parentAt[i]!;
      store.parents[i] = at >= 0 ? c.ids[at]! : null;
      if (at >= i) store.forwardParents = true;
      if ((i + 1) % STEP_EVERY === 0) yield;
    }
    for (const [i, parentId] of c.parentIds) store.parents[i] = parentId;
    store.types = c.types;
    store.roles = c.roles;
    if (Array.isArray(c.timestamps)) store.timestamps = c.timestamps;
    else store.restoredTimes = c.timestamps;
    store.lines = c.lines;
    store.offsets = c.offsets;
    store.lengths = c.lengths;
    store.flags = c.flags;
    for (const [target, label] of c.labels) store.labelMap.set(target, label);
    store.nameValue = c.name;
    store.migrateOnParse = c.migrateOnParse;
    store.assistants = c.assistants;
    store.duplicates = c.duplicates;
    // The id table's memory is fresh (16 MB for a million ids): a step of its own.
    yield;
    store.byId.reserve(c.count);
    yield;
    for (let i = 0; i < c.count; i++) {
      store.byId.set(c.ids[i]!, i);
      if ((i + 1) % STEP_EVERY === 0) yield;
    }
    return store;
  }

  // ------------------------------------------------------------------ positions

  /** The position of the entry with this id (the last one, if the id repeats), or -1. */
  indexOf(id: string): number {
    return this.byId.get(id) ?? -1;
  }
  has(id: string): boolean {
    return this.byId.has(id);
  }
  idAt(i: number): string {
    return this.ids[i]!;
  }
  /** The parent as the tree uses it: a non-string parentId counts as none. */
  parentIdAt(i: number): string | null {
    return this.parents[i]!;
  }
  typeAt(i: number): string {
    return this.types[i]!;
  }
  roleAt(i: number): string | undefined {
    return this.roles[i];
  }
  timestampAt(i: number): string {
    const restored = this.restoredTimes;
    if (!restored) return this.timestamps[i]!;
    return i < restored.length ? restored.at(i) : this.timestamps[i - restored.length]!;
  }
  /** 1-based line in the file (0 while not yet written). */
  lineAt(i: number): number {
    return this.lines[i]!;
  }
  spanAt(i: number): LineSpan | undefined {
    const offset = this.offsets[i]!;
    return offset < 0 ? undefined : { offset, length: this.lengths[i]! };
  }
  isCheckoutMarker(i: number): boolean {
    return (this.flags[i]! & FLAG_CHECKOUT) !== 0;
  }
  /** An assistant turn without visible text (known from the skeleton: no body is read). */
  isTextless(i: number): boolean {
    return (this.flags[i]! & FLAG_TEXTLESS) !== 0;
  }
  /** Whether any entry is an assistant message (cheap). */
  hasAssistant(): boolean {
    return this.assistants > 0;
  }
  /**
   * The position of the parent of the entry at `i` (the last entry with the parent's id), or -1
   * for a root or an orphan.
   */
  parentIndexAt(i: number): number {
    if (this.parentsStale) this.relinkParents();
    const at = this.parentAt[i]!;
    if (at >= 0) return at;
    if (at === NO_PARENT) return -1;
    // Not in the file when this entry was added: maybe later in the file, maybe never.
    const found = this.byId.get(this.parents[i]!);
    if (found === undefined) return -1;
    this.parentAt[i] = found;
    // A parent later in the file (or the entry itself): paths can now loop (see pathTo).
    this.forwardParents = true;
    return found;
  }

  /** After an id was given again, parent links follow the map (the last entry with an id wins). */
  private relinkParents(): void {
    for (let i = 0; i < this.count; i++) {
      const parentId = this.parents[i]!;
      this.parentAt[i] = parentId === null ? NO_PARENT : (this.byId.get(parentId) ?? UNRESOLVED);
      if (this.parentAt[i]! >= i) this.forwardParents = true;
    }
    this.parentsStale = false;
  }
  lastIndex(): number {
    return this.count - 1;
  }
  /** Whether some id is given by more than one line (the last one wins). */
  hasDuplicateIds(): boolean {
    return this.duplicates > 0;
  }

  // ------------------------------------------------------------------ bodies

  /** The full entry at a position, parsed from the file's bytes if needed. */
  entryAt(i: number): SessionEntry {
    const held = this.held.get(i);
    if (held) return held;
    const cached = this.bodyCache.get(i);
    if (cached) return cached;
    const entry = this.readEntry(i);
    const length = this.lengths[i]!;
    this.bodyCache.set(i, entry);
    this.bodyCacheBytes += length;
    while (this.bodyCacheBytes > BODY_CACHE_BYTES && this.bodyCache.size > 1) {
      const oldest = this.bodyCache.keys().next().value as number;
      this.bodyCache.delete(oldest);
      this.bodyCacheBytes -= this.lengths[oldest]!;
    }
    return entry;
  }

  private readEntry(i: number): SessionEntry {
    const offset = this.offsets[i]!;
    if (offset < 0 || !this.reader) throw new Error(`entry ${this.ids[i]} has neither a body in memory nor a place in the file`);
    return this.parseChecked(i, this.reader.read(offset, this.lengths[i]!), 0);
  }

  /**
   * Parses the line of entry `i` from `buf` at `at` and checks it is still that entry: the file
   * may have been changed under the index (rewritten in place), which must never go unnoticed.
   */
  private parseChecked(i: number, buf: Buffer, at: number): SessionEntry {
    const length = this.lengths[i]!;
    let value: Record<string, unknown> | undefined;
    try {
      value = JSON.parse(buf.toString("utf8", at, at + length)) as Record<string, unknown>;
    } catch {
      value = undefined;
    }
    if (!value || value.id !== this.ids[i] || String(value.type) !== this.types[i]) {
      throw new SessionError("changed", `The session file changed on disk where entry ${this.ids[i]} was (line ${this.lines[i]}); reopen it`, this.reader?.path);
    }
    if (this.migrateOnParse) migrateEntryToV3(value);
    return value as unknown as SessionEntry;
  }

  /**
   * Visits the entries at `positions` with their full bodies, reading the file in large sequential
   * blocks (for bulk work over many entries: summaries of a whole tree, checks, exports).
   * Bodies read this way are not cached.
   */
  forEachEntry(positions: ArrayLike<number>, visit: (i: number, entry: SessionEntry) => void): void {
    this.forEachLine(positions, (i, held, buf, at) => visit(i, held ?? this.parseChecked(i, buf!, at)));
  }

  /**
   * Visits the entries at `positions`: with the entry when it is held parsed, else with the bytes
   * of its line (`buf` from `at`), read in large sequential blocks.
   */
  private forEachLine(positions: ArrayLike<number>, visit: (i: number, held: SessionEntry | undefined, buf: Buffer | undefined, at: number) => void): void {
    const onDisk: number[] = [];
    for (let k = 0; k < positions.length; k++) {
      const i = positions[k]!;
      const held = this.held.get(i) ?? this.bodyCache.get(i);
      if (held) visit(i, held, undefined, 0);
      else onDisk.push(i);
    }
    if (onDisk.length === 0) return;
    if (!this.reader) throw new Error("entries without bodies in memory and no file to read them from");
    onDisk.sort((a, b) => this.offsets[a]! - this.offsets[b]!);
    const reader = this.reader;
    let k = 0;
    while (k < onDisk.length) {
      // One block covers consecutive lines up to READ_BLOCK_BYTES (or one longer line).
      const first = onDisk[k]!;
      const start = this.offsets[first]!;
      let end = start + this.lengths[first]!;
      let last = k + 1;
      while (last < onDisk.length) {
        const j = onDisk[last]!;
        const e = this.offsets[j]! + this.lengths[j]!;
        // A block ends at its size, or where the next wanted line is far away (gaps are read too).
        if (e - start > READ_BLOCK_BYTES || this.offsets[j]! - end > READ_GAP_BYTES) break;
        end = Math.max(end, e);
        last++;
      }
      const buf = reader.read(start, end - start);
      for (; k < last; k++) {
        const i = onDisk[k]!;
        visit(i, undefined, buf, this.offsets[i]! - start);
      }
    }
  }

  /** The summary of entry `i` from the bytes of its line (a light read for messages). */
  private summaryFromLine(i: number, buf: Buffer, at: number): EntrySummary {
    if (this.types[i] === "message") {
      const light = lightMessageEntry(buf, at, at + this.lengths[i]!);
      if (light && light.id === this.ids[i] && light.type === "message") {
        if (this.migrateOnParse) migrateEntryToV3(light);
        return summarizeEntry(light, this.lines[i]!);
      }
    }
    return summarizeEntry(this.parseChecked(i, buf, at), this.lines[i]!);
  }

  /** The light view of the entry at a position (made from its body on first use). */
  summaryAt(i: number): EntrySummary {
    const kept = this.keptSummaries.get(i) ?? this.summaryCache.get(i);
    if (kept) return kept;
    const held = this.held.get(i);
    if (held) {
      // Kept as one object, so that a line number set once the entry is written shows in it.
      const summary = summarizeEntry(held, this.lines[i]!);
      this.keptSummaries.set(i, summary);
      return summary;
    }
    const cached = this.bodyCache.get(i);
    if (cached || this.offsets[i]! < 0 || !this.reader) return this.cacheSummary(i, summarizeEntry(cached ?? this.entryAt(i), this.lines[i]!));
    return this.cacheSummary(i, this.summaryFromLine(i, this.reader.read(this.offsets[i]!, this.lengths[i]!), 0));
  }

  /** The summary of the entry at `i`, made from its parsed value (which the caller has at hand). */
  rememberSummary(i: number, value: Record<string, unknown>): EntrySummary {
    const kept = this.keptSummaries.get(i);
    if (kept) return kept;
    if (this.migrateOnParse) migrateEntryToV3(value);
    return this.cacheSummary(i, summarizeEntry(value, this.lines[i]!));
  }

  private cacheSummary(i: number, summary: EntrySummary): EntrySummary {
    this.summaryCache.set(i, summary);
    if (this.summaryCache.size > SUMMARY_CACHE_ENTRIES) this.summaryCache.delete(this.summaryCache.keys().next().value as number);
    return summary;
  }

  /**
   * Summaries of many entries at once, reading their bodies in sequential blocks. `keep: false`
   * is for one pass over a whole session (the command line's tree): the summaries made are not
   * cached, so memory stays with the index.
   */
  summariesAt(positions: ArrayLike<number>, keep = true): EntrySummary[] {
    const out: EntrySummary[] = new Array(positions.length);
    const missing: number[] = [];
    const slot = new Map<number, number[]>();
    for (let k = 0; k < positions.length; k++) {
      const i = positions[k]!;
      const known = this.keptSummaries.get(i) ?? this.summaryCache.get(i);
      if (known) out[k] = known;
      else {
        const at = slot.get(i);
        if (at) at.push(k);
        else {
          slot.set(i, [k]);
          missing.push(i);
        }
      }
    }
    this.forEachLine(missing, (i, held, buf, at) => {
      const made = held ? undefined : this.summaryFromLine(i, buf!, at);
      const summary = made === undefined ? this.summaryAt(i) : keep ? this.cacheSummary(i, made) : made;
      for (const k of slot.get(i)!) out[k] = summary;
    });
    return out;
  }

  // ------------------------------------------------------------------ by id

  record(id: string): number | undefined {
    return this.byId.get(id);
  }

  labels(): ReadonlyMap<string, { label: string; timestamp: string }> {
    return this.labelMap;
  }

  labelOf(id: string): string | undefined {
    return this.labelMap.get(id)?.label;
  }

  get name(): string | undefined {
    return this.nameValue;
  }

  // ContextSource: cheap skeleton reads plus on-demand parsing.
  parentOf(id: string): string | null | undefined {
    const i = this.byId.get(id);
    return i === undefined ? undefined : this.parents[i]!;
  }

  typeOf(id: string): string | undefined {
    const i = this.byId.get(id);
    return i === undefined ? undefined : this.types[i];
  }

  roleOf(id: string): string | undefined {
    const i = this.byId.get(id);
    return i === undefined ? undefined : this.roles[i];
  }

  entry(id: string): SessionEntry | undefined {
    const i = this.byId.get(id);
    return i === undefined ? undefined : this.entryAt(i);
  }

  lastId(): string | undefined {
    return this.count ? this.ids[this.count - 1] : undefined;
  }

  /** Ids of the direct children of an entry, in file order (a scan: the tree views build their own index). */
  childrenOf(id: string): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.count; i++) if (this.parents[i] === id) out.push(this.ids[i]!);
    return out;
  }

  /** Positions from the root to the leaf of the last path asked for, and each one's slot in it (+1). */
  private pathPos: number[] = [];
  /**
   * Some entry's parent comes later in the file (or is itself): only then can a path loop, and a
   * looping path does not share its prefix with the paths through it, so the kept path is not reused.
   */
  private forwardParents = false;
  private pathSlot = new Int32Array(0);
  private walkMark = new Int32Array(0);
  private walkGen = 0;

  private forgetPath(): void {
    for (const p of this.pathPos) if (p < this.pathSlot.length) this.pathSlot[p] = 0;
    this.pathPos = [];
  }

  /**
   * Ids from the root to `leafId` (Pi's walk: stops at a missing parent; a cycle stops where an
   * id repeats). The last path is kept, so moving between branches of a long session walks only
   * from the new leaf up to where it meets the previous path. Entries never change their parent,
   * so a shared entry means a shared prefix, unless paths can loop (then every walk is whole).
   */
  pathTo(leafId: string): string[] {
    const leaf = this.byId.get(leafId);
    if (this.pathSlot.length < this.count) {
      const slots = new Int32Array(Math.max(16, this.count * 2));
      slots.set(this.pathSlot);
      this.pathSlot = slots;
      const marks = new Int32Array(slots.length);
      marks.set(this.walkMark);
      this.walkMark = marks;
    }
    if (++this.walkGen === 0x7fffffff) {
      this.walkMark.fill(0);
      this.walkGen = 1;
    }
    const gen = this.walkGen;
    const segment: number[] = [];
    let joinAt = -1;
    let i = leaf ?? -1;
    while (i >= 0 && this.walkMark[i] !== gen) {
      const slot = this.pathSlot[i]!;
      if (slot > 0 && !this.forwardParents) {
        joinAt = slot - 1;
        break;
      }
      this.walkMark[i] = gen;
      segment.push(i);
      i = this.parentIndexAt(i);
    }
    for (let k = joinAt + 1; k < this.pathPos.length; k++) this.pathSlot[this.pathPos[k]!] = 0;
    this.pathPos.length = joinAt + 1;
    for (let k = segment.length - 1; k >= 0; k--) {
      this.pathPos.push(segment[k]!);
      this.pathSlot[segment[k]!] = this.pathPos.length;
    }
    return this.pathPos.map((p) => this.ids[p]!);
  }
}

const NO_PARENT = -1;
const UNRESOLVED = -2;

/** Everything the index of a file-backed store holds, in a form that is quick to save and restore. */
export interface StoreColumns {
  count: number;
  ids: string[];
  /** Parents that are not the id of an entry at parentAt (orphans, and ids known only later), by position. */
  parentIds: [number, string][];
  parentAt: Int32Array;
  types: string[];
  roles: (string | undefined)[];
  /** As saved: one string per entry; as read back from an index: the lines, decoded when asked for. */
  timestamps: string[] | TextLines;
  lines: Int32Array;
  offsets: Float64Array;
  lengths: Float64Array;
  flags: Uint8Array;
  labels: [string, { label: string; timestamp: string }][];
  name: string | undefined;
  migrateOnParse: boolean;
  assistants: number;
  duplicates: number;
}

/** How many bytes bulk reads take at once. */
const READ_BLOCK_BYTES = 4 * 1024 * 1024;
/** Bytes between two wanted lines that one block still reads through (beyond, it is two reads). */
const READ_GAP_BYTES = 64 * 1024;
