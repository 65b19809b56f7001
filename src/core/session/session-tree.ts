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

function timeOf(record: EntryRecord): number {
  return new Date(record.summary.timestamp).getTime();
}

/**
 * Builds the entry tree in Pi's shape: roots in file order (entries without a parent, entries
 * that are their own parent, and orphans whose parent is not in the file), children ordered by
 * timestamp (oldest first, file order among equals). Iterative, so deep chains cannot overflow
 * the stack.
 */
function buildTree<N extends { children: N[] }>(store: EntryStore, makeNode: (r: EntryRecord) => N): N[] {
  const nodes = new Map<string, { node: N; record: EntryRecord }>();
  for (const r of store.all()) nodes.set(r.id, { node: makeNode(r), record: r });
  const roots: N[] = [];
  for (const r of store.all()) {
    const own = nodes.get(r.id)!;
    const parent = r.parentId === null || r.parentId === r.id ? undefined : nodes.get(r.parentId);
    if (parent) parent.node.children.push(own.node);
    else roots.push(own.node);
  }
  // Only siblings need ordering; most nodes have a single child, so times are parsed on demand.
  const times = new Map<N, number>();
  const recordOf = new Map<N, EntryRecord>();
  for (const { node, record } of nodes.values()) recordOf.set(node, record);
  const time = (n: N): number => {
    let t = times.get(n);
    if (t === undefined) times.set(n, (t = timeOf(recordOf.get(n)!)));
    return t;
  };
  const stack = [...roots];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.children.length > 1) node.children.sort((a, b) => time(a) - time(b));
    for (const child of node.children) stack.push(child);
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
  });
}

export function buildSummaryTree(store: EntryStore): SummaryTreeNode[] {
  const labels = store.labels();
  return buildTree(store, (r) => ({ id: r.id, summary: r.summary, children: [], label: labels.get(r.id)?.label }));
}
