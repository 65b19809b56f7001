import { resolveContext } from "../context/build-context";
import type { EntrySummary } from "../tree/types";
import { EntryStore } from "./entry-store";
import type { LineProblem } from "./errors";
import { buildEntryTree, buildSummaryTree, type SessionTreeNode, type SummaryTreeNode } from "./session-tree";
import type { ModelRef, SessionContext, SessionEntry, SessionHeader } from "./types";

/**
 * The read side of a session: header, entries, leaf, labels, name, paths, trees and context
 * resolution, all answered from the in-memory index. SessionManager adds writing and following.
 */
export abstract class SessionReader {
  protected store = new EntryStore();
  protected leafId: string | null = null;
  protected problems: LineProblem[] = [];
  protected readOnlyReason: string | undefined;

  protected constructor(
    protected header: SessionHeader,
    protected cwd: string,
    protected sessionDir: string,
    protected sessionFile: string | undefined,
    protected readonly persist: boolean,
  ) {}


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
  /**
   * The model the path to the leaf last used (the last model change or assistant message on it),
   * found by walking up from the leaf: cheaper than resolving the whole context.
   */
  getCurrentModel(): ModelRef | null {
    const seen = new Set<string>();
    let id = this.leafId;
    while (id !== null && !seen.has(id)) {
      seen.add(id);
      const r = this.store.record(id);
      if (!r) break;
      if (r.type === "model_change" || r.role === "assistant") {
        const e = this.store.materialize(r);
        if (e.type === "model_change") return { provider: e.provider, modelId: e.modelId };
        if (e.type === "message" && e.message.role === "assistant") return { provider: e.message.provider, modelId: e.message.model };
      }
      id = r.parentId;
    }
    return null;
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
}
