/**
 * Everything a compaction needs before any model is called: where to cut, what to summarize,
 * the size of the context now, the previous summary to update, and the files touched. Pure;
 * the runtime sends the result to a model and appends the compaction entry.
 */
import { buildSessionContext } from "../context/build-context";
import { messageFromEntry } from "../context/messages";
import type { AgentMessage, SessionEntry } from "../session/types";
import { findCutPoint } from "./cut-point";
import { addRecordedFileLists, createFileOperations, extractFileOperations, type FileOperations } from "./file-operations";
import { type CompactionSettings, estimateContextTokens } from "./tokens";

/** The input of a compaction, as {@link prepareCompaction} works it out. */
export interface CompactionPreparation {
  /** The first entry kept verbatim; recorded in the compaction entry. */
  firstKeptEntryId: string;
  /** Messages to fold into the summary (before the turn the cut falls in, if it splits one). */
  messagesToSummarize: AgentMessage[];
  /** The start of a split turn, summarized on its own so the kept rest of the turn makes sense. */
  turnPrefixMessages: AgentMessage[];
  isSplitTurn: boolean;
  /** Context size before compacting; recorded in the compaction entry. */
  tokensBefore: number;
  /** The summary of the previous compaction on the path, to be updated rather than replaced. */
  previousSummary: string | undefined;
  /** Files read and changed in the summarized part (and carried over from the previous compaction). */
  fileOps: FileOperations;
  settings: CompactionSettings;
}

/** A path entry's message as compaction input: compaction entries are never re-summarized as messages. */
function summarizableMessageOf(entry: SessionEntry): AgentMessage | undefined {
  return entry.type === "compaction" ? undefined : messageFromEntry(entry);
}

function messagesBetween(pathEntries: readonly SessionEntry[], from: number, to: number): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let i = from; i < to; i++) {
    const message = summarizableMessageOf(pathEntries[i]);
    if (message) messages.push(message);
  }
  return messages;
}

function lastCompactionIndex(pathEntries: readonly SessionEntry[]): number {
  for (let i = pathEntries.length - 1; i >= 0; i--) {
    if (pathEntries[i].type === "compaction") return i;
  }
  return -1;
}

/**
 * Work out a compaction of the path ending at its last entry (`pathEntries`, root first, as
 * returned by a branch walk). After an earlier compaction, only what followed its kept point
 * is considered, and its summary becomes `previousSummary`.
 *
 * Returns undefined when there is nothing to do: the path already ends in a compaction, or
 * the first kept entry has no id (a session that was never migrated to ids).
 */
export function prepareCompaction(
  pathEntries: readonly SessionEntry[],
  settings: CompactionSettings,
): CompactionPreparation | undefined {
  if (pathEntries.length > 0 && pathEntries[pathEntries.length - 1].type === "compaction") return undefined;

  const previousIndex = lastCompactionIndex(pathEntries);
  const previous = previousIndex >= 0 ? pathEntries[previousIndex] : undefined;
  let boundaryStart = 0;
  let previousSummary: string | undefined;
  if (previous?.type === "compaction") {
    previousSummary = previous.summary;
    const keptIndex = pathEntries.findIndex((entry) => entry.id === previous.firstKeptEntryId);
    // A kept point off the path (or missing) leaves nothing of the old part: start after the compaction.
    boundaryStart = keptIndex >= 0 ? keptIndex : previousIndex + 1;
  }

  const tokensBefore = estimateContextTokens(buildSessionContext(pathEntries).messages).tokens;
  const cut = findCutPoint(pathEntries, boundaryStart, pathEntries.length, settings.keepRecentTokens);
  const firstKeptEntryId = pathEntries[cut.firstKeptEntryIndex]?.id;
  if (!firstKeptEntryId) return undefined;

  const historyEnd = cut.isSplitTurn ? cut.turnStartIndex : cut.firstKeptEntryIndex;
  const messagesToSummarize = messagesBetween(pathEntries, boundaryStart, historyEnd);
  const turnPrefixMessages = cut.isSplitTurn
    ? messagesBetween(pathEntries, cut.turnStartIndex, cut.firstKeptEntryIndex)
    : [];

  const fileOps = createFileOperations();
  if (previous?.type === "compaction" && !previous.fromHook) addRecordedFileLists(previous.details, fileOps);
  for (const message of messagesToSummarize) extractFileOperations(message, fileOps);
  for (const message of turnPrefixMessages) extractFileOperations(message, fileOps);

  return {
    firstKeptEntryId,
    messagesToSummarize,
    turnPrefixMessages,
    isSplitTurn: cut.isSplitTurn,
    tokensBefore,
    previousSummary,
    fileOps,
    settings,
  };
}
