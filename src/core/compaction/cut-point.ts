/**
 * Where a compaction cuts a path: keep roughly `keepRecentTokens` of the newest messages,
 * summarize everything before. Pure; indices are into the path entries (root first).
 */
import type { SessionEntry } from "../session/types";
import { estimateTokens } from "./tokens";

/** Where to cut, and whether the cut falls inside a turn. */
export interface CutPointResult {
  /** Index of the first entry kept verbatim. */
  firstKeptEntryIndex: number;
  /** Index of the entry that started the turn the cut falls in, or -1 when the cut is at a turn start. */
  turnStartIndex: number;
  /** True when the kept part begins mid-turn: the turn's earlier part is summarized on its own. */
  isSplitTurn: boolean;
}

/** Message roles a kept part may begin with. Never a tool result: it must follow its call. */
const CUTTABLE_ROLES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "bashExecution",
  "custom",
  "branchSummary",
  "compactionSummary",
]);

/** Entry types that reach the model as user text, so they can both start a kept part and a turn. */
const USER_LIKE_ENTRY_TYPES: ReadonlySet<string> = new Set(["branch_summary", "custom_message"]);

/** Message roles that open a turn (a bash run is user-initiated). */
const TURN_OPENING_ROLES: ReadonlySet<string> = new Set(["user", "bashExecution"]);

function roleOf(entry: SessionEntry): string | undefined {
  if (entry.type !== "message") return undefined;
  const message: unknown = entry.message;
  if (typeof message !== "object" || message === null) return undefined;
  const role = (message as { role?: unknown }).role;
  return typeof role === "string" ? role : undefined;
}

function isCutPoint(entry: SessionEntry): boolean {
  if (USER_LIKE_ENTRY_TYPES.has(entry.type)) return true;
  const role = roleOf(entry);
  return role !== undefined && CUTTABLE_ROLES.has(role);
}

/**
 * The index of the entry that opens the turn containing `entryIndex`: the nearest user message,
 * bash run, custom message or branch summary at or before it, not before `startIndex`; -1 if none.
 */
export function findTurnStartIndex(entries: readonly SessionEntry[], entryIndex: number, startIndex: number): number {
  for (let i = entryIndex; i >= startIndex; i--) {
    const entry = entries[i];
    if (USER_LIKE_ENTRY_TYPES.has(entry.type)) return i;
    const role = roleOf(entry);
    if (role !== undefined && TURN_OPENING_ROLES.has(role)) return i;
  }
  return -1;
}

/**
 * Find where to cut `entries[startIndex, endIndex)` so that about `keepRecentTokens` of the
 * newest messages are kept.
 *
 * Walks back over `message` entries summing their estimates; at the first one that reaches the
 * budget, cuts at the nearest cut point at or after it (when there is none after it, the
 * earliest cut point). Then moves the cut back over directly preceding non-message entries
 * (model/thinking changes, labels, ...) up to a message or a compaction, so they stay with the
 * part they precede. With no cut point at all, keeps everything from `startIndex`.
 */
export function findCutPoint(
  entries: readonly SessionEntry[],
  startIndex: number,
  endIndex: number,
  keepRecentTokens: number,
): CutPointResult {
  const cutPoints: number[] = [];
  for (let i = startIndex; i < endIndex; i++) {
    if (isCutPoint(entries[i])) cutPoints.push(i);
  }
  if (cutPoints.length === 0) return { firstKeptEntryIndex: startIndex, turnStartIndex: -1, isSplitTurn: false };

  let cutIndex = cutPoints[0];
  let accumulated = 0;
  for (let i = endIndex - 1; i >= startIndex; i--) {
    const entry = entries[i];
    if (entry.type !== "message") continue;
    accumulated += estimateTokens(entry.message);
    if (accumulated >= keepRecentTokens) {
      const next = cutPoints.find((c) => c >= i);
      if (next !== undefined) cutIndex = next;
      break;
    }
  }

  while (cutIndex > startIndex) {
    const previous = entries[cutIndex - 1];
    if (previous.type === "compaction" || previous.type === "message") break;
    cutIndex--;
  }

  const cutAtUser = roleOf(entries[cutIndex]) === "user";
  const turnStartIndex = cutAtUser ? -1 : findTurnStartIndex(entries, cutIndex, startIndex);
  return { firstKeptEntryIndex: cutIndex, turnStartIndex, isSplitTurn: !cutAtUser && turnStartIndex !== -1 };
}
