/**
 * The requests a runtime sends to a model to write compaction and branch summaries, and the
 * final summary texts it records. Pure: the model call itself belongs to the agent runtime.
 */
import { convertToLlm } from "../context/convert-to-llm";
import type { AgentMessage } from "../session/types";
import { computeFileLists, type FileLists, type FileOperations, formatFileOperations } from "./file-operations";
import {
  BRANCH_SUMMARY_INSTRUCTIONS,
  BRANCH_SUMMARY_PREAMBLE,
  COMPACTION_INSTRUCTIONS,
  COMPACTION_UPDATE_INSTRUCTIONS,
  SPLIT_TURN_HEADING,
  SUMMARIZER_SYSTEM_PROMPT,
  TURN_PREFIX_INSTRUCTIONS,
  withFocus,
} from "./prompts";
import { serializeConversation } from "./serialize-conversation";

/** One summarization call: a system prompt, one user text, and a cap on the reply. */
export interface SummaryRequest {
  systemPrompt: string;
  prompt: string;
  maxTokens: number;
}

/** Reply caps: a compaction summary may use most of the reserve, a turn prefix half of it. */
const COMPACTION_REPLY_SHARE = 0.8;
const TURN_PREFIX_REPLY_SHARE = 0.5;
const BRANCH_SUMMARY_MAX_TOKENS = 2048;
/** Assumed when the model does not say how large its window is. */
const FALLBACK_CONTEXT_WINDOW = 128000;

function transcriptOf(messages: readonly AgentMessage[]): string {
  return `<conversation>\n${serializeConversation(convertToLlm(messages))}\n</conversation>\n\n`;
}

/** The request for the history part of a compaction (updating `previousSummary` when given). */
export function createCompactionSummaryRequest(
  messages: readonly AgentMessage[],
  options: { reserveTokens: number; previousSummary?: string; customInstructions?: string },
): SummaryRequest {
  const instructions = options.previousSummary ? COMPACTION_UPDATE_INSTRUCTIONS : COMPACTION_INSTRUCTIONS;
  let prompt = transcriptOf(messages);
  if (options.previousSummary) prompt += `<previous-summary>\n${options.previousSummary}\n</previous-summary>\n\n`;
  prompt += withFocus(instructions, options.customInstructions);
  return {
    systemPrompt: SUMMARIZER_SYSTEM_PROMPT,
    prompt,
    maxTokens: Math.floor(COMPACTION_REPLY_SHARE * options.reserveTokens),
  };
}

/** The request for the first part of a split turn. */
export function createTurnPrefixSummaryRequest(messages: readonly AgentMessage[], reserveTokens: number): SummaryRequest {
  return {
    systemPrompt: SUMMARIZER_SYSTEM_PROMPT,
    prompt: transcriptOf(messages) + TURN_PREFIX_INSTRUCTIONS,
    maxTokens: Math.floor(TURN_PREFIX_REPLY_SHARE * reserveTokens),
  };
}

/**
 * The request for a branch summary. `customInstructions` add a focus, or replace our
 * instructions entirely when `replaceInstructions` is set.
 */
export function createBranchSummaryRequest(
  messages: readonly AgentMessage[],
  options: { customInstructions?: string; replaceInstructions?: boolean } = {},
): SummaryRequest {
  const instructions =
    options.replaceInstructions && options.customInstructions
      ? options.customInstructions
      : withFocus(BRANCH_SUMMARY_INSTRUCTIONS, options.customInstructions);
  return {
    systemPrompt: SUMMARIZER_SYSTEM_PROMPT,
    prompt: transcriptOf(messages) + instructions,
    maxTokens: BRANCH_SUMMARY_MAX_TOKENS,
  };
}

/** How many tokens of branch messages to give the summarizer: the window minus the reserve. */
export function branchSummaryTokenBudget(contextWindow: number | undefined, reserveTokens: number): number {
  return (contextWindow || FALLBACK_CONTEXT_WINDOW) - reserveTokens;
}

/**
 * The text and details of a compaction entry: the history summary, the split turn's summary
 * under a heading when there is one, then the file lists.
 */
export function composeCompactionSummary(
  historySummary: string,
  turnPrefixSummary: string | undefined,
  fileOps: FileOperations,
): { summary: string; details: FileLists } {
  const details = computeFileLists(fileOps);
  let summary = historySummary;
  if (turnPrefixSummary !== undefined) summary += `\n\n---\n\n${SPLIT_TURN_HEADING}\n\n${turnPrefixSummary}`;
  summary += formatFileOperations(details.readFiles, details.modifiedFiles);
  return { summary, details };
}

/** The text and details of a branch_summary entry: preamble, the model's summary, the file lists. */
export function composeBranchSummary(modelSummary: string, fileOps: FileOperations): { summary: string; details: FileLists } {
  const details = computeFileLists(fileOps);
  const summary = BRANCH_SUMMARY_PREAMBLE + modelSummary + formatFileOperations(details.readFiles, details.modifiedFiles);
  return { summary, details };
}
