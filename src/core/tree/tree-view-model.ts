import { computeActivePath, moveActivePath, type ActivePath } from "./active-path";
import { compactionSpan, type CompactionSpan } from "./compaction-span";
import type { FilterMode } from "./filters";
import { appendToLayout, isFoldable, layoutTree, type LayoutOptions, type Row, type TreeLayout } from "./layout";
import { appendToProjection, projectTree, type TreeProjection } from "./projection";
import { parseSearchQuery } from "./search";
import type { EntrySummary } from "./types";

/** A label set on an entry, or cleared (`label: null`). */
export interface LabelChange {
  targetId: string;
  label: string | null;
}

/** Everything the tree needs about one session, as the host sends it. */
export interface SessionData {
  sessionId: string;
  name: string | null;
  /** In file order. */
  entries: readonly EntrySummary[];
  /** The resolved label map (last label entry per target wins). */
  labels: readonly { targetId: string; label: string }[];
  leafId: string | null;
}

/** Counters that show which path an update took (tests and benchmarks read them). */
export interface TreeViewStats {
  projections: number;
  layouts: number;
  fastAppends: number;
}

/** Where the leaf is drawn: its own row, or (when the leaf is hidden) the nearest shown ancestor's. */
export interface LeafRow {
  row: Row;
  exact: boolean;
}

const EMPTY_PROJECTION: TreeProjection = projectTree([]);

/**
 * The state of the tree view: the session's entries and the UI's filter, search and folds, kept
 * consistent through increments. Increments go the cheap way when they can (appending at the leaf,
 * moving the leaf, relabelling under a filter that ignores labels) and rebuild otherwise.
 * No DOM: the webview draws `rows`, this decides them.
 */
export class TreeViewModel {
  private entries: EntrySummary[] = [];
  private projectionValue: TreeProjection = EMPTY_PROJECTION;
  private pathValue: ActivePath = { leafId: null, leaf: null, ids: new Set() };
  private layoutValue: TreeLayout = { rows: [], rowById: new Map(), roots: [] };
  private readonly labelMap = new Map<string, string>();
  private readonly foldedIds = new Set<string>();
  private queryValue = "";
  private tokens: string[] = [];
  private sessionIdValue: string | null = null;
  private nameValue: string | null = null;
  private spanCache: CompactionSpan | undefined;
  private leafRowCache: { version: number; value: LeafRow | undefined } | undefined;
  private versionValue = 0;
  readonly stats: TreeViewStats = { projections: 0, layouts: 0, fastAppends: 0 };

  private constructor(private filterValue: FilterMode) {}

  static create(filter: FilterMode = "default"): TreeViewModel {
    return new TreeViewModel(filter);
  }

  /** Increases on every change that can alter what is drawn. */
  get version(): number {
    return this.versionValue;
  }

  get sessionId(): string | null {
    return this.sessionIdValue;
  }
  get name(): string | null {
    return this.nameValue;
  }
  get entryCount(): number {
    return this.entries.length;
  }
  get filter(): FilterMode {
    return this.filterValue;
  }
  get query(): string {
    return this.queryValue;
  }
  get folded(): ReadonlySet<string> {
    return this.foldedIds;
  }
  get labels(): ReadonlyMap<string, string> {
    return this.labelMap;
  }
  get projection(): TreeProjection {
    return this.projectionValue;
  }
  get activePath(): ActivePath {
    return this.pathValue;
  }
  get layout(): TreeLayout {
    return this.layoutValue;
  }
  get rows(): readonly Row[] {
    return this.layoutValue.rows;
  }

  /**
   * Replaces the whole session (or clears it with null) and its folds, in one layout. The filter and
   * the search are kept.
   */
  load(data: SessionData | null, folded: Iterable<string> = []): void {
    this.foldedIds.clear();
    for (const id of folded) this.foldedIds.add(id);
    this.sessionIdValue = data ? data.sessionId : null;
    this.nameValue = data ? data.name : null;
    this.entries = data ? [...data.entries] : [];
    this.labelMap.clear();
    for (const l of data ? data.labels : []) this.labelMap.set(l.targetId, l.label);
    this.rebuild(data ? data.leafId : null);
  }

  /** Appends entries (file order) and moves the leaf, the way every append does. */
  append(entries: readonly EntrySummary[], leafId: string | null): void {
    for (const e of entries) this.entries.push(e);
    // Label entries carry the change themselves; the host's labelsChanged for them is then a no-op.
    let labelsChanged = false;
    for (const e of entries) {
      if (e.type === "label" && e.targetId !== undefined) labelsChanged = this.setLabel(e.targetId, e.label ?? null) || labelsChanged;
    }
    const result = appendToProjection(this.projectionValue, entries);
    if (!result.ok) {
      this.rebuild(leafId);
      return;
    }
    if (!(labelsChanged && this.labelsMatter()) && appendToLayout(this.layoutValue, result.added, this.layoutOptions())) {
      this.stats.fastAppends++;
    } else {
      this.relayout();
    }
    this.pathValue = moveActivePath(this.pathValue, this.projectionValue, leafId);
    this.changed();
  }

  /** Moves the leaf (a checkout): costs the detour between old and new leaf, not a relayout. */
  moveLeaf(leafId: string | null): void {
    this.pathValue = moveActivePath(this.pathValue, this.projectionValue, leafId);
    this.changed();
  }

  /** Applies label changes; relays out only when the filter or the search looks at labels. */
  applyLabelChanges(changes: readonly LabelChange[]): void {
    let changedAny = false;
    for (const c of changes) changedAny = this.setLabel(c.targetId, c.label) || changedAny;
    if (changedAny && this.labelsMatter()) this.relayout();
    this.changed();
  }

  rename(name: string | null): void {
    this.nameValue = name;
    this.changed();
  }

  setFilter(filter: FilterMode): void {
    if (filter === this.filterValue) return;
    this.filterValue = filter;
    this.relayout();
  }

  setQuery(query: string): void {
    const tokens = parseSearchQuery(query);
    this.queryValue = query;
    if (tokens.join(" ") === this.tokens.join(" ")) return;
    this.tokens = tokens;
    this.relayout();
  }

  get searchTokens(): readonly string[] {
    return this.tokens;
  }

  /** Folds or unfolds a branch point. Returns false when the id is not a foldable row. */
  setFolded(id: string, folded: boolean): boolean {
    const row = this.layoutValue.rowById.get(id);
    if (!row || !isFoldable(row) || row.folded === folded) return false;
    if (folded) this.foldedIds.add(id);
    else this.foldedIds.delete(id);
    this.relayout();
    return true;
  }

  /** Where the leaf is drawn: its row, or the nearest shown (and unfolded) ancestor's when it is hidden. */
  leafRow(): LeafRow | undefined {
    // Asked several times per repaint; under a filter that hides most entries the walk can be long.
    if (this.leafRowCache?.version === this.version) return this.leafRowCache.value;
    let value: LeafRow | undefined;
    let exact = true;
    for (let n = this.pathValue.leaf; n && !value; n = n.parent) {
      const row = this.layoutValue.rowById.get(n.summary.id);
      if (row && row.index >= 0) value = { row, exact };
      exact = false;
    }
    this.leafRowCache = { version: this.version, value };
    return value;
  }

  /** The span a compaction replaced (cached for the last one asked, until the tree changes). */
  compactionSpan(id: string): CompactionSpan | undefined {
    if (this.spanCache?.compactionId === id) return this.spanCache;
    this.spanCache = compactionSpan(this.projectionValue, id);
    return this.spanCache;
  }

  private layoutOptions(): LayoutOptions {
    return { filter: this.filterValue, searchTokens: this.tokens, folded: this.foldedIds, labels: this.labelMap };
  }

  private labelsMatter(): boolean {
    return this.filterValue === "labeled-only" || this.tokens.length > 0;
  }

  private setLabel(targetId: string, label: string | null): boolean {
    const before = this.labelMap.get(targetId);
    if (label === null || label === "") this.labelMap.delete(targetId);
    else this.labelMap.set(targetId, label);
    return before !== this.labelMap.get(targetId);
  }

  private rebuild(leafId: string | null): void {
    this.projectionValue = projectTree(this.entries);
    this.stats.projections++;
    this.pathValue = computeActivePath(this.projectionValue, leafId);
    this.relayout();
  }

  private relayout(): void {
    this.layoutValue = layoutTree(this.projectionValue, this.layoutOptions());
    this.stats.layouts++;
    this.changed();
  }

  private changed(): void {
    this.spanCache = undefined;
    this.versionValue++;
  }
}
