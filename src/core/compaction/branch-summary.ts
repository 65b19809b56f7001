/**
 * The pure half of a branch summary: which entries the branch being left consists of, and the
 * messages (within a token budget) and files a summarizer is given. The runtime calls the model
 * and appends the `branch_summary` entry.
 */
import { messageFromEntry } from "../context/messages";
import type { AgentMessage, SessionEntry } from "../session/types";
import { addRecordedFileLists, createFileOperations, extractFileOperations, type FileOperations } from "./file-operations";
import { estimateTokens } from "./tokens";

/** What branch-summary collection reads of a session; the session manager implements it. */
export interface BranchSummarySource {
  /** Entries from the root down to `id` (root first); [] when `id` is unknown. */
  getBranch(id: string): SessionEntry[];
  getEntry(id: string): SessionEntry | undefined;
}

/** The branch being left, oldest entry first, and where it meets the target's path. */
export interface BranchSummaryEntries {
  entries: SessionEntry[];
  /** The deepest entry on both paths; null when they share none (or there is no old leaf). */
  commonAncestorId: string | null;
}

/** Branch entries ready for a summarizer. */
export interface PreparedBranchEntries {
  /** Oldest first; the newest that fit the budget. */
  messages: AgentMessage[];
  fileOps: FileOperations;
  /** Estimated tokens of `messages`. */
  totalTokens: number;
}

/**
 * The entries to summarize when moving from `oldLeafId` to `targetId`: from the old leaf up to,
 * not including, the deepest common ancestor. Compactions on the way are included (their
 * summaries are context too). No old leaf → nothing. A parent cycle ends the walk.
 */
export function collectEntriesForBranchSummary(
  session: BranchSummarySource,
  oldLeafId: string | null,
  targetId: string,
): BranchSummaryEntries {
  if (!oldLeafId) return { entries: [], commonAncestorId: null };

  const oldPath = new Set(session.getBranch(oldLeafId).map((entry) => entry.id));
  const targetPath = session.getBranch(targetId);
  let commonAncestorId: string | null = null;
  for (let i = targetPath.length - 1; i >= 0; i--) {
    if (oldPath.has(targetPath[i].id)) {
      commonAncestorId = targetPath[i].id;
      break;
    }
  }

  const entries: SessionEntry[] = [];
  const seen = new Set<string>();
  let current: string | null = oldLeafId;
  while (current && current !== commonAncestorId && !seen.has(current)) {
    seen.add(current);
    const entry = session.getEntry(current);
    if (!entry) break;
    entries.push(entry);
    current = entry.parentId;
  }
  return { entries: entries.reverse(), commonAncestorId };
}

/**
 * A branch entry's message for a summarizer. Tool results are left out (the call in the
 * assistant message says enough); summaries of both kinds are kept as context.
 */
function branchMessageOf(entry: SessionEntry): AgentMessage | undefined {
  const message = messageFromEntry(entry);
  return message?.role === "toolResult" ? undefined : message;
}

/**
 * Pick the messages a branch summary is made from, newest first until `tokenBudget` is spent
 * (0 = no limit), returned oldest first. A summary entry that overflows the budget is still
 * taken while less than 90% of the budget is used, as it condenses much more.
 *
 * File operations come from the lists recorded by every earlier branch summary made by the agent
 * (not by an extension), whatever the budget, and from the tool calls of each message looked at
 * (up to and including the first one that overflowed).
 */
export function prepareBranchEntries(entries: readonly SessionEntry[], tokenBudget = 0): PreparedBranchEntries {
  const fileOps = createFileOperations();
  for (const entry of entries) {
    if (entry.type === "branch_summary" && !entry.fromHook) addRecordedFileLists(entry.details, fileOps);
  }

  const messages: AgentMessage[] = [];
  let totalTokens = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    const message = branchMessageOf(entry);
    if (!message) continue;
    extractFileOperations(message, fileOps);
    const tokens = estimateTokens(message);
    if (tokenBudget > 0 && totalTokens + tokens > tokenBudget) {
      const isSummary = entry.type === "compaction" || entry.type === "branch_summary";
      if (isSummary && totalTokens < tokenBudget * 0.9) {
        messages.push(message);
        totalTokens += tokens;
      }
      break;
    }
    messages.push(message);
    totalTokens += tokens;
  }
  return { messages: messages.reverse(), fileOps, totalTokens };
}
