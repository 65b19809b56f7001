/**
 * When to compact on its own: the context has grown into the reserve the window keeps for the next
 * prompt and reply. Pure decisions over the current path; the agent session runs the compaction.
 */
import { calculateContextTokens, estimateContextTokens, shouldCompact, type CompactionSettings } from "../compaction/tokens";
import { toEpochMillis } from "../context/messages";
import type { AgentMessage, AssistantMessage, CompactionEntry, SessionEntry } from "../session/types";

/** The last compaction on a path, or undefined. */
export function latestCompaction(path: readonly SessionEntry[]): CompactionEntry | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (entry.type === "compaction") return entry;
  }
  return undefined;
}

/** The last assistant message of a context, or undefined. */
export function lastAssistantOf(messages: readonly AgentMessage[]): AssistantMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "assistant") return message;
  }
  return undefined;
}

export interface ThresholdInput {
  /** The reply that was just appended (or, before a prompt, the last one on the path). */
  lastAssistant: AssistantMessage;
  /** The current path, root first; only its latest compaction is read, so its part from there on will do. */
  path: readonly SessionEntry[];
  /** The resolved context of the path. */
  contextMessages: readonly AgentMessage[];
  contextWindow: number;
  settings: CompactionSettings;
}

/**
 * Whether the context crossed the threshold (window minus reserveTokens). A completed reply's
 * reported usage is the measure; after a failed or stopped reply, the last good usage plus an
 * estimate of what followed. Usage from before the latest compaction says nothing about the
 * context now, so it never triggers another one.
 */
export function crossesThreshold(input: ThresholdInput): boolean {
  if (!input.settings.enabled || input.contextWindow <= 0) return false;
  const compaction = latestCompaction(input.path);
  const compactedAt = compaction ? toEpochMillis(compaction.timestamp) : undefined;
  if (compactedAt !== undefined && input.lastAssistant.timestamp <= compactedAt) return false;
  let tokens: number;
  if (input.lastAssistant.stopReason === "error" || input.lastAssistant.stopReason === "aborted") {
    const estimate = estimateContextTokens(input.contextMessages);
    if (estimate.lastUsageIndex === null) return false;
    const source = input.contextMessages[estimate.lastUsageIndex]!;
    if (compactedAt !== undefined && source.timestamp <= compactedAt) return false;
    tokens = estimate.tokens;
  } else {
    tokens = calculateContextTokens(input.lastAssistant.usage);
  }
  return shouldCompact(tokens, input.contextWindow, input.settings);
}

/** How full the context window is, for a status display; `tokens` is null when unknown (just after a compaction). */
export interface ContextUsage {
  tokens: number | null;
  contextWindow: number;
  percent: number | null;
}

/**
 * The context use of a path against a window. Only the path's part from its latest compaction on
 * is read, so that part alone (or [] for a path without one) gives the same answer.
 */
export function measureContextUsage(path: readonly SessionEntry[], contextMessages: readonly AgentMessage[], contextWindow: number): ContextUsage | undefined {
  if (contextWindow <= 0) return undefined;
  const compaction = latestCompaction(path);
  if (compaction) {
    const index = path.lastIndexOf(compaction);
    let known = false;
    for (let i = path.length - 1; i > index; i--) {
      const entry = path[i]!;
      if (entry.type !== "message" || entry.message.role !== "assistant") continue;
      if (entry.message.stopReason === "aborted" || entry.message.stopReason === "error") continue;
      known = calculateContextTokens(entry.message.usage) > 0;
      break;
    }
    if (!known) return { tokens: null, contextWindow, percent: null };
  }
  const tokens = estimateContextTokens(withReportedUsageOnly(contextMessages)).tokens;
  return { tokens, contextWindow, percent: (tokens / contextWindow) * 100 };
}

/**
 * The messages with the usage of replies that report none (all zeros: a provider that sends no
 * usage, a reply stopped before it came) left out, so that the measure goes back to the last reply
 * that reported some and estimates the rest, instead of counting the context as empty.
 */
function withReportedUsageOnly(messages: readonly AgentMessage[]): readonly AgentMessage[] {
  if (!messages.some(zeroUsageReply)) return messages;
  return messages.map((m) => (zeroUsageReply(m) ? { ...m, usage: undefined } as unknown as AgentMessage : m));
}

function zeroUsageReply(m: AgentMessage): boolean {
  return m.role === "assistant" && m.usage !== undefined && calculateContextTokens(m.usage) === 0;
}
