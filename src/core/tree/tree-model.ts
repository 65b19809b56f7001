import { runSteps, type Steps } from "../util/steps";
import { isBookkeepingType, passesFilterFacts, type FilterMode } from "./filters";
import { matchesSearch, parseSearchQuery, searchableText } from "./search";
import { NONE, TreeIndex, type TreeSource } from "./tree-index";
import { TreeRows } from "./tree-rows";
import type { EntrySummary } from "./types";

/** A label set on an entry, or cleared (`label: null`). */
export interface LabelChange {
  targetId: string;
  label: string | null;
}

/** Everything the tree needs about one session. */
export interface SessionData {
  sessionId: string;
  name: string | null;
  /**
   * In file order: summaries (the model keeps this array and appends to it), or a source that
   * makes them on demand (a session's store: only drawn rows and searches read bodies).
   */
  entries: EntrySummary[] | TreeSource;
  /** The resolved label map (last label entry per target wins). */
  labels: readonly { targetId: string; label: string }[];
  leafId: string | null;
}

/** Counters that show which path an update took (tests and benchmarks read them). */
export interface TreeModelStats {
  builds: number;
  layouts: number;
  fastAppends: number;
}

/** Where the leaf is drawn: its own row, or (when the leaf is hidden) the nearest drawn ancestor's. */
export interface LeafRow {
  row: number;
  exact: boolean;
}

/** What the selected compaction replaced, for marking rows. */
export interface CompactionSpanInfo {
  compaction: number;
  /** The first kept entry, when it lies on the compaction's path; else NONE (nothing was kept). */
  kept: number;
  /** How many path entries the summary stands in for. */
  replacedCount: number;
}

/** Summaries a search reads at once (bounded memory on a session of any size). */
const SEARCH_SLICE = 20_000;

/** Most entries one selection holds: two, so that two branches can be compared. */
export const MAX_SELECTED = 2;

/**
 * The Conversation Tree's state in the extension host: the session's entries (TreeIndex), the
 * drawn rows under the filter, search and folds (TreeRows), the active path, labels and the
 * selection. Increments take the cheap way when they can (appending at the end, moving the
 * leaf, relabelling under a filter that ignores labels) and rebuild otherwise. Webviews draw
 * only windows of `rows`.
 */
export class TreeModel {
  private indexValue: TreeIndex = TreeIndex.build([]);
  private rowsValue: TreeRows;
  private readonly labelMap = new Map<string, string>();
  private readonly foldedIds = new Set<string>();
  private queryValue = "";
  private tokens: string[] = [];
  private sessionIdValue: string | null = null;
  private nameValue: string | null = null;
  private leafIdValue: string | null = null;
  private leafNode = NONE;
  /**
   * The leaf as the drawn rows know it: Pi's filters show an assistant turn without text only
   * while it is the leaf, so what is drawn depends on it. Equal to leafNode except inside append.
   */
  private shownLeaf = NONE;
  private onPath = new Uint8Array(16);
  private searchTexts: (string | undefined)[] = [];
  private selected: string[] = [];
  private span: CompactionSpanInfo | undefined;
  private spanMark = new Uint8Array(16);
  private versionValue = 0;
  private leafRowCache: { version: number; value: LeafRow | undefined } | undefined;
  readonly stats: TreeModelStats = { builds: 0, layouts: 0, fastAppends: 0 };

  private constructor(private filterValue: FilterMode) {
    this.rowsValue = this.layout();
  }

  static create(filter: FilterMode = "default"): TreeModel {
    return new TreeModel(filter);
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
  get index(): TreeIndex {
    return this.indexValue;
  }
  get rows(): TreeRows {
    return this.rowsValue;
  }
  get filter(): FilterMode {
    return this.filterValue;
  }
  get query(): string {
    return this.queryValue;
  }
  get searchTokens(): readonly string[] {
    return this.tokens;
  }
  get folded(): ReadonlySet<string> {
    return this.foldedIds;
  }
  get labels(): ReadonlyMap<string, string> {
    return this.labelMap;
  }
  get leafId(): string | null {
    return this.leafIdValue;
  }
  /** Selected entry ids, oldest first; the last one has the focus. */
  get selection(): readonly string[] {
    return this.selected;
  }
  get focusId(): string | null {
    return this.selected.length > 0 ? this.selected[this.selected.length - 1] : null;
  }

  /** Whether an entry position is on the path from a root to the leaf. */
  isOnPath(i: number): boolean {
    return this.onPath[i] === 1;
  }

  /**
   * Replaces the whole session (or clears it with null), in one layout. Folds and the selection
   * are replaced too; the filter and the search are kept.
   */
  load(data: SessionData | null, folded: Iterable<string> = [], selection: readonly string[] = []): void {
    runSteps(this.loadSteps(data, folded, selection));
  }

  /**
   * `load` in steps (see util/steps), for a large session built in slices. The model is not
   * consistent until the steps end: build a model nobody reads yet, then use it.
   */
  *loadSteps(data: SessionData | null, folded: Iterable<string> = [], selection: readonly string[] = []): Steps<void> {
    const keep = [...folded];
    this.foldedIds.clear();
    for (const id of keep) this.foldedIds.add(id);
    this.sessionIdValue = data ? data.sessionId : null;
    this.nameValue = data ? data.name : null;
    this.labelMap.clear();
    for (const l of data ? data.labels : []) this.labelMap.set(l.targetId, l.label);
    this.indexValue = yield* TreeIndex.buildSteps(data ? data.entries : []);
    yield* this.afterBuild(data ? data.leafId : null);
    this.selected = selection.filter((id) => this.indexValue.resolve(id) !== undefined).slice(-MAX_SELECTED);
    if (this.selected.length === 0) {
      const leaf = this.leafRow();
      if (leaf) this.selected = [this.idAt(leaf.row)];
    }
    this.afterLayout();
  }

  /** Appends entries (file order) and moves the leaf, the way every append does. */
  append(entries: readonly EntrySummary[], leafId: string | null): void {
    let labelsChanged = false;
    for (const e of entries) {
      if (e.type === "label" && e.targetId !== undefined) labelsChanged = this.setLabel(e.targetId, e.label ?? null) || labelsChanged;
    }
    const result = this.indexValue.append(entries);
    if (!result.ok) {
      this.indexValue.appendByRebuild(entries);
      runSteps(this.afterBuild(leafId));
      this.afterLayout();
      return;
    }
    this.ensurePerPosition();
    const fast = !(labelsChanged && this.labelsMatter()) && this.followLeafInRows(this.resolveLeaf(leafId), result.added);
    if (fast && this.rowsValue.appendNodes(result.added)) this.stats.fastAppends++;
    else this.rowsValue = this.layout();
    this.moveLeafTo(leafId);
    this.changed();
    this.afterLayout();
  }

  /** Moves the leaf (a checkout): costs the detour between the old and the new leaf, not a relayout. */
  moveLeaf(leafId: string | null): void {
    const before = this.shownLeaf;
    this.moveLeafTo(leafId);
    const after = this.shownLeaf;
    // A turn without text is drawn only while it is the leaf: moving onto or off one redraws.
    if (before !== after && (this.visibilityFollowsLeaf(before) || this.visibilityFollowsLeaf(after))) {
      this.rowsValue = this.layout();
      this.afterLayout();
    } else this.changed();
  }

  /** Applies label changes; relays out only when the filter or the search looks at labels. */
  applyLabelChanges(changes: readonly LabelChange[]): void {
    let changedAny = false;
    for (const c of changes) changedAny = this.setLabel(c.targetId, c.label) || changedAny;
    if (changedAny && this.labelsMatter()) {
      this.rowsValue = this.layout();
      this.afterLayout();
    } else this.changed();
  }

  rename(name: string | null): void {
    this.nameValue = name;
    this.changed();
  }

  setFilter(filter: FilterMode): void {
    if (filter === this.filterValue) return;
    this.filterValue = filter;
    this.rowsValue = this.layout();
    this.afterLayout();
  }

  setQuery(query: string): void {
    const tokens = parseSearchQuery(query);
    this.queryValue = query;
    if (tokens.join(" ") === this.tokens.join(" ")) return;
    this.tokens = tokens;
    this.rowsValue = this.layout();
    this.afterLayout();
  }

  /** Restores what a webview saved (filter, search, folds, selection) in one layout. */
  restoreView(filter: FilterMode, query: string, folded: readonly string[], selection: readonly string[]): void {
    this.filterValue = filter;
    this.queryValue = query;
    this.tokens = parseSearchQuery(query);
    this.foldedIds.clear();
    for (const id of folded) this.foldedIds.add(id);
    const kept = selection.filter((id) => this.indexValue.resolve(id) !== undefined).slice(-MAX_SELECTED);
    if (kept.length > 0) this.selected = kept;
    this.rowsValue = this.layout();
    this.afterLayout();
  }

  /** Folds or unfolds a branch point. Returns false when the id is not a drawn branch point in that state. */
  setFolded(id: string, folded: boolean): boolean {
    const i = this.indexValue.positionOf(id);
    if (i === undefined || !this.indexValue.isNode(i) || this.rowsValue.rowOf(i) < 0) return false;
    if (!this.rowsValue.isBranchPoint(i) || this.rowsValue.isFolded(i) === folded) return false;
    if (folded) this.foldedIds.add(id);
    else this.foldedIds.delete(id);
    this.rowsValue = this.layout();
    this.afterLayout();
    return true;
  }

  /**
   * Selects an entry (its drawn row, or its nearest drawn ancestor's). With `add`, the entry joins
   * the selection (dropping the oldest past MAX_SELECTED) or, when already selected, leaves it.
   * Returns false for an id that is not in the tree.
   */
  select(id: string, add = false): boolean {
    const i = this.indexValue.resolve(id);
    if (i === undefined || i === NONE) return false;
    const row = this.rowsValue.nearestRow(i);
    if (row < 0) return false;
    const drawn = this.idAt(row);
    if (!add) this.selected = [drawn];
    else if (this.selected.includes(drawn)) this.selected = this.selected.filter((s) => s !== drawn);
    else this.selected = [...this.selected, drawn].slice(-MAX_SELECTED);
    this.updateSpan();
    this.changed();
    return true;
  }

  /** The entry id drawn at a row. */
  idAt(row: number): string {
    return this.indexValue.idAt(this.rowsValue.nodeAt(row));
  }

  /** The row of an entry (its own, or its nearest drawn ancestor's when hidden), or -1. */
  rowOfId(id: string): number {
    const i = this.indexValue.resolve(id);
    return i === undefined || i === NONE ? -1 : this.rowsValue.nearestRow(i);
  }

  /** The focused row, or -1. */
  focusRow(): number {
    const id = this.focusId;
    return id === null ? -1 : this.rowOfId(id);
  }

  /** Where the leaf is drawn: its row, or the nearest drawn ancestor's when it is hidden or folded away. */
  leafRow(): LeafRow | undefined {
    // Asked for every row sent; under a filter that hides most entries the walk can be long.
    if (this.leafRowCache?.version === this.versionValue) return this.leafRowCache.value;
    let value: LeafRow | undefined;
    if (this.leafNode !== NONE) {
      const exact = this.rowsValue.rowOf(this.leafNode);
      const row = exact >= 0 ? exact : this.rowsValue.nearestRow(this.leafNode);
      if (row >= 0) value = { row, exact: exact >= 0 || this.onlyBookkeepingBelow(row) };
    }
    this.leafRowCache = { version: this.versionValue, value };
    return value;
  }

  /**
   * Whether everything between the drawn row and the hidden leaf is bookkeeping (a session name,
   * a label, a model change...): the row then stands at the leaf's place in the conversation, and
   * is drawn as the leaf (a Pi session whose last entry names it is not "hidden by the filter").
   */
  private onlyBookkeepingBelow(row: number): boolean {
    const drawn = this.rowsValue.nodeAt(row);
    for (let n = this.leafNode; n !== NONE && n !== drawn; n = this.indexValue.parent(n)) {
      if (!isBookkeepingType(this.indexValue.typeAt(n))) return false;
    }
    return true;
  }

  /** The span of the focused compaction, if the focus is one. */
  compactionSpan(): CompactionSpanInfo | undefined {
    return this.span;
  }

  /** A row's place relative to the focused compaction's span. */
  spanState(i: number): "replaced" | "kept" | undefined {
    if (!this.span) return undefined;
    if (i === this.span.kept) return "kept";
    return this.spanMark[i] === 1 ? "replaced" : undefined;
  }

  // ------------------------------------------------------------------ internals

  private layout(): TreeRows {
    return runSteps(this.layoutSteps());
  }

  private layoutSteps(): Steps<TreeRows> {
    this.stats.layouts++;
    const index = this.indexValue;
    const labels = this.labelMap;
    const filter = this.filterValue;
    const tokens = this.tokens;
    const folded = this.foldedIds;
    const everything = filter === "everything" && tokens.length === 0;
    if (tokens.length > 0) this.fillSearchTexts();
    const shows = (i: number): boolean => {
      if (everything) return true;
      if (!this.passes(i, filter)) return false;
      if (tokens.length === 0) return true;
      // Entries appended since the layout are read one by one.
      let text = this.searchTexts[i];
      if (text === undefined) text = this.searchTexts[i] = searchableText(index.summary(i));
      return matchesSearch(text, labels.get(index.idAt(i)), tokens);
    };
    const foldedAt: number[] = [];
    for (const id of folded) {
      const i = index.positionOf(id);
      if (i !== undefined) foldedAt.push(i);
    }
    return TreeRows.layoutSteps(index, shows, foldedAt);
  }

  /** Whether the filter shows the entry at `i`, from its skeleton (no body is read). */
  private passes(i: number, filter: FilterMode): boolean {
    const index = this.indexValue;
    const hasLabel = filter === "labeled-only" && this.labelMap.has(index.idAt(i));
    return passesFilterFacts(index.typeAt(i), index.roleAt(i), index.isTextless(i), filter, hasLabel, i === this.shownLeaf);
  }

  /**
   * The search text of every entry not known yet (a search reads every body once; the texts are
   * kept until the entries are rebuilt). Summaries are asked for in slices, read in file order.
   */
  private fillSearchTexts(): void {
    const index = this.indexValue;
    const texts = this.searchTexts;
    const missing: number[] = [];
    const flush = (): void => {
      const summaries = index.summaries(missing);
      for (let k = 0; k < missing.length; k++) texts[missing[k]!] = searchableText(summaries[k]!);
      missing.length = 0;
    };
    for (let i = 0; i < index.size; i++) {
      if (texts[i] !== undefined) continue;
      missing.push(i);
      if (missing.length === SEARCH_SLICE) flush();
    }
    if (missing.length > 0) flush();
  }

  private *afterBuild(leafId: string | null): Steps<void> {
    this.stats.builds++;
    this.searchTexts = [];
    this.onPath = new Uint8Array(Math.max(16, this.indexValue.size));
    this.spanMark = new Uint8Array(this.onPath.length);
    this.span = undefined;
    this.leafNode = NONE;
    this.leafIdValue = leafId;
    this.leafNode = this.resolveLeaf(leafId);
    this.shownLeaf = this.leafNode;
    this.rowsValue = yield* this.layoutSteps();
    for (let n = this.leafNode; n !== NONE; n = this.indexValue.parent(n)) this.onPath[n] = 1;
    this.changed();
  }

  /** Keeps the selection on drawn rows (a hidden entry hands it to its nearest drawn ancestor) and bumps the version. */
  private afterLayout(): void {
    const kept: string[] = [];
    for (const id of this.selected) {
      const row = this.rowOfId(id);
      if (row < 0) continue;
      const drawn = this.idAt(row);
      if (!kept.includes(drawn)) kept.push(drawn);
    }
    if (kept.length === 0 && this.selected.length > 0 && this.rowsValue.count > 0) kept.push(this.idAt(0));
    this.selected = kept;
    this.updateSpan();
    this.changed();
  }

  private resolveLeaf(leafId: string | null): number {
    if (leafId === null) return NONE;
    const i = this.indexValue.resolve(leafId);
    return i === undefined ? NONE : i;
  }

  private ensurePerPosition(): void {
    const n = this.indexValue.size;
    if (n <= this.onPath.length) return;
    const size = Math.max(n, this.onPath.length * 2);
    const path = new Uint8Array(size);
    path.set(this.onPath);
    this.onPath = path;
    const mark = new Uint8Array(size);
    mark.set(this.spanMark);
    this.spanMark = mark;
  }

  /** Walks only the detour: up from the new leaf to the old path, and down the old path from the old leaf. */
  private moveLeafTo(leafId: string | null): void {
    const index = this.indexValue;
    const leaf = this.resolveLeaf(leafId);
    const entering: number[] = [];
    let common = leaf;
    while (common !== NONE && this.onPath[common] !== 1) {
      entering.push(common);
      common = index.parent(common);
    }
    for (let n = this.leafNode; n !== NONE && n !== common; n = index.parent(n)) this.onPath[n] = 0;
    for (const n of entering) this.onPath[n] = 1;
    this.leafIdValue = leafId;
    this.leafNode = leaf;
    this.shownLeaf = leaf;
  }

  /** Whether being the leaf decides if the filter shows the entry at `i` (an assistant turn without text). */
  private visibilityFollowsLeaf(i: number): boolean {
    const index = this.indexValue;
    if (i === NONE || !index.isNode(i) || !index.isTextless(i)) return false;
    const hasLabel = this.labelMap.has(index.idAt(i));
    const facts = [index.typeAt(i), index.roleAt(i), true] as const;
    return passesFilterFacts(...facts, this.filterValue, hasLabel, true) !== passesFilterFacts(...facts, this.filterValue, hasLabel, false);
  }

  /**
   * Before an append's nodes are placed, makes the drawn rows follow the leaf's move where that
   * can be done in place: the old leaf, drawn only because it was the leaf, leaves the chain it
   * ends (the usual tool-call turn followed by its result). Returns false when the rows must be
   * laid out again instead (the new leaf is an older hidden turn, or removing the old one would
   * change the shape); `shownLeaf` is the new leaf either way.
   */
  private followLeafInRows(newLeaf: number, added: readonly number[]): boolean {
    const oldLeaf = this.shownLeaf;
    this.shownLeaf = newLeaf;
    if (oldLeaf === newLeaf) return true;
    if (this.visibilityFollowsLeaf(oldLeaf) && this.rowsValue.isShown(oldLeaf)) {
      const firstAdded = added.length > 0 ? Math.min(...added) : this.indexValue.size;
      if (!this.rowsValue.hideChainEnd(oldLeaf, firstAdded)) return false;
    }
    return !(this.visibilityFollowsLeaf(newLeaf) && !added.includes(newLeaf));
  }

  private updateSpan(): void {
    const index = this.indexValue;
    const focus = this.focusId;
    const i = focus === null ? undefined : index.positionOf(focus);
    const isCompaction = i !== undefined && index.isNode(i) && index.typeAt(i) === "compaction";
    if (this.span && (!isCompaction || this.span.compaction !== i)) {
      const anchor = this.span.kept !== NONE ? this.span.kept : this.span.compaction;
      for (let n = index.parent(anchor); n !== NONE; n = index.parent(n)) this.spanMark[n] = 0;
      this.span = undefined;
    }
    if (!isCompaction || this.span) return;
    // Context resolution keeps the path entries from firstKeptEntryId on, or none when that id is
    // not on the path: then the whole path before the compaction was replaced.
    const keptId = index.summary(i).firstKeptEntryId;
    let kept = NONE;
    const k = keptId === undefined ? undefined : index.positionOf(keptId);
    if (k !== undefined && index.isNode(k) && k !== i && index.isAncestorOrSelf(k, i)) kept = k;
    const anchor = kept !== NONE ? kept : i;
    let count = 0;
    for (let n = index.parent(anchor); n !== NONE; n = index.parent(n)) {
      this.spanMark[n] = 1;
      count++;
    }
    this.span = { compaction: i, kept, replacedCount: count };
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

  private changed(): void {
    this.versionValue++;
  }
}
