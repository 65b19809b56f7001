import { runSteps, STEP_EVERY, type Steps } from "../util/steps";
import { resized } from "../util/typed-columns";
import { IdIndex, type IdLookup } from "./id-index";
import type { EntrySummary } from "./types";

/** "No node": the parent of a root, the end of a sibling list. */
export const NONE = -1;

const FLAG_NODE = 1;
const FLAG_ORPHAN = 2;
const FLAG_MARKER = 4;

/** Outcome of an incremental append. */
export type IndexAppendResult = { ok: true; added: number[] } | { ok: false; reason: string };

/**
 * Where the index reads a session's entries, by position in file order. The skeleton fields
 * (identity, type, role, and whether an assistant turn has no text: all the filters look at) are
 * read for every entry; `summaryAt` (previews, for drawn rows and search) may be made on demand,
 * so a source can keep bodies on disk.
 */
export interface TreeSource {
  readonly size: number;
  idAt(i: number): string;
  parentIdAt(i: number): string | null;
  timestampAt(i: number): string;
  typeAt(i: number): string;
  roleAt(i: number): string | undefined;
  /** An assistant turn without visible text (EntrySummary.textless). */
  isTextless(i: number): boolean;
  isCheckoutMarker(i: number): boolean;
  summaryAt(i: number): EntrySummary;
  /** Summaries of many entries at once (a source that reads bodies from disk reads them in sequential blocks). */
  summariesAt(positions: readonly number[]): EntrySummary[];
  /** Entries appended to the session (file order). */
  push(entries: readonly EntrySummary[]): void;
  /**
   * When the source already knows its structure (a session's store: every id once, parents
   * resolved when it was read), the index takes it instead of hashing every id again.
   */
  structure?(): SourceStructure | undefined;
}

/** What a source knows of its entries' identities and links, by position. */
export interface SourceStructure {
  /** The position of the entry with this id among the source's entries, or undefined. */
  positionOf(id: string): number | undefined;
  /** The position of the entry's parent, or -1 (a root, or a parent id that names no entry). */
  parentPositionAt(i: number): number;
}

/** Id lookups of the index: a source's own lookup for the entries it was built from, a table for appended ones. */
class LayeredIds implements IdLookup {
  private readonly added: IdIndex;
  constructor(
    private readonly structure: SourceStructure,
    keyOf: (position: number) => string,
  ) {
    this.added = new IdIndex(keyOf);
  }
  get(id: string): number | undefined {
    return this.added.get(id) ?? this.structure.positionOf(id);
  }
  has(id: string): boolean {
    return this.get(id) !== undefined;
  }
  set(id: string, position: number): number {
    const before = this.get(id);
    this.added.set(id, position);
    return before ?? -1;
  }
}

/** A source over summaries held in memory (the array is kept, not copied, and grows with appends). */
export class SummaryListSource implements TreeSource {
  constructor(private readonly entries: EntrySummary[]) {}
  get size(): number {
    return this.entries.length;
  }
  idAt(i: number): string {
    return this.entries[i].id;
  }
  parentIdAt(i: number): string | null {
    return this.entries[i].parentId;
  }
  timestampAt(i: number): string {
    return this.entries[i].timestamp;
  }
  typeAt(i: number): string {
    return this.entries[i].type;
  }
  roleAt(i: number): string | undefined {
    return this.entries[i].role;
  }
  isTextless(i: number): boolean {
    return this.entries[i].textless === true;
  }
  isCheckoutMarker(i: number): boolean {
    return this.entries[i].checkoutMarker === true;
  }
  summaryAt(i: number): EntrySummary {
    return this.entries[i];
  }
  summariesAt(positions: readonly number[]): EntrySummary[] {
    return positions.map((i) => this.entries[i]);
  }
  push(entries: readonly EntrySummary[]): void {
    for (const e of entries) this.entries.push(e);
  }
}

/**
 * The entry tree of one session, kept in typed arrays indexed by file position so that a
 * 1,000,000-entry session costs a few arrays rather than a million objects. It lives in the
 * extension host: the webview only ever sees the rows it draws.
 *
 * A *node* is a drawable entry: the last entry with its id (the reference's index lets the last
 * one win) that is not one of Arbor's checkout markers. Markers are spliced out: their children
 * hang from the marker's own (resolved) parent. Orphans (parent missing from the file) and
 * entries caught in a parent cycle are drawn as roots. Children are ordered oldest first by
 * timestamp, then by file order (the reference's getTree order); roots are in file order.
 */
export class TreeIndex {
  private source: TreeSource = new SummaryListSource([]);
  private ids: IdLookup = new IdIndex((i) => this.source.idAt(i));
  /** The source's structure while the index was built from it (attach reads parents from it). */
  private known: SourceStructure | undefined;
  private flags = new Uint8Array(0);
  /** Drawn parent of a node (markers resolved), NONE for a root. For a marker: the node its children attach to. */
  private parentOf = new Int32Array(0);
  private firstChildOf = new Int32Array(0);
  private lastChildOf = new Int32Array(0);
  private nextSiblingOf = new Int32Array(0);
  private firstRootValue = NONE;
  private lastRootValue = NONE;
  private nodeCountValue = 0;
  /** Parent ids that named no entry: an entry arriving later with such an id forces a rebuild. */
  private readonly missingParentIds = new Set<string>();
  /** Entries dropped because a later entry had the same id. */
  duplicateCount = 0;

  private constructor() {}

  /** Builds the index of entries in file order. An array is kept (not copied) and grows with appends. */
  static build(entries: EntrySummary[] | TreeSource): TreeIndex {
    return runSteps(TreeIndex.buildSteps(entries));
  }

  /** `build` in steps (see util/steps): the host builds a large session's index in slices. */
  static *buildSteps(entries: EntrySummary[] | TreeSource): Steps<TreeIndex> {
    const index = new TreeIndex();
    index.source = Array.isArray(entries) ? new SummaryListSource(entries) : entries;
    yield* index.rebuildSteps();
    return index;
  }

  /** Entries in the file, markers and superseded duplicates included. */
  get size(): number {
    return this.source.size;
  }
  /** Drawable entries. */
  get nodeCount(): number {
    return this.nodeCountValue;
  }
  get firstRoot(): number {
    return this.firstRootValue;
  }

  /** The light view of the entry at a position (from the source: possibly made on demand). */
  summary(i: number): EntrySummary {
    return this.source.summaryAt(i);
  }
  /** Summaries of many entries at once (read in sequential blocks when bodies are on disk). */
  summaries(positions: readonly number[]): EntrySummary[] {
    return this.source.summariesAt(positions);
  }
  /** The id of the entry at a position. */
  idAt(i: number): string {
    return this.source.idAt(i);
  }
  typeAt(i: number): string {
    return this.source.typeAt(i);
  }
  roleAt(i: number): string | undefined {
    return this.source.roleAt(i);
  }
  /** An assistant turn without visible text: hidden by Pi's filters unless it is the leaf. */
  isTextless(i: number): boolean {
    return this.source.isTextless(i);
  }
  isNode(i: number): boolean {
    return (this.flags[i] & FLAG_NODE) !== 0;
  }
  isOrphan(i: number): boolean {
    return (this.flags[i] & FLAG_ORPHAN) !== 0;
  }
  parent(i: number): number {
    return this.parentOf[i];
  }
  firstChild(i: number): number {
    return this.firstChildOf[i];
  }
  nextSibling(i: number): number {
    return this.nextSiblingOf[i];
  }
  hasChildren(i: number): boolean {
    return this.firstChildOf[i] !== NONE;
  }

  /** The position of the entry an id names now (its last entry), or undefined. */
  positionOf(id: string): number | undefined {
    return this.ids.get(id);
  }

  /**
   * The node an id stands for: its own node, or for a checkout marker the node it was spliced
   * into. NONE for a known marker at root position; undefined for an unknown id.
   */
  resolve(id: string): number | undefined {
    const i = this.ids.get(id);
    if (i === undefined) return undefined;
    if (this.flags[i] & FLAG_NODE) return i;
    return this.parentOf[i];
  }

  /** The next node in pre-order (the drawn order before filters), or NONE after the last. */
  nextInPreorder(i: number): number {
    const child = this.firstChildOf[i];
    if (child !== NONE) return child;
    return this.nextAfterSubtree(i);
  }

  /** The next node in pre-order that is not in the subtree of `i`. */
  nextAfterSubtree(i: number): number {
    for (let n = i; n !== NONE; n = this.parentOf[n]) {
      const sibling = this.nextSiblingOf[n];
      if (sibling !== NONE) return sibling;
    }
    return NONE;
  }

  /** Whether `ancestor` is `node` or lies on its path to the root. */
  isAncestorOrSelf(ancestor: number, node: number): boolean {
    for (let n = node; n !== NONE; n = this.parentOf[n]) if (n === ancestor) return true;
    return false;
  }

  /**
   * Appends entries (file order) in place. Returns `ok: false`, leaving the index untouched, when
   * the batch cannot be applied incrementally (a repeated id, or the missing parent of earlier
   * orphans arriving): the caller then rebuilds.
   */
  append(entries: readonly EntrySummary[]): IndexAppendResult {
    const batch = new Set<string>();
    for (const e of entries) {
      if (this.ids.has(e.id) || batch.has(e.id)) return { ok: false, reason: `duplicate entry id ${e.id}` };
      if (this.missingParentIds.has(e.id)) return { ok: false, reason: `entry ${e.id} is the missing parent of earlier entries` };
      batch.add(e.id);
    }
    // A parent written after its child in the same batch would leave the child an orphan.
    const seen = new Set<string>();
    for (const e of entries) {
      if (e.parentId !== null && !seen.has(e.parentId) && batch.has(e.parentId)) return { ok: false, reason: `entry ${e.id} comes before its parent` };
      seen.add(e.id);
    }
    this.ensureCapacity(this.source.size + entries.length);
    const added: number[] = [];
    const first = this.source.size;
    this.source.push(entries);
    for (let k = 0; k < entries.length; k++) {
      const e = entries[k];
      const i = first + k;
      this.ids.set(e.id, i);
      this.clearSlot(i);
      if (e.checkoutMarker) {
        this.flags[i] = FLAG_MARKER;
        this.resolveAppendedMarker(i);
        continue;
      }
      this.flags[i] = FLAG_NODE;
      this.nodeCountValue++;
      this.attach(i);
      const p = this.parentOf[i];
      if (p !== NONE) this.keepChildOrder(p, i);
      added.push(i);
    }
    return { ok: true, added };
  }

  /** Rebuilds everything from the entry list (after a batch `append` refused). */
  appendByRebuild(entries: readonly EntrySummary[]): void {
    this.source.push(entries);
    runSteps(this.rebuildSteps());
  }

  // ------------------------------------------------------------------ building

  private *rebuildSteps(): Steps<void> {
    const source = this.source;
    const n = source.size;
    const known = source.structure?.();
    this.missingParentIds.clear();
    this.duplicateCount = 0;
    // The columns' memory is fresh (20 MB for a million entries): a step for each.
    this.flags = new Uint8Array(Math.max(16, n));
    this.parentOf = new Int32Array(this.flags.length).fill(NONE);
    yield;
    this.firstChildOf = new Int32Array(this.flags.length).fill(NONE);
    yield;
    this.lastChildOf = new Int32Array(this.flags.length).fill(NONE);
    yield;
    this.nextSiblingOf = new Int32Array(this.flags.length).fill(NONE);
    this.firstRootValue = this.lastRootValue = NONE;
    yield;
    // An id seen again names its last entry: the earlier one is superseded (flags stay 0).
    // (Only a source without its own structure can repeat an id: see TreeSource.structure.)
    const superseded = new Uint8Array(known ? 0 : n);
    if (known) this.ids = new LayeredIds(known, (i) => source.idAt(i));
    else {
      const ids = new IdIndex((i) => source.idAt(i), n);
      this.ids = ids;
      for (let i = 0; i < n; i++) {
        if ((i & (STEP_EVERY - 1)) === 0) yield;
        const before = ids.set(source.idAt(i), i);
        if (before >= 0) {
          superseded[before] = 1;
          this.duplicateCount++;
        }
      }
    }
    let nodes = 0;
    for (let i = 0; i < n; i++) {
      if ((i & (STEP_EVERY - 1)) === 0) yield;
      if (!known && superseded[i]) continue;
      if (source.isCheckoutMarker(i)) this.flags[i] = FLAG_MARKER;
      else {
        this.flags[i] = FLAG_NODE;
        nodes++;
      }
    }
    this.nodeCountValue = nodes;
    const UNRESOLVED = -2;
    // Markers first: a marker's children attach to the node it resolves to.
    for (let i = 0; i < n; i++) if (this.flags[i] & FLAG_MARKER) this.parentOf[i] = UNRESOLVED;
    for (let i = 0; i < n; i++) if (this.flags[i] & FLAG_MARKER) this.resolveMarker(i, UNRESOLVED);
    let parentsLater = false;
    this.known = known;
    for (let i = 0; i < n; i++) {
      if ((i & (STEP_EVERY - 1)) === 0) yield;
      if (!(this.flags[i] & FLAG_NODE)) continue;
      this.attach(i);
      const p = this.parentOf[i];
      if (p !== NONE && p >= i) parentsLater = true;
    }
    this.known = undefined;
    // A parent cycle needs an entry whose parent comes later in the file (or itself, through a
    // marker); files written in append order have none and skip the reachability walk.
    if (parentsLater) this.cutCycles();
    yield;
    for (let i = 0; i < n; i++) {
      if ((i & (STEP_EVERY - 1)) === 0) yield;
      if (this.flags[i] & FLAG_NODE && this.firstChildOf[i] !== this.lastChildOf[i]) this.sortChildren(i);
    }
  }

  /** Resolves a marker (and the markers it hangs from) iteratively: deep marker chains cannot overflow the stack. */
  private resolveMarker(start: number, unresolved: number): void {
    const chain: number[] = [];
    let i = start;
    let target = NONE;
    let orphan = false;
    const visiting = new Set<number>();
    for (;;) {
      if (this.parentOf[i] !== unresolved) {
        target = this.parentOf[i];
        orphan = (this.flags[i] & FLAG_ORPHAN) !== 0;
        break;
      }
      chain.push(i);
      visiting.add(i);
      const parentId = this.source.parentIdAt(i);
      if (parentId === null || parentId === this.source.idAt(i)) break;
      const p = this.ids.get(parentId);
      if (p === undefined) {
        this.missingParentIds.add(parentId);
        orphan = true;
        break;
      }
      if (this.flags[p] & FLAG_NODE) {
        target = p;
        break;
      }
      if (!(this.flags[p] & FLAG_MARKER) || visiting.has(p)) break;
      i = p;
    }
    for (const m of chain) {
      this.parentOf[m] = target;
      if (orphan) this.flags[m] |= FLAG_ORPHAN;
    }
  }

  private resolveAppendedMarker(i: number): void {
    const parentId = this.source.parentIdAt(i);
    if (parentId === null || parentId === this.source.idAt(i)) return;
    const p = this.ids.get(parentId);
    if (p === undefined) {
      this.missingParentIds.add(parentId);
      this.flags[i] |= FLAG_ORPHAN;
    } else if (this.flags[p] & FLAG_NODE) this.parentOf[i] = p;
    else if (this.flags[p] & FLAG_MARKER) {
      this.parentOf[i] = this.parentOf[p];
      this.flags[i] |= this.flags[p] & FLAG_ORPHAN;
    }
  }

  /** Links a node under its resolved parent (or among the roots). */
  private attach(i: number): void {
    const source = this.source;
    let p: number | undefined;
    if (this.known) {
      // The source resolved the parent when it read the entry: no id is looked at unless it is missing.
      const at = this.known.parentPositionAt(i);
      if (at === i) return this.linkRoot(i);
      p = at >= 0 ? at : undefined;
      if (p === undefined && source.parentIdAt(i) === null) return this.linkRoot(i);
    } else {
      const parentId = source.parentIdAt(i);
      if (parentId === null || parentId === source.idAt(i)) return this.linkRoot(i);
      // Most entries follow their parent in the file: compare with the line before first.
      p = i > 0 && this.flags[i - 1] !== 0 && source.idAt(i - 1) === parentId ? i - 1 : this.ids.get(parentId);
    }
    if (p === undefined) {
      const parentId = source.parentIdAt(i)!;
      this.missingParentIds.add(parentId);
      this.flags[i] |= FLAG_ORPHAN;
      return this.linkRoot(i);
    }
    const target = this.flags[p] & FLAG_NODE ? p : this.parentOf[p];
    if (target === NONE) {
      // Under a marker at root position (a root) or an orphaned marker (an orphan).
      if (this.flags[p] & FLAG_ORPHAN) this.flags[i] |= FLAG_ORPHAN;
      return this.linkRoot(i);
    }
    this.parentOf[i] = target;
    this.linkChild(target, i);
  }

  private linkRoot(i: number): void {
    this.parentOf[i] = NONE;
    if (this.lastRootValue === NONE) this.firstRootValue = i;
    else this.nextSiblingOf[this.lastRootValue] = i;
    this.lastRootValue = i;
  }

  private linkChild(p: number, i: number): void {
    const last = this.lastChildOf[p];
    if (last === NONE) this.firstChildOf[p] = i;
    else this.nextSiblingOf[last] = i;
    this.lastChildOf[p] = i;
  }

  private childrenOf(p: number): number[] {
    const out: number[] = [];
    for (let c = this.firstChildOf[p]; c !== NONE; c = this.nextSiblingOf[c]) out.push(c);
    return out;
  }

  private relink(p: number, children: readonly number[]): void {
    if (children.length === 0) {
      this.firstChildOf[p] = this.lastChildOf[p] = NONE;
      return;
    }
    this.firstChildOf[p] = children[0];
    for (let k = 0; k < children.length - 1; k++) this.nextSiblingOf[children[k]] = children[k + 1];
    this.nextSiblingOf[children[children.length - 1]] = NONE;
    this.lastChildOf[p] = children[children.length - 1];
  }

  /** Sibling order key: the timestamp in epoch ms; an unparseable one sorts after every valid one. */
  timeOf(i: number): number {
    const t = Date.parse(this.source.timestampAt(i));
    return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
  }

  private sortChildren(p: number): void {
    const kids = this.childrenOf(p);
    const keyed = kids.map((i) => ({ i, t: this.timeOf(i) }));
    let sorted = true;
    for (let k = 1; k < keyed.length && sorted; k++) {
      const a = keyed[k - 1];
      const b = keyed[k];
      if (a.t > b.t || (a.t === b.t && a.i > b.i)) sorted = false;
    }
    if (sorted) return;
    keyed.sort((a, b) => (a.t !== b.t ? (a.t < b.t ? -1 : 1) : a.i - b.i));
    this.relink(p, keyed.map((k) => k.i));
  }

  /** After appending `i` under `p`: appends usually carry the newest time; an older one (a clock change) must still sort. */
  private keepChildOrder(p: number, i: number): void {
    const first = this.firstChildOf[p];
    if (first === i) return;
    let prev = first;
    while (this.nextSiblingOf[prev] !== i) prev = this.nextSiblingOf[prev];
    const tp = this.timeOf(prev);
    const ti = this.timeOf(i);
    if (tp < ti || (tp === ti && prev < i)) return;
    this.sortChildren(p);
  }

  /**
   * Entries whose parent chain loops never reach a root. Count what the roots reach; cut each
   * loop at its earliest entry (file order), which becomes an orphan root.
   */
  private cutCycles(): void {
    const seen = new Uint8Array(this.source.size);
    if (this.markSubtrees(this.firstRootValue, true, seen) === this.nodeCountValue) return;
    const roots: number[] = [];
    for (let r = this.firstRootValue; r !== NONE; r = this.nextSiblingOf[r]) roots.push(r);
    for (let i = 0; i < this.source.size; i++) {
      if (!(this.flags[i] & FLAG_NODE) || seen[i]) continue;
      const p = this.parentOf[i];
      if (p !== NONE) this.relink(p, this.childrenOf(p).filter((c) => c !== i));
      this.flags[i] |= FLAG_ORPHAN;
      this.parentOf[i] = NONE;
      roots.push(i);
      this.markSubtrees(i, false, seen);
    }
    // Roots back in file order.
    roots.sort((a, b) => a - b);
    this.firstRootValue = roots[0] ?? NONE;
    this.lastRootValue = roots[roots.length - 1] ?? NONE;
    for (let k = 0; k < roots.length; k++) this.nextSiblingOf[roots[k]] = roots[k + 1] ?? NONE;
  }

  /** Marks the subtrees of `start` (and, with `siblings`, of every later sibling); returns how many were new. */
  private markSubtrees(start: number, siblings: boolean, seen: Uint8Array): number {
    let count = 0;
    const stack: number[] = [];
    for (let r = start; r !== NONE; r = siblings ? this.nextSiblingOf[r] : NONE) stack.push(r);
    while (stack.length > 0) {
      const n = stack.pop() as number;
      if (seen[n]) continue;
      seen[n] = 1;
      count++;
      for (let c = this.firstChildOf[n]; c !== NONE; c = this.nextSiblingOf[c]) stack.push(c);
    }
    return count;
  }

  private clearSlot(i: number): void {
    this.flags[i] = 0;
    this.parentOf[i] = NONE;
    this.firstChildOf[i] = NONE;
    this.lastChildOf[i] = NONE;
    this.nextSiblingOf[i] = NONE;
  }

  private ensureCapacity(n: number): void {
    if (n <= this.flags.length) return;
    const size = Math.max(n, this.flags.length * 2);
    this.flags = resized(this.flags, size);
    this.parentOf = resized(this.parentOf, size);
    this.firstChildOf = resized(this.firstChildOf, size);
    this.lastChildOf = resized(this.lastChildOf, size);
    this.nextSiblingOf = resized(this.nextSiblingOf, size);
  }
}
