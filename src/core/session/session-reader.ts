import { resolveContext } from "../context/build-context";
import type { EntrySummary } from "../tree/types";
import { EntryStore } from "./entry-store";
import type { LineProblem } from "./errors";
import { buildEntryTree, buildSummaryTree, type SessionTreeNode, type SummaryTreeNode } from "./session-tree";
import { StoreTreeSource } from "./store-tree-source";
import { SessionTreeIndex } from "./tree-index";
import type { ModelRef, SessionContext, SessionEntry, SessionHeader } from "./types";
import { UsageLedger } from "./usage-totals";

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
    const i = this.store.indexOf(id);
    return i < 0 ? undefined : this.store.summaryAt(i);
  }
  /**
   * The light view of every entry, in file order. Message summaries are made from the entries'
   * bodies, read from the file in sequential blocks (on a huge session, ask for the rows you show
   * with getSummary instead).
   */
  getSummaries(): EntrySummary[] {
    return this.store.summariesAt(Array.from({ length: this.store.size }, (_, i) => i));
  }
  /**
   * The tree's view of this session as it is now: every entry's skeleton, and summaries made
   * from bodies only for what is drawn or searched. Entries whose write failed are marked unsaved.
   */
  getTreeSource(unsaved: ReadonlySet<string> = new Set()): StoreTreeSource {
    return new StoreTreeSource(this.store, unsaved);
  }
  /** Ids of the entries of one type (and role, for messages), in file order, from the skeleton alone. */
  *idsOfKind(type: string, role?: string): Generator<string> {
    const store = this.store;
    for (let i = 0; i < store.size; i++) {
      if (store.typeAt(i) === type && (role === undefined || store.roleAt(i) === role)) yield store.idAt(i);
    }
  }
  /** Every entry in file order (parses all of them: the slow path on huge files). */
  getEntries(): SessionEntry[] {
    const out: SessionEntry[] = new Array(this.store.size);
    this.store.forEachEntry(Array.from({ length: this.store.size }, (_, i) => i), (i, entry) => (out[i] = entry));
    return out;
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
    // The store keeps the last path it walked: a nearby path costs only its new part.
    return start === null || !this.store.has(start) ? [] : this.store.pathTo(start);
  }
  /** The type of the entry with this id, from the skeleton (no body is read). */
  getEntryType(id: string): string | undefined {
    return this.store.typeOf(id);
  }
  /** The role of a message entry, from the skeleton (no body is read). */
  getEntryRole(id: string): string | undefined {
    return this.store.roleOf(id);
  }
  /** The entries from the root to `fromId` (default: the leaf). */
  getBranch(fromId?: string): SessionEntry[] {
    const positions = this.getPathIds(fromId).map((id) => this.store.indexOf(id));
    const out: SessionEntry[] = new Array(positions.length);
    const slot = new Map(positions.map((p, k) => [p, k]));
    this.store.forEachEntry(positions, (i, entry) => (out[slot.get(i)!] = entry));
    return out;
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
      const i = this.store.indexOf(id);
      if (i < 0) break;
      if (this.store.typeAt(i) === "model_change" || this.store.roleAt(i) === "assistant") {
        const e = this.store.entryAt(i);
        if (e.type === "model_change") return { provider: e.provider, modelId: e.modelId };
        if (e.type === "message" && e.message.role === "assistant") return { provider: e.message.provider, modelId: e.message.model };
      }
      id = this.store.parentIdAt(i);
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
  /**
   * The light tree the UI draws, every node with its summary (so every entry's body is read:
   * on a huge session, page through getTreeIndex() instead).
   */
  getSummaryTree(): SummaryTreeNode[] {
    return buildSummaryTree(this.store);
  }

  private treeIndex: SessionTreeIndex | undefined;
  private treeIndexOf: EntryStore | undefined;

  /**
   * The entry tree as positions, with no object per node, built from the skeleton alone (no
   * entry body is read): for walking, laying out or paging through trees of any size. Kept until
   * entries are added.
   */
  getTreeIndex(): SessionTreeIndex {
    if (!this.treeIndex || this.treeIndexOf !== this.store || this.treeIndex.entryCount !== this.store.size) {
      this.treeIndex = SessionTreeIndex.build(this.store);
      this.treeIndexOf = this.store;
    }
    return this.treeIndex;
  }

  private usageLedger: UsageLedger | undefined;
  private usageLedgerOf: EntryStore | undefined;

  /**
   * The usage and cost of this session's replies, summed over the file or along a path. One
   * ledger per index: each assistant body is read once, on the first question, and entries
   * appended later are taken in when the next question is asked.
   */
  getUsageLedger(): UsageLedger {
    if (!this.usageLedger || this.usageLedgerOf !== this.store) {
      this.usageLedger = new UsageLedger(this.store);
      this.usageLedgerOf = this.store;
    }
    return this.usageLedger;
  }
}
