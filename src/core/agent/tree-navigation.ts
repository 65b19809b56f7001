/**
 * Moving to another point of the session tree, with Pi's semantics: a user (or custom) message
 * target puts the leaf on its parent and hands its text back for editing; an optional summary of
 * the branch being left is attached under the new position. The summary is written only once it
 * is complete, and never on error or cancel.
 */
import { editableText } from "../session/entry-text";
import { prepareBranchEntries } from "../compaction/branch-summary";
import { EMPTY_BRANCH_SUMMARY } from "../compaction/prompts";
import { branchSummaryTokenBudget, composeBranchSummary, createBranchSummaryRequest } from "../compaction/summary-requests";
import type { SessionManager } from "../session/session-manager";
import type { BranchSummaryEntry, SessionEntry } from "../session/types";
import { AgentError, NO_MODEL_MESSAGE, readOnlyMessage } from "./errors";
import type { AgentSessionEvent } from "./events";
import type { AgentSessionHooks, TreePreparation } from "./hooks";
import type { ModelInfo, ModelProvider } from "./providers/provider";
import { requestSummary } from "./summarizer";

/** Options of {@link navigateTree}. */
export interface NavigateTreeOptions {
  /** Summarize the branch being left (through the model, unless an extension supplies one). */
  summarize?: boolean;
  /** Extra focus for the summary. */
  customInstructions?: string;
  /** Use `customInstructions` instead of Arbor's summary instructions. */
  replaceInstructions?: boolean;
  /** A label for the summary entry (or, without a summary, for the target). */
  label?: string;
  /** Cancels the summary (nothing is written then). */
  signal?: AbortSignal;
  /**
   * The workspace's files go back to the target's too (the user chose "Conversation and files"):
   * `restore` runs once the leaf has moved, before session_tree, and says whether it restored them.
   */
  files?: { restore(): Promise<boolean> };
}

export interface NavigateTreeResult {
  cancelled: boolean;
  /** The user stopped the summary. */
  aborted?: boolean;
  /** The leaf after the move. */
  leafId: string | null;
  /** The target's text, to put back in the input box (user and custom message targets). */
  editText?: string;
  summaryEntry?: BranchSummaryEntry;
}

export interface NavigationInput {
  sessionManager: SessionManager;
  provider?: ModelProvider;
  model?: ModelInfo;
  reserveTokens: number;
  hooks?: AgentSessionHooks;
  signal: AbortSignal;
  emit(event: AgentSessionEvent): void;
}

/** Where the leaf goes for a target, and the text offered for editing. */
function landingOf(target: SessionEntry): { leafId: string | null; editText?: string } {
  if (target.type === "message" && target.message.role === "user") return { leafId: target.parentId, editText: editableText(target.message.content) };
  if (target.type === "custom_message") return { leafId: target.parentId, editText: editableText(target.content) };
  return { leafId: target.id };
}

/** Navigates to `targetId`; see the module note. */
export async function navigateTree(input: NavigationInput, targetId: string, options: NavigateTreeOptions = {}): Promise<NavigateTreeResult> {
  const sm = input.sessionManager;
  const oldLeafId = sm.getLeafId();
  if (targetId === oldLeafId) return { cancelled: false, leafId: oldLeafId };
  const target = sm.getEntry(targetId);
  if (!target) throw new AgentError("unknown-entry", `There is no entry ${targetId} in this session.`);
  if (options.summarize && (!input.model || !input.provider)) throw new AgentError("no-model", NO_MODEL_MESSAGE);
  if ((options.summarize || options.label) && sm.isReadOnly()) throw new AgentError("read-only", readOnlyMessage(sm.getReadOnlyReason()));

  // Where the paths meet is found from ids alone; the entries being left are read only when a
  // summary is made or an extension looks at them (a plain checkout on a long session reads none).
  const left = sm.getBranchLeft(oldLeafId, targetId);
  const commonAncestorId = left.commonAncestorId;
  let entries: SessionEntry[] | undefined;
  const entriesLeft = (): SessionEntry[] => (entries ??= left.ids.map((id) => sm.getEntry(id)!));
  let { customInstructions, replaceInstructions, label } = options;
  let summary: { text: string; details?: unknown; fromExtension: boolean } | undefined;

  if (input.hooks?.beforeTree) {
    // A plain property to handlers, whose array is read from the session when one first looks at
    // it: changing that array changes what is summarized, setting another one does not (as before).
    let replaced: SessionEntry[] | undefined;
    const preparation: TreePreparation = {
      targetId,
      oldLeafId,
      commonAncestorId,
      get entriesToSummarize() {
        return replaced ?? entriesLeft();
      },
      set entriesToSummarize(value: SessionEntry[]) {
        replaced = value;
      },
      userWantsSummary: options.summarize === true,
      customInstructions,
      replaceInstructions,
      label,
      restoreFiles: options.files !== undefined,
    };
    const answer = await input.hooks.beforeTree({ type: "session_before_tree", preparation, signal: input.signal });
    if (answer?.cancel) return { cancelled: true, leafId: oldLeafId };
    if (answer?.summary && options.summarize) summary = { text: answer.summary.summary, details: answer.summary.details, fromExtension: true };
    if (answer?.customInstructions !== undefined) customInstructions = answer.customInstructions;
    if (answer?.replaceInstructions !== undefined) replaceInstructions = answer.replaceInstructions;
    if (answer?.label !== undefined) label = answer.label;
  }

  if (options.summarize && entriesLeft().length > 0 && !summary) {
    input.emit({ type: "branch_summary_start", targetId });
    const made = await summarizeBranch(input, entriesLeft(), customInstructions, replaceInstructions);
    if (made.kind !== "ok") {
      input.emit({ type: "branch_summary_end", targetId, cancelled: made.kind === "aborted", errorMessage: made.kind === "error" ? made.message : undefined });
      if (made.kind === "aborted") return { cancelled: true, aborted: true, leafId: oldLeafId };
      throw new AgentError("summary-failed", `The model could not write the branch summary: ${made.message}`);
    }
    summary = { text: made.summary, details: made.details, fromExtension: false };
  }
  if (input.signal.aborted) return { cancelled: true, aborted: true, leafId: oldLeafId };

  const landing = landingOf(target);
  const newLeafId = landing.leafId !== null && sm.hasEntry(landing.leafId) ? landing.leafId : null;
  let summaryEntry: BranchSummaryEntry | undefined;
  if (summary) {
    const id = sm.branchWithSummary(newLeafId, summary.text, summary.details, summary.fromExtension);
    summaryEntry = sm.getEntry(id) as BranchSummaryEntry;
    if (label) sm.appendLabelChange(id, label);
    input.emit({ type: "branch_summary_end", targetId, cancelled: false, summaryEntryId: id });
  } else if (label) {
    // The label entry lands under the new position, which also makes that position survive a reload.
    if (newLeafId === null) sm.resetLeaf();
    else sm.branch(newLeafId);
    sm.appendLabelChange(targetId, label);
  } else {
    sm.checkout(targetId);
  }

  // The files follow the conversation before extensions hear of the move.
  const filesRestored = options.files ? await options.files.restore().catch(() => false) : false;
  await input.hooks?.afterTree?.({
    type: "session_tree",
    newLeafId: sm.getLeafId(),
    oldLeafId,
    summaryEntry,
    fromExtension: summary ? summary.fromExtension : undefined,
    filesRestored,
  });
  const result: NavigateTreeResult = { cancelled: false, leafId: sm.getLeafId() };
  if (landing.editText !== undefined) result.editText = landing.editText;
  if (summaryEntry) result.summaryEntry = summaryEntry;
  return result;
}

type BranchSummaryOutcome = { kind: "ok"; summary: string; details?: unknown } | { kind: "aborted" } | { kind: "error"; message: string };

async function summarizeBranch(
  input: NavigationInput,
  entries: SessionEntry[],
  customInstructions: string | undefined,
  replaceInstructions: boolean | undefined,
): Promise<BranchSummaryOutcome> {
  const model = input.model!;
  const budget = branchSummaryTokenBudget(model.contextWindow, input.reserveTokens);
  const { messages, fileOps } = prepareBranchEntries(entries, budget);
  if (messages.length === 0) return { kind: "ok", summary: EMPTY_BRANCH_SUMMARY };
  const request = createBranchSummaryRequest(messages, { customInstructions, replaceInstructions });
  const outcome = await requestSummary(input.provider!, model, request, input.signal);
  if (outcome.kind !== "ok") return outcome;
  const { summary, details } = composeBranchSummary(outcome.text, fileOps);
  return { kind: "ok", summary, details };
}
