import { pathToRoot, type TreeProjection } from "./projection";

/** What a compaction replaced on its own path. */
export interface CompactionSpan {
  readonly compactionId: string;
  readonly tokensBefore: number | undefined;
  readonly firstKeptEntryId: string | undefined;
  /** Whether `firstKeptEntryId` lies on the path before the compaction; when not, nothing was kept. */
  readonly keptFound: boolean;
  /** Ids of the path entries before the compaction that the summary stands in for, root first. */
  readonly replacedIds: readonly string[];
}

/**
 * The span a compaction replaced: the entries on its path (root to the compaction) that come before
 * `firstKeptEntryId`. Context resolution keeps the path entries from `firstKeptEntryId` on, or none
 * when that id is not on the path, in which case the whole path before the compaction was replaced.
 * Returns undefined when the id is not a compaction of this tree.
 */
export function compactionSpan(p: TreeProjection, compactionId: string): CompactionSpan | undefined {
  const node = p.nodes.get(compactionId);
  if (!node || node.summary.type !== "compaction") return undefined;
  const before = pathToRoot(node.parent);
  const firstKeptEntryId = node.summary.firstKeptEntryId;
  const kept = firstKeptEntryId === undefined ? -1 : before.findIndex((n) => n.summary.id === firstKeptEntryId);
  const replaced = kept >= 0 ? before.slice(0, kept) : before;
  return {
    compactionId,
    tokensBefore: node.summary.tokensBefore,
    firstKeptEntryId,
    keptFound: kept >= 0,
    replacedIds: replaced.map((n) => n.summary.id),
  };
}
