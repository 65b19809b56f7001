/**
 * The session file format (Pi coding agent, session format version 3).
 * These shapes are the compatibility contract; see shared/spec/session-format.md.
 * Pure types: no runtime code, no Node or VS Code imports (the webview uses them too).
 */

export const CURRENT_SESSION_VERSION = 3;

// ---------------------------------------------------------------------------
// Message content blocks
// ---------------------------------------------------------------------------

export interface TextContent {
  type: "text";
  text: string;
  textSignature?: string;
}

export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  thinkingSignature?: string;
  redacted?: boolean;
}

export interface ImageContent {
  type: "image";
  /** base64 */
  data: string;
  mimeType: string;
}

export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  thoughtSignature?: string;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

// ---------------------------------------------------------------------------
// Messages (what a `message` entry holds, and what context resolution yields)
// ---------------------------------------------------------------------------

export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  /** epoch milliseconds */
  timestamp: number;
}

export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  api: string;
  provider: string;
  model: string;
  responseModel?: string;
  responseId?: string;
  usage: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  timestamp: number;
}

export interface ToolResultMessage {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details?: unknown;
  isError: boolean;
  timestamp: number;
}

/** Made by `!cmd` (and `!!cmd`, which sets excludeFromContext). */
export interface BashExecutionMessage {
  role: "bashExecution";
  command: string;
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
  timestamp: number;
  excludeFromContext?: boolean;
}

/** Injected by extensions; reaches the model as a user message. */
export interface CustomMessage {
  role: "custom";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display: boolean;
  details?: unknown;
  timestamp: number;
}

/** Built from a branch_summary entry, never stored as a message. */
export interface BranchSummaryMessage {
  role: "branchSummary";
  summary: string;
  fromId: string;
  timestamp: number;
}

/** Built from a compaction entry, never stored as a message. */
export interface CompactionSummaryMessage {
  role: "compactionSummary";
  summary: string;
  tokensBefore: number;
  timestamp: number;
}

/** The messages a model understands directly. */
export type LlmMessage = UserMessage | AssistantMessage | ToolResultMessage;

/** Every message role the agent deals with. */
export type AgentMessage =
  | LlmMessage
  | BashExecutionMessage
  | CustomMessage
  | BranchSummaryMessage
  | CompactionSummaryMessage;

/** What may be stored in a `message` entry. */
export type StoredMessage = LlmMessage | BashExecutionMessage | CustomMessage;

// ---------------------------------------------------------------------------
// File lines
// ---------------------------------------------------------------------------

export interface SessionHeader {
  type: "session";
  /** Missing means version 1. */
  version?: number;
  id: string;
  timestamp: string;
  cwd: string;
  /** Path of the session file this one was forked from. */
  parentSession?: string;
}

export interface EntryBase {
  type: string;
  /** 8 lowercase hex characters (a full UUID after repeated collisions). */
  id: string;
  /** null for a root. */
  parentId: string | null;
  /** ISO-8601 with milliseconds. */
  timestamp: string;
}

export interface MessageEntry extends EntryBase {
  type: "message";
  message: StoredMessage;
}

export interface ThinkingLevelChangeEntry extends EntryBase {
  type: "thinking_level_change";
  thinkingLevel: string;
}

export interface ModelChangeEntry extends EntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
}

export interface CompactionDetails {
  readFiles: string[];
  modifiedFiles: string[];
}

export interface CompactionEntry extends EntryBase {
  type: "compaction";
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: unknown;
  fromHook?: boolean;
}

export interface BranchSummaryEntry extends EntryBase {
  type: "branch_summary";
  /** The position the branch restarted from, or "root". */
  fromId: string;
  summary: string;
  details?: unknown;
  fromHook?: boolean;
}

export interface CustomEntry extends EntryBase {
  type: "custom";
  customType: string;
  data?: unknown;
}

export interface CustomMessageEntry extends EntryBase {
  type: "custom_message";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display: boolean;
  details?: unknown;
}

export interface LabelEntry extends EntryBase {
  type: "label";
  targetId: string;
  /** Absent (or empty) clears the label. */
  label?: string;
}

export interface SessionInfoEntry extends EntryBase {
  type: "session_info";
  /** Empty clears the name. */
  name?: string;
}

/** An entry type this version does not know (from a newer Pi). Kept and passed through untouched. */
export interface UnknownEntry extends EntryBase {
  [key: string]: unknown;
}

export type KnownEntry =
  | MessageEntry
  | ThinkingLevelChangeEntry
  | ModelChangeEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | LabelEntry
  | SessionInfoEntry;

export type SessionEntry = KnownEntry;

export const KNOWN_ENTRY_TYPES: ReadonlySet<string> = new Set([
  "message",
  "thinking_level_change",
  "model_change",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "label",
  "session_info",
]);

export interface ModelRef {
  provider: string;
  modelId: string;
}

/** The resolved view of one leaf: what the model sees. */
export interface SessionContext {
  messages: AgentMessage[];
  thinkingLevel: string;
  model: ModelRef | null;
}

/**
 * Arbor's checkout marker: a `custom` entry appended as a child of the checked-out entry, so that
 * the last entry in file order (what Pi 0.73.1 treats as the leaf on load) resolves to the same
 * context as the checked-out entry. Custom entries never reach the model.
 */
export const CHECKOUT_CUSTOM_TYPE = "arbor.checkout";
/** The `customType` of Arbor's file checkpoint entries (see core/checkpoints/session-checkpoints). */
export const CHECKPOINT_CUSTOM_TYPE = "arbor.checkpoint";
