import type { EntrySummary } from "../tree/types";
import type { EntryStore } from "./entry-store";
import type { SessionEntry } from "./types";

/** A node of the reference-compatible tree: full entries. */
export interface SessionTreeNode {
  entry: SessionEntry;
  children: SessionTreeNode[];
  label?: string;
  labelTimestamp?: string;
}

/** A node of the light tree the UI draws. */
export interface SummaryTreeNode {
  id: string;
  summary: EntrySummary;
  children: SummaryTreeNode[];
  label?: string;
}

/**
 * The shape of the entry tree as positions in the store, with no objects per node: the roots
 * and, for each entry, its children, in Pi's order: roots in file order (entries without a
 * parent, entries that are their own parent, and orphans whose parent is not in the file),
 * children by timestamp (oldest first, file order among equals). A repeated id names its last
 * entry (as in Pi): every line with that id stands for that one node.
 */
export interface TreeShape {
  roots: Int32Array;
  /** Children of position i: childList[childStart[i] .. childStart[i + 1]). */
  childStart: Int32Array;
  childList: Int32Array;
  /** The position each line stands for (itself, or the last entry with its id). */
  nodeOf: Int32Array;
}

export function buildTreeShape(store: EntryStore, timeOf: (i: number) => number = (i) => new Date(store.timestampAt(i)).getTime()): TreeShape {
  const n = store.size;
  const nodeOf = new Int32Array(n);
  const parentOf = new Int32Array(n);
  const counts = new Int32Array(n + 1);
  let rootCount = 0;
  const duplicates = store.hasDuplicateIds();
  for (let i = 0; i < n; i++) nodeOf[i] = duplicates ? store.indexOf(store.idAt(i)) : i;
  for (let i = 0; i < n; i++) {
    const parentId = store.parentIdAt(i);
    const parent = parentId === null || parentId === store.idAt(i) ? -1 : store.parentIndexAt(i);
    parentOf[i] = parent;
    if (parent < 0) rootCount++;
    else counts[parent + 1]!++;
  }
  const childStart = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) childStart[i + 1] = childStart[i]! + counts[i + 1]!;
  const fill = childStart.slice(0, n);
  const childList = new Int32Array(childStart[n]!);
  const roots = new Int32Array(rootCount);
  let r = 0;
  for (let i = 0; i < n; i++) {
    const parent = parentOf[i]!;
    if (parent < 0) roots[r++] = nodeOf[i]!;
    else childList[fill[parent]!++] = nodeOf[i]!;
  }
  // Only siblings need ordering, and most nodes have one child: times are read for those few.
  for (let i = 0; i < n; i++) {
    const from = childStart[i]!;
    const to = childStart[i + 1]!;
    if (to - from < 2) continue;
    const keyed: { child: number; order: number; t: number }[] = [];
    for (let k = from; k < to; k++) keyed.push({ child: childList[k]!, order: k, t: timeOf(childList[k]!) });
    keyed.sort((a, b) => a.t - b.t || a.order - b.order);
    for (let k = from; k < to; k++) childList[k] = keyed[k - from]!.child;
  }
  return { roots, childStart, childList, nodeOf };
}

/** Builds node objects over a shape, iteratively (deep chains cannot overflow the stack). */
function materializeTree<N extends { children: N[] }>(store: EntryStore, shape: TreeShape, makeNode: (i: number) => N): N[] {
  const nodes: (N | undefined)[] = new Array(store.size);
  const nodeAt = (i: number): N => (nodes[i] ??= makeNode(i));
  for (let i = 0; i < store.size; i++) {
    if (shape.nodeOf[i] !== i) continue;
    const node = nodeAt(i);
    for (let k = shape.childStart[i]!; k < shape.childStart[i + 1]!; k++) node.children.push(nodeAt(shape.childList[k]!));
  }
  return Array.from(shape.roots, (i) => nodeAt(i));
}

export function buildEntryTree(store: EntryStore): SessionTreeNode[] {
  const labels = store.labels();
  const entries = new Map<number, SessionEntry>();
  const all = Array.from({ length: store.size }, (_, i) => i).filter((i) => store.indexOf(store.idAt(i)) === i);
  store.forEachEntry(all, (i, entry) => entries.set(i, entry));
  const shape = buildTreeShape(store, (i) => new Date(entries.get(i)!.timestamp).getTime());
  return materializeTree(store, shape, (i) => {
    const id = store.idAt(i);
    const l = labels.get(id);
    const node: SessionTreeNode = { entry: entries.get(i)!, children: [] };
    node.label = l?.label;
    node.labelTimestamp = l?.timestamp;
    return node;
  });
}

export function buildSummaryTree(store: EntryStore): SummaryTreeNode[] {
  const labels = store.labels();
  const shape = buildTreeShape(store);
  const all = Array.from({ length: store.size }, (_, i) => i);
  const summaries = store.summariesAt(all);
  return materializeTree(store, shape, (i) => ({ id: store.idAt(i), summary: summaries[i]!, children: [], label: labels.get(store.idAt(i))?.label }));
}
