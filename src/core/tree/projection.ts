import { searchableText } from "./search";
import type { EntrySummary } from "./types";

/**
 * One drawable entry of the session tree. Checkout markers never become nodes: their children hang
 * from the marker's own (resolved) parent.
 */
export interface TreeNode {
  readonly summary: EntrySummary;
  /** Position in file order among all entries seen, markers included: the tie-break between equal timestamps. */
  readonly order: number;
  parent: TreeNode | null;
  /** Ordered oldest first by timestamp, then file order (the reference's getTree order). */
  children: TreeNode[];
  /** The parent id names an entry that is not in the session (or the entry sat in a parent cycle). */
  orphan: boolean;
  /** Cached sort key; see {@link timeOf}. */
  time?: number;
  /** Cached lower-case search text; see {@link searchTextOf}. */
  searchText?: string;
}

/** Where a checkout marker's children attach. */
interface MarkerTarget {
  node: TreeNode | null;
  orphan: boolean;
}

/**
 * The entry tree of one session. `projectTree` builds it; `appendToProjection` grows it in place,
 * because copying a 100,000-node tree on every append is what must not happen.
 */
export interface TreeProjection {
  /** Drawable nodes by entry id (checkout markers excluded). */
  readonly nodes: Map<string, TreeNode>;
  /** Roots and orphans, in file order. */
  readonly roots: TreeNode[];
  /** Checkout marker id → where its children attach. */
  readonly markers: Map<string, MarkerTarget>;
  /** Parent ids that named no entry: an entry arriving later with such an id forces a rebuild. */
  readonly missingParentIds: Set<string>;
  /** Entries dropped because a later entry had the same id (the later one wins, as in the reference). */
  duplicateCount: number;
  /** The order the next appended entry gets. */
  nextOrder: number;
}

/** Outcome of an incremental append. */
export type AppendResult =
  | {
      ok: true;
      /** The new drawable nodes, in file order. */
      added: TreeNode[];
    }
  | { ok: false; reason: string };

/**
 * The sort key of a node: its timestamp in epoch ms. An unparseable timestamp sorts after every
 * valid one (and in file order among themselves), so bad data never reorders good data.
 */
export function timeOf(node: TreeNode): number {
  if (node.time === undefined) {
    const t = Date.parse(node.summary.timestamp);
    node.time = Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
  }
  return node.time;
}

/** The node's lower-case search text, computed once. */
export function searchTextOf(node: TreeNode): string {
  if (node.searchText === undefined) node.searchText = searchableText(node.summary);
  return node.searchText;
}

/** Sibling order: timestamp, then file order. */
export function compareSiblings(a: TreeNode, b: TreeNode): number {
  const ta = timeOf(a);
  const tb = timeOf(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.order - b.order;
}

function isRootParent(entry: EntrySummary): boolean {
  return entry.parentId === null || entry.parentId === entry.id;
}

function emptyProjection(): TreeProjection {
  return { nodes: new Map(), roots: [], markers: new Map(), missingParentIds: new Set(), duplicateCount: 0, nextOrder: 0 };
}

/**
 * Builds the tree from the entry summaries in file order. Parents may appear after their children
 * (as the reference tolerates); orphans become roots; checkout markers are spliced out; entries
 * caught in a parent cycle are cut loose as orphans so that nothing goes undrawn.
 */
export function projectTree(entries: readonly EntrySummary[]): TreeProjection {
  const p = emptyProjection();
  p.nextOrder = entries.length;
  const markerEntries = new Map<string, EntrySummary>();
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    // The last entry with an id wins; one map lookup per entry keeps a 100,000-entry load cheap.
    if (e.checkoutMarker) {
      if (p.nodes.delete(e.id) || markerEntries.has(e.id)) p.duplicateCount++;
      markerEntries.set(e.id, e);
    } else {
      if (markerEntries.delete(e.id) || p.nodes.has(e.id)) p.duplicateCount++;
      p.nodes.set(e.id, newNode(e, i));
    }
  }
  for (const id of markerEntries.keys()) resolveMarker(p, markerEntries, id, new Set());
  // A parent cycle needs an entry whose parent comes later in the file (or is itself, through a
  // marker); files written in append order have none, and skip the reachability walk.
  let parentsLater = false;
  for (const node of p.nodes.values()) {
    attach(p, node);
    if (node.parent && node.parent.order >= node.order) parentsLater = true;
  }
  if (parentsLater) cutCycles(p);
  for (const node of p.nodes.values()) if (node.children.length > 1) sortChildren(node);
  if (!isSortedByOrder(p.roots)) p.roots.sort((a, b) => a.order - b.order);
  return p;
}

/** Shared by every childless node; `attach` replaces it before adding a child, never pushes to it. */
const NO_CHILDREN: TreeNode[] = [];

function newNode(summary: EntrySummary, order: number): TreeNode {
  return { summary, order, parent: null, children: NO_CHILDREN, orphan: false, time: undefined, searchText: undefined };
}

function isSortedByOrder(nodes: readonly TreeNode[]): boolean {
  for (let i = 1; i < nodes.length; i++) if (nodes[i - 1].order > nodes[i].order) return false;
  return true;
}

function resolveMarker(
  p: TreeProjection,
  markerEntries: Map<string, EntrySummary>,
  id: string,
  visiting: Set<string>,
): MarkerTarget {
  const known = p.markers.get(id);
  if (known) return known;
  const e = markerEntries.get(id);
  let target: MarkerTarget = { node: null, orphan: false };
  if (e && !isRootParent(e) && e.parentId !== null && !visiting.has(id)) {
    const parentId = e.parentId;
    const parentNode = p.nodes.get(parentId);
    if (parentNode) target = { node: parentNode, orphan: false };
    else if (markerEntries.has(parentId)) {
      visiting.add(id);
      target = resolveMarker(p, markerEntries, parentId, visiting);
    } else {
      target = { node: null, orphan: true };
      p.missingParentIds.add(parentId);
    }
  }
  p.markers.set(id, target);
  return target;
}

/** Links a node under its resolved parent (or among the roots). Children are sorted later or by the caller. */
function attach(p: TreeProjection, node: TreeNode): void {
  const e = node.summary;
  if (isRootParent(e) || e.parentId === null) {
    p.roots.push(node);
    return;
  }
  const parent = p.nodes.get(e.parentId) ?? p.markers.get(e.parentId)?.node;
  if (parent) {
    node.parent = parent;
    if (parent.children.length === 0) parent.children = [node];
    else parent.children.push(node);
    return;
  }
  const marker = p.markers.get(e.parentId);
  node.orphan = marker ? marker.orphan : true;
  if (!marker) p.missingParentIds.add(e.parentId);
  p.roots.push(node);
}

function sortChildren(node: TreeNode): void {
  const c = node.children;
  for (let i = 1; i < c.length; i++) {
    if (compareSiblings(c[i - 1], c[i]) > 0) {
      c.sort(compareSiblings);
      return;
    }
  }
}

/**
 * Entries whose parent chain loops never reach a root. Count what the roots reach; cut each loop
 * at its earliest entry (file order), which becomes an orphan root.
 */
function cutCycles(p: TreeProjection): void {
  if (countReachable(p.roots) === p.nodes.size) return;
  const seen = new Set<TreeNode>();
  markSubtrees(p.roots, seen);
  const stranded = [...p.nodes.values()].filter((n) => !seen.has(n)).sort((a, b) => a.order - b.order);
  for (const n of stranded) {
    if (seen.has(n)) continue;
    if (n.parent) n.parent.children.splice(n.parent.children.indexOf(n), 1);
    n.parent = null;
    n.orphan = true;
    p.roots.push(n);
    markSubtrees([n], seen);
  }
  p.roots.sort((a, b) => a.order - b.order);
}

function markSubtrees(from: readonly TreeNode[], seen: Set<TreeNode>): void {
  const stack: TreeNode[] = [...from];
  while (stack.length > 0) {
    const n = stack.pop() as TreeNode;
    if (seen.has(n)) continue;
    seen.add(n);
    for (const c of n.children) stack.push(c);
  }
}

function countReachable(roots: readonly TreeNode[]): number {
  let count = 0;
  const stack: TreeNode[] = [...roots];
  while (stack.length > 0) {
    const n = stack.pop() as TreeNode;
    count++;
    for (const c of n.children) stack.push(c);
  }
  return count;
}

/**
 * Appends entries (file order) to the projection in place. Returns `ok: false`, leaving the
 * projection untouched, when the batch cannot be applied incrementally (a duplicate id, or an
 * entry that is the missing parent of earlier orphans): the caller then rebuilds with `projectTree`.
 */
export function appendToProjection(p: TreeProjection, entries: readonly EntrySummary[]): AppendResult {
  const batch = new Set<string>();
  for (const e of entries) {
    if (p.nodes.has(e.id) || p.markers.has(e.id) || batch.has(e.id)) return { ok: false, reason: `duplicate entry id ${e.id}` };
    if (p.missingParentIds.has(e.id)) return { ok: false, reason: `entry ${e.id} is the missing parent of earlier entries` };
    batch.add(e.id);
  }
  const added: TreeNode[] = [];
  for (const e of entries) {
    const order = p.nextOrder++;
    if (e.checkoutMarker) {
      p.markers.set(e.id, markerTargetOf(p, e));
      continue;
    }
    const node = newNode(e, order);
    p.nodes.set(e.id, node);
    attach(p, node);
    // Appends usually carry the newest timestamp; an older one (a clock change) must still sort.
    if (node.parent) sortChildren(node.parent);
    added.push(node);
  }
  return { ok: true, added };
}

function markerTargetOf(p: TreeProjection, e: EntrySummary): MarkerTarget {
  if (isRootParent(e) || e.parentId === null) return { node: null, orphan: false };
  const node = p.nodes.get(e.parentId);
  if (node) return { node, orphan: false };
  const marker = p.markers.get(e.parentId);
  if (marker) return marker;
  p.missingParentIds.add(e.parentId);
  return { node: null, orphan: true };
}

/**
 * The node an id stands for: the entry's own node, or for a checkout marker the node it was
 * spliced into. `null` means a known marker at root position; `undefined` an unknown id.
 */
export function resolveEntryNode(p: TreeProjection, id: string): TreeNode | null | undefined {
  const node = p.nodes.get(id);
  if (node) return node;
  const marker = p.markers.get(id);
  return marker ? marker.node : undefined;
}

/** Walks from a node to its root and returns the path root first. */
export function pathToRoot(node: TreeNode | null): TreeNode[] {
  const path: TreeNode[] = [];
  for (let n = node; n; n = n.parent) path.push(n);
  return path.reverse();
}
