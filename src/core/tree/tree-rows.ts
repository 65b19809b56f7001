import { STEP_EVERY, type Steps } from "../util/steps";
import { resized } from "../util/typed-columns";
import { NONE, type TreeIndex } from "./tree-index";

/** The sibling group of top-level rows (every other group is keyed by its branch point's position). */
const TOP = -2;

/** One indent column: l(ine), b(lank), t(ee: a segment starts here, more follow), e(lbow: the last one starts here). */
export type LaneKind = "l" | "b" | "t" | "e";

/** The indent columns a row draws, bounded: the nearest `columns`, and how many outer ones are folded into a depth marker. */
export interface RowLanes {
  /** One character per drawn column, outermost first. */
  readonly columns: string;
  /** Outer columns not drawn. */
  readonly hidden: number;
}

/**
 * The drawn rows of a tree under a filter, a search and folds, in typed arrays indexed by entry
 * position (see TreeIndex). Rows form the *shown* tree: an entry the filter or search hides hands
 * its shown descendants to its nearest shown ancestor (the drawn parent). Chains are drawn flat;
 * the children of a branch point (a row with several drawn children) start segments one level
 * deeper. Rows under a folded branch point are not placed.
 */
export class TreeRows {
  private rowNodeArr: Int32Array = new Int32Array(0);
  private countValue = 0;
  private topSize = 0;
  private capacity: number;
  /** Nearest shown ancestor-or-self of every node. */
  private up: Int32Array = new Int32Array(0);
  private drawnParentArr: Int32Array = new Int32Array(0);
  private drawnChildren: Int32Array = new Int32Array(0);
  private lastDrawnChild: Int32Array = new Int32Array(0);
  private levelArr: Int32Array = new Int32Array(0);
  private segmentOf: Int32Array = new Int32Array(0);
  private groupOf: Int32Array = new Int32Array(0);
  private posArr: Int32Array = new Int32Array(0);
  private groupSize: Int32Array = new Int32Array(0);
  private rowOfArr: Int32Array = new Int32Array(0);
  private shown: Uint8Array = new Uint8Array(0);
  private foldedArr: Uint8Array = new Uint8Array(0);

  /**
   * Lays out every node, in steps (see util/steps: the host lays out a large session in slices).
   * `shows(i)` is the filter and search; `folded` the positions of folded branch points (other
   * positions are ignored). Linear in the number of entries; no recursion.
   */
  static *layoutSteps(index: TreeIndex, shows: (i: number) => boolean, folded: Iterable<number>): Steps<TreeRows> {
    const rows = new TreeRows(index, shows);
    yield* rows.allocate();
    for (const i of folded) if (i >= 0 && i < index.size && index.isNode(i)) rows.foldedArr[i] = 1;
    yield* rows.countShown();
    yield* rows.place();
    return rows;
  }

  private constructor(
    private readonly index: TreeIndex,
    private readonly shows: (i: number) => boolean,
  ) {
    // Room for some appends; little more: every byte of these columns counts towards the memory
    // that makes the engine collect garbage while a large session is laid out.
    this.capacity = index.size + Math.max(1024, index.size >> 6);
  }

  /** The columns, one a step: at a million entries they are 60 MB of fresh memory. */
  private *allocate(): Steps<void> {
    const c = this.capacity;
    this.rowNodeArr = new Int32Array(c);
    this.up = new Int32Array(c);
    this.drawnParentArr = new Int32Array(c);
    yield;
    this.drawnChildren = new Int32Array(c);
    this.lastDrawnChild = new Int32Array(c);
    this.levelArr = new Int32Array(c);
    yield;
    this.segmentOf = new Int32Array(c);
    this.groupOf = new Int32Array(c);
    this.posArr = new Int32Array(c);
    yield;
    this.groupSize = new Int32Array(c);
    this.rowOfArr = new Int32Array(c).fill(-1);
    yield;
    this.shown = new Uint8Array(c);
    this.foldedArr = new Uint8Array(c);
  }

  /** Rows drawn. */
  get count(): number {
    return this.countValue;
  }
  /** The entry position drawn at a row. */
  nodeAt(row: number): number {
    return row >= 0 && row < this.countValue ? this.rowNodeArr[row] : NONE;
  }
  /** The row of an entry position, or -1 when it is hidden or under a fold. */
  rowOf(i: number): number {
    return i >= 0 && i < this.index.size ? this.rowOfArr[i] : -1;
  }
  isShown(i: number): boolean {
    return this.shown[i] === 1;
  }
  /** 1-based depth in the drawn tree (aria-level). */
  level(i: number): number {
    return this.levelArr[i];
  }
  /** 1-based position among the drawn siblings (aria-posinset). */
  posInSet(i: number): number {
    return this.posArr[i];
  }
  /** Size of the drawn sibling group (aria-setsize). */
  setSize(i: number): number {
    const g = this.groupOf[i];
    return g === TOP ? this.topSize : this.groupSize[g];
  }
  drawnParent(i: number): number {
    return this.drawnParentArr[i];
  }
  /** Drawn children of a shown node. */
  drawnChildCount(i: number): number {
    return this.drawnChildren[i];
  }
  /** A branch point: several drawn children; it can be folded. */
  isBranchPoint(i: number): boolean {
    return this.drawnChildren[i] > 1;
  }
  isFolded(i: number): boolean {
    return this.foldedArr[i] === 1 && this.drawnChildren[i] > 1;
  }
  /** First row of a branch segment (drawn with a connector to its branch point). */
  isSegmentStart(i: number): boolean {
    const dp = this.drawnParentArr[i];
    return dp !== NONE && this.drawnChildren[dp] > 1;
  }

  /** The nearest placed row at or above an entry position (for hidden or folded-away entries), or -1. */
  nearestRow(i: number): number {
    for (let n = i; n !== NONE; n = this.index.parent(n)) {
      const row = this.rowOfArr[n];
      if (row >= 0) return row;
    }
    return -1;
  }

  /** The row a "go to parent" key lands on: the branch point the row's segment hangs from; -1 at the top level. */
  visualParentRow(row: number): number {
    const i = this.nodeAt(row);
    if (i === NONE || this.levelArr[i] <= 1) return -1;
    return this.rowOfArr[this.drawnParentArr[this.segmentOf[i]]];
  }

  /** The row a "go to child" key lands on: the first child of an open branch point, else -1. */
  firstChildRow(row: number): number {
    const i = this.nodeAt(row);
    if (i === NONE || !this.isBranchPoint(i) || this.isFolded(i)) return -1;
    return row + 1 < this.countValue ? row + 1 : -1;
  }

  /** The indent columns of a placed row: at most `max` of them, the nearest ones. */
  lanes(i: number, max: number): RowLanes {
    const total = this.levelArr[i] - 1;
    if (total <= 0) return { columns: "", hidden: 0 };
    const drawn = Math.max(0, Math.min(max, total));
    const out: string[] = [];
    let segment = this.segmentOf[i];
    const own = this.isLastChild(segment);
    if (drawn > 0) out.push(this.isSegmentStart(i) ? (own ? "e" : "t") : own ? "b" : "l");
    while (out.length < drawn) {
      segment = this.segmentOf[this.drawnParentArr[segment]];
      out.push(this.isLastChild(segment) ? "b" : "l");
    }
    return { columns: out.reverse().join(""), hidden: total - drawn };
  }

  private isLastChild(segmentStart: number): boolean {
    const dp = this.drawnParentArr[segmentStart];
    return dp === NONE || this.lastDrawnChild[dp] === segmentStart;
  }

  /**
   * Takes nodes just appended to the index (positions, file order). A node that continues a
   * drawn chain goes right after its drawn parent's row, wherever that is (the leaf after a
   * checkout is often mid-tree): the rows after it move down one place, which costs a pass over
   * typed arrays, not a layout. Returns false when a node changes the drawn shape (a chain
   * becoming a branch point, a new branch anywhere but at the end): the caller lays out again.
   */
  appendNodes(added: readonly number[]): boolean {
    const index = this.index;
    if (index.size > this.capacity) this.grow(index.size);
    for (const v of added) {
      this.rowOfArr[v] = -1;
      this.drawnChildren[v] = 0;
      this.foldedArr[v] = 0;
      const p = index.parent(v);
      const anc = p === NONE ? NONE : this.up[p];
      if (!this.shows(v)) {
        this.shown[v] = 0;
        this.up[v] = anc;
        continue;
      }
      this.shown[v] = 1;
      this.up[v] = v;
      this.drawnParentArr[v] = anc;
      if (anc === NONE) {
        // A top-level row: only the last one in pre-order can be added at the end.
        if (index.nextSibling(v) !== NONE || (p !== NONE && !this.lastRowWithin(p))) return false;
        this.levelArr[v] = 1;
        this.groupOf[v] = TOP;
        this.segmentOf[v] = v;
        this.posArr[v] = ++this.topSize;
        this.pushRow(v);
        continue;
      }
      const before = this.drawnChildren[anc]++;
      // A chain turning into a branch point re-levels its first child's segment.
      if (before === 1) return false;
      const ancRow = this.rowOfArr[anc];
      const placed = ancRow >= 0 && !(before > 1 && this.foldedArr[anc] === 1);
      if (before === 0) {
        this.lastDrawnChild[anc] = v;
        if (placed) this.insertAfter(anc, v);
        continue;
      }
      // A new segment under a branch point: only at the end of the rows.
      if (index.nextSibling(v) !== NONE || !this.lastRowWithin(p)) return false;
      this.lastDrawnChild[anc] = v;
      if (!placed) continue;
      this.levelArr[v] = this.levelArr[anc] + 1;
      this.groupOf[v] = anc;
      this.segmentOf[v] = v;
      this.posArr[v] = ++this.groupSize[anc];
      this.pushRow(v);
    }
    return true;
  }

  /**
   * Hides a shown node that ends a chain, in place: the previous leaf that only being the leaf
   * showed. It must have no drawn children, no children placed before position `firstNew` (the
   * nodes of an append not yet passed to appendNodes, whose hidden ancestors are resolved then),
   * and a drawn parent with no other drawn child. Returns false, changing nothing, otherwise.
   */
  hideChainEnd(v: number, firstNew: number): boolean {
    const index = this.index;
    const dp = this.drawnParentArr[v];
    if (this.shown[v] !== 1 || this.drawnChildren[v] !== 0 || dp === NONE || this.drawnChildren[dp] !== 1) return false;
    for (let c = index.firstChild(v); c !== NONE; c = index.nextSibling(c)) if (c < firstNew) return false;
    this.shown[v] = 0;
    this.up[v] = dp;
    this.drawnChildren[dp] = 0;
    const g = this.groupOf[v];
    if (g === TOP) this.topSize--;
    else this.groupSize[g]--;
    const at = this.rowOfArr[v];
    this.rowOfArr[v] = -1;
    if (at < 0) return true;
    const rows = this.rowNodeArr;
    const count = this.countValue;
    rows.copyWithin(at, at + 1, count);
    this.countValue = count - 1;
    for (let r = at; r < count - 1; r++) {
      const n = rows[r];
      this.rowOfArr[n] = r;
      if (this.groupOf[n] === g) this.posArr[n]--;
    }
    return true;
  }

  /** Places `v`, the only drawn child of the drawn leaf `anc`, on the row after it. */
  private insertAfter(anc: number, v: number): void {
    const g = this.groupOf[anc];
    this.levelArr[v] = this.levelArr[anc];
    this.groupOf[v] = g;
    this.segmentOf[v] = this.segmentOf[anc];
    if (g === TOP) this.topSize++;
    else this.groupSize[g]++;
    const at = this.rowOfArr[anc] + 1;
    const count = this.countValue;
    if (at === count) {
      this.posArr[v] = this.posArr[anc] + 1;
      this.pushRow(v);
      return;
    }
    const rows = this.rowNodeArr;
    rows.copyWithin(at + 1, at, count);
    rows[at] = v;
    this.countValue = count + 1;
    for (let r = at + 1; r <= count; r++) {
      const n = rows[r];
      this.rowOfArr[n] = r;
      if (this.groupOf[n] === g) this.posArr[n]++;
    }
    this.rowOfArr[v] = at;
    this.posArr[v] = this.posArr[anc] + 1;
  }

  /**
   * Whether a new last child of `p` comes after every placed row: the last row is `p`, one of its
   * ancestors (the usual append under a hidden entry) or in its subtree.
   */
  private lastRowWithin(p: number): boolean {
    if (this.countValue === 0) return true;
    const last = this.rowNodeArr[this.countValue - 1];
    return this.index.isAncestorOrSelf(last, p) || this.index.isAncestorOrSelf(p, last);
  }

  private pushRow(v: number): void {
    this.rowOfArr[v] = this.countValue;
    this.rowNodeArr[this.countValue++] = v;
  }

  /** Pass 1: which nodes are shown, their drawn parents and drawn child counts. */
  private *countShown(): Steps<void> {
    // The columns as locals: this pass runs over every entry of the session when it is shown.
    const index = this.index;
    const { shown, up, drawnParentArr, drawnChildren, lastDrawnChild } = this;
    let steps = 0;
    for (let v = index.firstRoot; v !== NONE; v = index.nextInPreorder(v)) {
      if ((++steps & (STEP_EVERY - 1)) === 0) yield;
      const p = index.parent(v);
      const anc = p === NONE ? NONE : up[p]!;
      if (this.shows(v)) {
        shown[v] = 1;
        up[v] = v;
        drawnParentArr[v] = anc;
        if (anc !== NONE) {
          drawnChildren[anc]!++;
          lastDrawnChild[anc] = v;
        }
      } else {
        shown[v] = 0;
        up[v] = anc;
      }
    }
  }

  /** Pass 2: rows in pre-order, with levels, segments and sibling groups; folded subtrees are skipped. */
  private *place(): Steps<void> {
    const index = this.index;
    const { shown, drawnParentArr, drawnChildren, levelArr, groupOf, segmentOf, posArr, groupSize } = this;
    let topSize = this.topSize;
    let v = index.firstRoot;
    let steps = 0;
    while (v !== NONE) {
      if ((++steps & (STEP_EVERY - 1)) === 0) yield;
      if (!shown[v]) {
        v = index.nextInPreorder(v);
        continue;
      }
      const dp = drawnParentArr[v]!;
      if (dp === NONE) {
        levelArr[v] = 1;
        groupOf[v] = TOP;
        segmentOf[v] = v;
      } else if (drawnChildren[dp] === 1) {
        levelArr[v] = levelArr[dp]!;
        groupOf[v] = groupOf[dp]!;
        segmentOf[v] = segmentOf[dp]!;
      } else {
        levelArr[v] = levelArr[dp]! + 1;
        groupOf[v] = dp;
        segmentOf[v] = v;
      }
      const g = groupOf[v]!;
      posArr[v] = g === TOP ? ++topSize : ++groupSize[g]!;
      this.pushRow(v);
      v = this.isFolded(v) ? index.nextAfterSubtree(v) : index.nextInPreorder(v);
    }
    this.topSize = topSize;
  }

  private grow(n: number): void {
    const size = Math.max(n, Math.ceil(this.capacity * 1.5));
    this.rowNodeArr = resized(this.rowNodeArr, size);
    this.up = resized(this.up, size);
    this.drawnParentArr = resized(this.drawnParentArr, size);
    this.drawnChildren = resized(this.drawnChildren, size);
    this.lastDrawnChild = resized(this.lastDrawnChild, size);
    this.levelArr = resized(this.levelArr, size);
    this.segmentOf = resized(this.segmentOf, size);
    this.groupOf = resized(this.groupOf, size);
    this.posArr = resized(this.posArr, size);
    this.groupSize = resized(this.groupSize, size);
    this.rowOfArr = resized(this.rowOfArr, size, -1);
    this.shown = resized(this.shown, size);
    this.foldedArr = resized(this.foldedArr, size);
    this.capacity = size;
  }
}
