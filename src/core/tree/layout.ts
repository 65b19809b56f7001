import { passesFilter, type FilterMode } from "./filters";
import { searchTextOf, type TreeNode, type TreeProjection } from "./projection";
import { matchesSearch } from "./search";

/** What decides which entries are drawn. */
export interface LayoutOptions {
  readonly filter: FilterMode;
  /** From `parseSearchQuery`; empty shows everything the filter lets through. */
  readonly searchTokens: readonly string[];
  /** Ids of folded branch points (ids that are not branch points are ignored). */
  readonly folded: ReadonlySet<string>;
  /** Label text by target id. */
  readonly labels: ReadonlyMap<string, string>;
  /**
   * The id of the current leaf's node (a checkout marker resolved to the entry it stands for):
   * Pi's filters show an assistant turn without text only while it is the leaf.
   */
  readonly leafId?: string | null;
}

/**
 * One drawn row. Rows form the *shown* tree: an entry hidden by the filter or the search hands its
 * shown descendants to its nearest shown ancestor. Chains are drawn flat; the children of a branch
 * point (a row with several shown children) start segments one level deeper.
 * Built by this module; read-only to everyone else.
 */
export interface Row {
  readonly node: TreeNode;
  /** The row of the nearest shown ancestor. */
  readonly parentRow: Row | null;
  /**
   * Shown children, in sibling order, as a linked list (see {@link childRows}): a 100,000-row
   * chain then allocates no arrays, which is most of what a relayout would otherwise cost.
   */
  firstChild: Row | null;
  lastChild: Row | null;
  nextSibling: Row | null;
  childCount: number;
  /** 1-based depth in the drawn tree (the ARIA level): roots and their chains are level 1. */
  level: number;
  /**
   * For indent column k (0 ≤ k < level - 1): does a vertical guide run through this row? The last
   * column belongs to the row's own segment (drawn as a tee or elbow on the segment's first row).
   * Shared by every row of a segment.
   */
  guides: readonly boolean[];
  /** First row of a branch segment: drawn with a connector to its branch point. */
  segmentStart: boolean;
  /** A folded branch point: its children are not in `rows`. */
  folded: boolean;
  /**
   * The drawn tree's sibling group (for aria-setsize): the top level, or all rows one level below
   * one branch point. Shared, so that appending to a group is O(1).
   */
  siblings: SiblingGroup;
  /** 1-based position in the sibling group, in row order (aria-posinset). */
  posInSet: number;
  /** Position in `TreeLayout.rows`, or -1 when hidden under a fold. */
  index: number;
}

/** A set of rows that are siblings in the drawn tree. */
export interface SiblingGroup {
  size: number;
}

/** The drawn rows in order, plus lookups. */
export interface TreeLayout {
  readonly rows: Row[];
  /** Every shown entry's row, including rows hidden under folds (index -1). */
  readonly rowById: Map<string, Row>;
  readonly roots: Row[];
}

const NO_GUIDES: readonly boolean[] = [];
/** Placeholder of rows not placed (hidden under a fold); never counted. */
const NO_GROUP: SiblingGroup = { size: 0 };

/** Whether the filter and the search let an entry through. */
export function isShown(node: TreeNode, options: LayoutOptions): boolean {
  const id = node.summary.id;
  if (!passesFilter(node.summary, options.filter, options.labels.has(id), id === options.leafId)) return false;
  if (options.searchTokens.length === 0) return true;
  return matchesSearch(searchTextOf(node), options.labels.get(id), options.searchTokens);
}

/** A branch point can be folded; folding hides all of its descendants. */
export function isFoldable(row: Row): boolean {
  return row.childCount > 1;
}

/** A row's shown children as an array (for callers that are not hot paths). */
export function childRows(row: Row): Row[] {
  const out: Row[] = [];
  for (let c = row.firstChild; c; c = c.nextSibling) out.push(c);
  return out;
}

function newRow(node: TreeNode, parentRow: Row | null): Row {
  const row: Row = {
    node,
    parentRow,
    firstChild: null,
    lastChild: null,
    nextSibling: null,
    childCount: 0,
    level: 1,
    guides: NO_GUIDES,
    segmentStart: false,
    folded: false,
    siblings: NO_GROUP,
    posInSet: 0,
    index: -1,
  };
  if (parentRow) {
    if (parentRow.lastChild) parentRow.lastChild.nextSibling = row;
    else parentRow.firstChild = row;
    parentRow.lastChild = row;
    parentRow.childCount++;
  }
  return row;
}

/** Lays out the whole tree. Linear in the number of entries; iterative, so deep chains cannot overflow the stack. */
export function layoutTree(p: TreeProjection, options: LayoutOptions): TreeLayout {
  const rowById = new Map<string, Row>();
  const roots: Row[] = [];
  const nodeStack: TreeNode[] = [];
  const anchorStack: (Row | null)[] = [];
  for (let i = p.roots.length - 1; i >= 0; i--) {
    nodeStack.push(p.roots[i]);
    anchorStack.push(null);
  }
  while (nodeStack.length > 0) {
    const node = nodeStack.pop() as TreeNode;
    let anchor = anchorStack.pop() as Row | null;
    if (isShown(node, options)) {
      const row = newRow(node, anchor);
      if (!anchor) roots.push(row);
      rowById.set(node.summary.id, row);
      anchor = row;
    }
    const kids = node.children;
    for (let i = kids.length - 1; i >= 0; i--) {
      nodeStack.push(kids[i]);
      anchorStack.push(anchor);
    }
  }
  const rows: Row[] = [];
  placeRows(roots, rows, options.folded);
  return { rows, rowById, roots };
}

function placeRows(roots: readonly Row[], rows: Row[], folded: ReadonlySet<string>): void {
  const stack: Row[] = [];
  const top: SiblingGroup = { size: 0 };
  for (let i = roots.length - 1; i >= 0; i--) {
    roots[i].siblings = top;
    stack.push(roots[i]);
  }
  while (stack.length > 0) {
    let row = stack.pop() as Row;
    // Walk a chain without touching the stack: one child continues the segment.
    for (;;) {
      row.index = rows.length;
      rows.push(row);
      row.posInSet = ++row.siblings.size;
      const child = row.firstChild;
      if (!child || row.childCount !== 1) break;
      child.level = row.level;
      child.guides = row.guides;
      child.siblings = row.siblings;
      row = child;
    }
    if (row.childCount < 2) continue;
    row.folded = folded.has(row.node.summary.id);
    if (row.folded) continue;
    const kids = childRows(row);
    const group: SiblingGroup = { size: 0 };
    for (let i = kids.length - 1; i >= 0; i--) {
      const child = kids[i];
      child.level = row.level + 1;
      child.guides = [...row.guides, i < kids.length - 1];
      child.segmentStart = true;
      child.siblings = group;
      stack.push(child);
    }
  }
}

/**
 * Adds freshly appended nodes (from `appendToProjection`) to a layout in place, for the common case:
 * each shown node continues a chain whose end is shown (appending at the leaf). Returns false when a
 * node changes the shape instead (a new branch, a node under a fold or under hidden ancestors only);
 * the layout is then stale and the caller lays out again with `layoutTree`.
 */
export function appendToLayout(layout: TreeLayout, added: readonly TreeNode[], options: LayoutOptions): boolean {
  for (const node of added) {
    if (!isShown(node, options)) continue;
    let anchor: Row | undefined;
    for (let n = node.parent; n && !anchor; n = n.parent) anchor = layout.rowById.get(n.summary.id);
    if (!anchor) {
      if (node.parent !== null) return false;
      const row = newRow(node, null);
      row.index = layout.rows.length;
      layout.rows.push(row);
      row.siblings = layout.roots.length > 0 ? layout.roots[0].siblings : { size: 0 };
      row.posInSet = ++row.siblings.size;
      layout.roots.push(row);
      layout.rowById.set(node.summary.id, row);
      continue;
    }
    if (anchor.index < 0 || anchor.childCount > 0) return false;
    const row = newRow(node, anchor);
    row.level = anchor.level;
    row.guides = anchor.guides;
    row.siblings = anchor.siblings;
    layout.rowById.set(node.summary.id, row);
    insertRow(layout.rows, anchor.index + 1, row);
  }
  return true;
}

/** Puts a chain continuation right after its anchor; later rows of the same sibling group move down one place. */
function insertRow(rows: Row[], at: number, row: Row): void {
  row.siblings.size++;
  row.posInSet = rows[at - 1].posInSet + 1;
  if (at === rows.length) {
    row.index = at;
    rows.push(row);
    return;
  }
  rows.splice(at, 0, row);
  for (let i = at; i < rows.length; i++) {
    const r = rows[i];
    r.index = i;
    if (i > at && r.siblings === row.siblings) r.posInSet++;
  }
}

/**
 * The row a "go to parent" key lands on: the branch point the row's segment hangs from
 * (rows of one chain are siblings in the drawn tree). -1 at the top level.
 */
export function visualParentIndex(layout: TreeLayout, index: number): number {
  const row = layout.rows[index];
  if (!row || row.level <= 1) return -1;
  for (let i = index - 1; i >= 0; i--) if (layout.rows[i].level < row.level) return i;
  return -1;
}

/** The row a "go to child" key lands on: the first child of an open branch point, else -1. */
export function firstChildIndex(layout: TreeLayout, index: number): number {
  const row = layout.rows[index];
  if (!row || !isFoldable(row) || row.folded) return -1;
  return index + 1 < layout.rows.length ? index + 1 : -1;
}
