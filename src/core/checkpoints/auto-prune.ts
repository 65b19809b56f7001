/**
 * Automatic pruning of a workspace's checkpoints: the snapshots no session file refers to any more
 * go, once a day (or at once when the store is over its cap). Referenced snapshots are never
 * removed: a store still over the cap after a prune says so, and the user decides (delete old
 * sessions, or raise the cap). Pure core: no vscode.
 */
import type { CheckpointStore } from "./checkpoint-store";

/** How often unreferenced snapshots are pruned when the store is under its cap. */
export const PRUNE_INTERVAL_MS = 24 * 60 * 60 * 1000;

export interface AutoPruneInput {
  /** The cap in bytes; 0 for none. */
  capBytes: number;
  /** When this store was last pruned (ms since the epoch), if ever. */
  lastPrunedAt: number | undefined;
  /** The snapshots the session files refer to; `complete` false when a file could not be read. */
  referenced(): Promise<{ ids: Set<string>; complete: boolean }>;
  /** More snapshots to keep (this window's undo point). */
  keep?: readonly string[];
  now?: () => number;
}

export type AutoPruneResult =
  | { pruned: false; reason: "not-due" | "unreadable-sessions"; bytes: number; overCap: boolean }
  | { pruned: true; removed: number; bytesBefore: number; bytesAfter: number; overCap: boolean };

/** Prunes the store's unreferenced snapshots when a prune is due or the store is over its cap. */
export async function autoPrune(store: CheckpointStore, input: AutoPruneInput): Promise<AutoPruneResult> {
  const now = (input.now ?? Date.now)();
  const bytes = await store.storageBytes();
  const over = (b: number): boolean => input.capBytes > 0 && b > input.capBytes;
  const due = input.lastPrunedAt === undefined || now - input.lastPrunedAt >= PRUNE_INTERVAL_MS;
  if (!due && !over(bytes)) return { pruned: false, reason: "not-due", bytes, overCap: false };
  const refs = await input.referenced();
  // A session file that could not be read may refer to any snapshot: nothing goes.
  if (!refs.complete) return { pruned: false, reason: "unreadable-sessions", bytes, overCap: over(bytes) };
  const result = await store.prune([...refs.ids, ...(input.keep ?? [])]);
  return { pruned: true, ...result, overCap: over(result.bytesAfter) };
}
