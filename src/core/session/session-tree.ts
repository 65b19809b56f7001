import type { EntrySummary } from "../tree/types";
import type { EntryRecord, EntryStore } from "./entry-store";
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
 * Builds the entry tree in Pi's shape: roots in file order (entries without a parent, entries
 * that are their own parent, and orphans whose parent is not in the file), children ordered by
 * timestamp (oldest first, file order among equals). Iterative, so deep chains cannot overflow
 * the stack.
 */
function buildTree<N extends { children: N[] }>(store: EntryStore, makeNode: (r: EntryRecord) => N, timestampOf: (n: N) => string): N[] {
  const records = store.all();
  const nodes: N[] = new Array(records.length);
  // A repeated id names its last entry (as in Pi), so both lines attach that one node.
  const indexOf = new Map<string, number>();
  for (let i = 0; i < records.length; i++) {
    nodes[i] = makeNode(records[i]!);
    indexOf.set(records[i]!.id, i);
  }
  const roots: N[] = [];
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const own = nodes[indexOf.get(r.id)!]!;
    const parent = r.parentId === null || r.parentId === r.id ? undefined : indexOf.get(r.parentId);
    if (parent !== undefined) nodes[parent]!.children.push(own);
    else roots.push(own);
  }
  // Only siblings need ordering, and most nodes have one child: times are read for those few.
  const time = (n: N): number => new Date(timestampOf(n)).getTime();
  for (const node of nodes) {
    if (node.children.length > 1) {
      const keyed = node.children.map((child, order) => ({ child, order, t: time(child) }));
      keyed.sort((a, b) => a.t - b.t || a.order - b.order);
      node.children = keyed.map((k) => k.child);
    }
  }
  return roots;
}

export function buildEntryTree(store: EntryStore): SessionTreeNode[] {
  const labels = store.labels();
  return buildTree(store, (r) => {
    const l = labels.get(r.id);
    const node: SessionTreeNode = { entry: store.materialize(r), children: [] };
    node.label = l?.label;
    node.labelTimestamp = l?.timestamp;
    return node;
  }, (n) => n.entry.timestamp);
}

export function buildSummaryTree(store: EntryStore): SummaryTreeNode[] {
  const labels = store.labels();
  return buildTree(store, (r) => ({ id: r.id, summary: r.summary, children: [], label: labels.get(r.id)?.label }), (n) => n.summary.timestamp);
}
