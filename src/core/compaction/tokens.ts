/**
 * Token arithmetic for compaction: a cheap estimate of a message's size, the context size from
 * the provider's reported usage, and the auto-compaction trigger. Pure.
 *
 * The estimate must agree with Pi's, since it decides where a compaction cuts and two tools
 * working on one session should cut at the same place.
 */
import type { AgentMessage, AssistantMessage, SessionEntry, Usage } from "../session/types";

/** Compaction settings (Pi's names and meaning). */
export interface CompactionSettings {
  enabled: boolean;
  /** Room kept free in the context window for the prompt and the reply. */
  reserveTokens: number;
  /** Roughly how many tokens of recent messages a compaction keeps verbatim. */
  keepRecentTokens: number;
}

export const DEFAULT_COMPACTION_SETTINGS: Readonly<CompactionSettings> = Object.freeze({
  enabled: true,
  reserveTokens: 16384,
  keepRecentTokens: 20000,
});

/** An image counts as this many characters (1200 tokens). */
const IMAGE_CHARS = 4800;
const CHARS_PER_TOKEN = 4;

/** How the context size of a message list was arrived at. */
export interface ContextUsageEstimate {
  /** usageTokens + trailingTokens */
  tokens: number;
  /** From the last assistant message with valid usage; 0 when there is none. */
  usageTokens: number;
  /** Estimated tokens of the messages after that assistant message (all messages when there is none). */
  trailingTokens: number;
  /** Index of that assistant message, or null. */
  lastUsageIndex: number | null;
}

/**
 * Estimated tokens of one message: ceil(characters / 4), over its text, thinking, tool-call
 * names and JSON arguments, bash command and output, or summary. Images count 4800 characters in
 * tool results and custom messages; like Pi, images in user messages are not counted.
 * Unknown roles count 0.
 */
export function estimateTokens(message: AgentMessage): number {
  return Math.ceil(countChars(message) / CHARS_PER_TOKEN);
}

function countChars(message: AgentMessage): number {
  if (typeof message !== "object" || message === null) return 0;
  switch (message.role) {
    case "user":
      return contentChars(message.content, false);
    case "assistant":
      return assistantChars(message);
    case "custom":
    case "toolResult":
      return contentChars(message.content, true);
    case "bashExecution":
      return lengthOf(message.command) + lengthOf(message.output);
    case "branchSummary":
    case "compactionSummary":
      return lengthOf(message.summary);
    default:
      return 0;
  }
}

function contentChars(content: unknown, countImages: boolean): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const block of content as { type?: unknown; text?: unknown }[]) {
    if (block?.type === "text" && block.text) chars += lengthOf(block.text);
    else if (countImages && block?.type === "image") chars += IMAGE_CHARS;
  }
  return chars;
}

function assistantChars(message: AssistantMessage): number {
  let chars = 0;
  for (const block of Array.isArray(message.content) ? message.content : []) {
    if (block?.type === "text") chars += lengthOf(block.text);
    else if (block?.type === "thinking") chars += lengthOf(block.thinking);
    else if (block?.type === "toolCall") chars += lengthOf(block.name) + lengthOf(JSON.stringify(block.arguments));
  }
  return chars;
}

/** Length of a string; 0 for anything else (malformed input must not throw). */
function lengthOf(value: unknown): number {
  return typeof value === "string" ? value.length : 0;
}

/** Context tokens from a provider's usage: totalTokens when reported, else the sum of its parts. */
export function calculateContextTokens(usage: Usage): number {
  return usage.totalTokens || usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

/** The usage of an assistant message that completed (aborted and errored replies carry none worth trusting). */
function validUsageOf(message: AgentMessage): Usage | undefined {
  if (message.role !== "assistant") return undefined;
  if (message.stopReason === "aborted" || message.stopReason === "error") return undefined;
  return message.usage || undefined;
}

/** The usage of the last completed assistant message among entries, or undefined. */
export function getLastAssistantUsage(entries: readonly SessionEntry[]): Usage | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry.type !== "message") continue;
    const usage = validUsageOf(entry.message);
    if (usage) return usage;
  }
  return undefined;
}

/**
 * The context size of messages: the last completed assistant reply's reported usage plus an
 * estimate of everything after it, or an estimate of everything when no reply reported usage.
 */
export function estimateContextTokens(messages: readonly AgentMessage[]): ContextUsageEstimate {
  let lastUsageIndex = -1;
  let usage: Usage | undefined;
  for (let i = messages.length - 1; i >= 0 && !usage; i--) {
    usage = validUsageOf(messages[i]);
    if (usage) lastUsageIndex = i;
  }
  let trailingTokens = 0;
  for (let i = lastUsageIndex + 1; i < messages.length; i++) trailingTokens += estimateTokens(messages[i]);
  if (!usage) return { tokens: trailingTokens, usageTokens: 0, trailingTokens, lastUsageIndex: null };
  const usageTokens = calculateContextTokens(usage);
  return { tokens: usageTokens + trailingTokens, usageTokens, trailingTokens, lastUsageIndex };
}

/** Whether the context has grown into the reserved part of the window (and compaction is on). */
export function shouldCompact(contextTokens: number, contextWindow: number, settings: CompactionSettings): boolean {
  return settings.enabled && contextTokens > contextWindow - settings.reserveTokens;
}
