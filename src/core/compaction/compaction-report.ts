import { formatCount, formatTokens } from "../tree/entry-view";

/** The few fields of a path entry the report reads. */
interface PathEntry {
  readonly id: string;
  readonly type: string;
}

/**
 * How many entries of the path a compaction stands in for: those before its first kept entry (the
 * whole path before it when that entry is not on the path), as context resolution and the
 * Conversation Tree count them. `path` runs from the root to the compaction entry itself.
 */
export function replacedEntryCount(path: readonly PathEntry[], firstKeptEntryId: string): number {
  const before = path.length > 0 && path[path.length - 1]!.type === "compaction" ? path.length - 1 : path.length;
  const kept = path.findIndex((e, i) => i < before && e.id === firstKeptEntryId);
  return kept >= 0 ? kept : before;
}

/**
 * What a finished compaction says: what it replaced, by entries and tokens; when the path was
 * all recent enough to keep, that it replaced nothing (the tokens before are then the context's
 * size, not what was summarized).
 */
export function compactionReport(replaced: number, tokensBefore: number): string {
  if (replaced === 0) return "Compacted: nothing was old enough to replace, every entry is kept as it is";
  return `Compacted ${formatCount(replaced)} ${replaced === 1 ? "entry" : "entries"} of history (${formatTokens(tokensBefore)} tokens of context before) into a summary`;
}
