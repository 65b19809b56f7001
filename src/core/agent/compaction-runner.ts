/**
 * One compaction, start to end: prepare it with the core's cut point, let extensions cancel or
 * supply it, have the model write the structured summary (updating the previous one), and append
 * the compaction entry. Nothing is written unless a complete summary is in hand.
 */
import { prepareCompaction, type CompactionPreparation } from "../compaction/prepare-compaction";
import { NO_EARLIER_HISTORY } from "../compaction/prompts";
import {
  composeCompactionSummary,
  createCompactionSummaryRequest,
  createTurnPrefixSummaryRequest,
} from "../compaction/summary-requests";
import type { CompactionSettings } from "../compaction/tokens";
import type { SessionManager } from "../session/session-manager";
import type { CompactionEntry, ThinkingLevel } from "../session/types";
import { AgentError } from "./errors";
import type { CompactionPhase, CompactionResult } from "./events";
import type { AgentSessionHooks, SuppliedCompaction } from "./hooks";
import type { ModelInfo, ModelProvider } from "./providers/provider";
import { requestSummary, type SummaryOutcome } from "./summarizer";

export interface CompactionRunInput {
  sessionManager: SessionManager;
  provider: ModelProvider;
  model: ModelInfo;
  thinkingLevel: ThinkingLevel;
  settings: CompactionSettings;
  customInstructions?: string;
  signal: AbortSignal;
  hooks?: AgentSessionHooks;
  onProgress(phase: CompactionPhase): void;
}

export type CompactionRunOutcome = { kind: "compacted"; result: CompactionResult } | { kind: "cancelled"; by: "user" | "extension" };

/** Runs a compaction of the current path. Throws AgentError when there is nothing to do or the model fails. */
export async function runCompaction(input: CompactionRunInput): Promise<CompactionRunOutcome> {
  const sm = input.sessionManager;
  input.onProgress("preparing");
  const branchEntries = sm.getBranch();
  const preparation = prepareCompaction(branchEntries, input.settings);
  if (!preparation) {
    if (branchEntries[branchEntries.length - 1]?.type === "compaction") {
      throw new AgentError("already-compacted", "The session was just compacted: there is nothing new to compact.");
    }
    throw new AgentError("nothing-to-compact", "There is not enough history to compact yet.");
  }

  let supplied: SuppliedCompaction | undefined;
  if (input.hooks?.beforeCompact) {
    input.onProgress("extensions");
    const answer = await input.hooks.beforeCompact({
      type: "session_before_compact",
      preparation,
      branchEntries,
      customInstructions: input.customInstructions,
      signal: input.signal,
    });
    if (answer?.cancel) return { kind: "cancelled", by: "extension" };
    if (answer?.compaction) supplied = validateSupplied(answer.compaction, sm);
  }
  if (input.signal.aborted) return { kind: "cancelled", by: "user" };

  let written: SuppliedCompaction;
  if (supplied) {
    written = supplied;
  } else {
    input.onProgress("summarizing");
    const summary = await summarize(preparation, input);
    if (summary === undefined) return { kind: "cancelled", by: "user" };
    written = { ...summary, firstKeptEntryId: preparation.firstKeptEntryId, tokensBefore: preparation.tokensBefore };
  }
  if (input.signal.aborted) return { kind: "cancelled", by: "user" };

  input.onProgress("writing");
  const fromExtension = supplied !== undefined;
  const entryId = sm.appendCompaction(written.summary, written.firstKeptEntryId, written.tokensBefore, written.details, fromExtension);
  const entry = sm.getEntry(entryId) as CompactionEntry;
  await input.hooks?.afterCompact?.({ type: "session_compact", compactionEntry: entry, fromExtension });
  const result: CompactionResult = {
    entryId,
    summary: written.summary,
    firstKeptEntryId: written.firstKeptEntryId,
    tokensBefore: written.tokensBefore,
    fromExtension,
  };
  if (written.details !== undefined) result.details = written.details;
  return { kind: "compacted", result };
}

/** The history summary (and the split turn's, in parallel), composed with the file lists; undefined when aborted. */
async function summarize(prep: CompactionPreparation, input: CompactionRunInput): Promise<{ summary: string; details: unknown } | undefined> {
  const ask = (request: Parameters<typeof requestSummary>[2]): Promise<SummaryOutcome> =>
    requestSummary(input.provider, input.model, request, input.signal, input.model.supportsThinking ? input.thinkingLevel : undefined);
  const reserveTokens = prep.settings.reserveTokens;
  const historyRequest = createCompactionSummaryRequest(prep.messagesToSummarize, {
    reserveTokens,
    previousSummary: prep.previousSummary,
    customInstructions: input.customInstructions,
  });
  const splitTurn = prep.isSplitTurn && prep.turnPrefixMessages.length > 0;
  const [history, turnPrefix] = await Promise.all([
    splitTurn && prep.messagesToSummarize.length === 0 ? Promise.resolve<SummaryOutcome>({ kind: "ok", text: NO_EARLIER_HISTORY }) : ask(historyRequest),
    splitTurn ? ask(createTurnPrefixSummaryRequest(prep.turnPrefixMessages, reserveTokens)) : Promise.resolve(undefined),
  ]);
  for (const outcome of [history, turnPrefix]) {
    if (outcome?.kind === "aborted") return undefined;
    if (outcome?.kind === "error") throw new AgentError("summary-failed", `The model could not write the compaction summary: ${outcome.message}`);
  }
  const historyText = history.kind === "ok" ? history.text : "";
  const turnText = turnPrefix?.kind === "ok" ? turnPrefix.text : undefined;
  return composeCompactionSummary(historyText, turnText, prep.fileOps);
}

/** An extension's compaction must name an entry of this session; anything else is refused before writing. */
function validateSupplied(compaction: SuppliedCompaction, sm: SessionManager): SuppliedCompaction {
  if (typeof compaction.summary !== "string" || compaction.summary === "") {
    throw new AgentError("summary-failed", "An extension supplied a compaction without a summary.");
  }
  if (typeof compaction.firstKeptEntryId !== "string" || !sm.hasEntry(compaction.firstKeptEntryId)) {
    throw new AgentError("unknown-entry", `An extension supplied a compaction whose first kept entry (${String(compaction.firstKeptEntryId)}) is not in this session.`);
  }
  if (typeof compaction.tokensBefore !== "number" || !Number.isFinite(compaction.tokensBefore)) {
    throw new AgentError("summary-failed", "An extension supplied a compaction without a valid tokensBefore.");
  }
  return compaction;
}
