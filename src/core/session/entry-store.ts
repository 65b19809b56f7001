import type { EntrySummary } from "../tree/types";
import type { LineProblem } from "./errors";
import { migrateEntryToV3 } from "./migrate";
import { summarizeEntry } from "./summarize";
import type { SessionEntry } from "./types";

/** Lines shorter than this keep their parsed object; longer ones are parsed again on demand. */
const KEEP_PARSED_BELOW_BYTES = 512;

/** Where an entry's bytes sit, so that it can be parsed again when needed. */
export interface RawSource {
  buf: Buffer;
  start: number;
  end: number;
}

/** The index's view of one entry: its skeleton, its summary, and its full form when parsed. */
export interface EntryRecord {
  readonly id: string;
  /** The parent as the tree uses it: a non-string parentId counts as none. */
  readonly parentId: string | null;
  readonly type: string;
  readonly role: string | undefined;
  /** Position in file order (0-based over entries). */
  readonly order: number;
  summary: EntrySummary;
  raw?: RawSource;
  entry?: SessionEntry;
}

/**
 * The in-memory index of a session's entries in file order. It keeps the skeleton of every
 * entry (id, parent, type, role) and its summary; full entries are parsed from the file's bytes
 * only when asked for, so a 100 MB session stays small in memory.
 */
export class EntryStore {
  private readonly records: EntryRecord[] = [];
  private readonly byId = new Map<string, EntryRecord>();
  private readonly labelMap = new Map<string, { label: string; timestamp: string }>();
  private nameValue: string | undefined;
  /** Set for version-2 files, whose entries are migrated as they are parsed. */
  migrateOnParse = false;

  get size(): number {
    return this.records.length;
  }

  /**
   * Adds one parsed line as an entry. Returns a problem instead when the line is not a usable
   * entry; the line is then left alone in the file.
   */
  add(value: Record<string, unknown>, line: number, raw?: RawSource): EntryRecord | LineProblem {
    const id = value.id;
    if (typeof id !== "string" || id.length === 0) {
      return { line, kind: "not-an-entry", message: `line ${line} has type "${String(value.type)}" but no id`, excerpt: String(value.type) };
    }
    if (this.migrateOnParse) migrateEntryToV3(value);
    const summary = summarizeEntry(value, line);
    const message = value.message as { role?: unknown } | undefined;
    const record: EntryRecord = {
      id,
      parentId: typeof value.parentId === "string" ? value.parentId : null,
      type: String(value.type),
      role: value.type === "message" && message && typeof message.role === "string" ? message.role : undefined,
      order: this.records.length,
      summary,
    };
    if (!raw || raw.end - raw.start < KEEP_PARSED_BELOW_BYTES) record.entry = value as unknown as SessionEntry;
    else record.raw = raw;
    const duplicate = this.byId.has(id);
    this.records.push(record);
    this.byId.set(id, record);
    this.indexMetadata(record.type, value);
    if (duplicate) {
      // The id now names another entry: a cached path through it may no longer hold.
      this.cachedPath = [];
      this.cachedIndex.clear();
      return { line, kind: "duplicate-id", message: `line ${line} reuses the id ${id} of an earlier entry; the later one wins`, excerpt: id };
    }
    return record;
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

  /** The record of an entry, or undefined. */
  record(id: string): EntryRecord | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** All records in file order (do not mutate). */
  all(): readonly EntryRecord[] {
    return this.records;
  }

  last(): EntryRecord | undefined {
    return this.records[this.records.length - 1];
  }

  /** Ids of the direct children of an entry, in file order (a scan: the tree views build their own index). */
  childrenOf(id: string): string[] {
    const out: string[] = [];
    for (const r of this.records) if (r.parentId === id) out.push(r.id);
    return out;
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

  /** The full entry, parsed from the file's bytes if needed (and kept). */
  materialize(record: EntryRecord): SessionEntry {
    if (record.entry) return record.entry;
    const raw = record.raw!;
    const value = JSON.parse(raw.buf.toString("utf8", raw.start, raw.end)) as Record<string, unknown>;
    if (this.migrateOnParse) migrateEntryToV3(value);
    record.entry = value as unknown as SessionEntry;
    record.raw = undefined;
    return record.entry;
  }

  // ContextSource: cheap skeleton reads plus on-demand parsing.
  parentOf(id: string): string | null | undefined {
    const r = this.byId.get(id);
    return r ? r.parentId : undefined;
  }

  typeOf(id: string): string | undefined {
    return this.byId.get(id)?.type;
  }

  roleOf(id: string): string | undefined {
    return this.byId.get(id)?.role;
  }

  entry(id: string): SessionEntry | undefined {
    const r = this.byId.get(id);
    return r ? this.materialize(r) : undefined;
  }

  lastId(): string | undefined {
    return this.last()?.id;
  }

  private cachedPath: string[] = [];
  private cachedIndex = new Map<string, number>();

  /**
   * Ids from the root to `leafId` (Pi's walk: stops at a missing parent; a cycle stops where an
   * id repeats). The last path is kept, so moving between branches of a long session walks only
   * from the new leaf up to where it meets the previous path. Entries never change their parent,
   * so a shared entry means a shared prefix.
   */
  pathTo(leafId: string): string[] {
    const segment: string[] = [];
    const seen = new Set<string>();
    let id: string | null = this.byId.has(leafId) ? leafId : null;
    let joinAt = -1;
    while (id !== null && !seen.has(id)) {
      const at = this.cachedIndex.get(id);
      if (at !== undefined) {
        joinAt = at;
        break;
      }
      seen.add(id);
      segment.push(id);
      const parent: string | null = this.byId.get(id)!.parentId;
      id = parent !== null && this.byId.has(parent) ? parent : null;
    }
    segment.reverse();
    for (let i = joinAt + 1; i < this.cachedPath.length; i++) this.cachedIndex.delete(this.cachedPath[i]!);
    this.cachedPath.length = joinAt + 1;
    for (const s of segment) {
      this.cachedIndex.set(s, this.cachedPath.length);
      this.cachedPath.push(s);
    }
    return this.cachedPath.slice();
  }
}
