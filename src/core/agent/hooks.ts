/**
 * The points where session extensions take part in tree navigation and compaction. The agent
 * session calls these hooks; the runtime implements them by emitting the extension events
 * (`session_before_tree`, `session_tree`, `session_before_compact`, `session_compact`).
 */
import type { CompactionPreparation } from "../compaction/prepare-compaction";
import type { AgentMessage, BranchSummaryEntry, CompactionEntry, SessionEntry } from "../session/types";
import type {
  AgentNotification,
  BeforeAgentStartEvent,
  BeforeAgentStartResult,
  InputEvent,
  InputResult,
  ToolCallEvent,
  ToolCallResult,
  ToolResultEvent,
  ToolResultPatch,
  UserBashEvent,
  UserBashResult,
} from "./hook-events";

/** What a branch summary is about to cover when leaving one branch for another. */
export interface TreePreparation {
  targetId: string;
  oldLeafId: string | null;
  commonAncestorId: string | null;
  /** The entries of the branch being left, oldest first (up to, not including, the common ancestor). */
  entriesToSummarize: SessionEntry[];
  userWantsSummary: boolean;
  customInstructions?: string;
  replaceInstructions?: boolean;
  label?: string;
  /** Arbor: the workspace's files will be restored to the target's too (the user's choice at the checkout). */
  restoreFiles?: boolean;
}

export interface BeforeTreeEvent {
  type: "session_before_tree";
  preparation: TreePreparation;
  /** Aborted when the user cancels the navigation. */
  signal: AbortSignal;
}

/** What handlers of `session_before_tree` may answer. */
export interface BeforeTreeResult {
  cancel?: boolean;
  /** A summary to record instead of asking the model (used only when a summary was asked for). */
  summary?: { summary: string; details?: unknown };
  customInstructions?: string;
  replaceInstructions?: boolean;
  label?: string;
}

export interface TreeEvent {
  type: "session_tree";
  newLeafId: string | null;
  oldLeafId: string | null;
  summaryEntry?: BranchSummaryEntry;
  /** Whether the summary came from an extension; undefined when no summary was recorded. */
  fromExtension?: boolean;
  /** Arbor: whether the workspace's files were restored to the new position's (file checkpoints). */
  filesRestored?: boolean;
}

export interface BeforeCompactEvent {
  type: "session_before_compact";
  preparation: CompactionPreparation;
  /** The path being compacted, root first. */
  branchEntries: SessionEntry[];
  customInstructions?: string;
  signal: AbortSignal;
}

/** A compaction an extension made itself. */
export interface SuppliedCompaction {
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: unknown;
}

export interface BeforeCompactResult {
  cancel?: boolean;
  compaction?: SuppliedCompaction;
}

export interface CompactEvent {
  type: "session_compact";
  compactionEntry: CompactionEntry;
  fromExtension: boolean;
}

/**
 * Implemented by the runtime; every hook is optional. The agent events (input to userBash) follow
 * Pi's order: see hook-events.ts. A hook never throws into the agent: the runtime reports an
 * extension's failure and answers as if the extension had not answered (except `toolCall`, where a
 * failing extension blocks the call, because a guard that broke must not let the call through).
 */
export interface AgentSessionHooks {
  beforeTree?(event: BeforeTreeEvent): Promise<BeforeTreeResult | undefined>;
  afterTree?(event: TreeEvent): Promise<void>;
  beforeCompact?(event: BeforeCompactEvent): Promise<BeforeCompactResult | undefined>;
  afterCompact?(event: CompactEvent): Promise<void>;
  /** Observed events, queued in order; never holds the agent up. */
  notify?(event: AgentNotification): void;
  /** A prompt arrived (before anything is recorded). */
  input?(event: InputEvent): Promise<InputResult | undefined>;
  /** After `input`, before the run: may add messages and change the run's system prompt. */
  beforeAgentStart?(event: BeforeAgentStartEvent): Promise<BeforeAgentStartResult | undefined>;
  /** Before each model call: may replace the messages sent (never what is recorded). */
  context?(messages: AgentMessage[]): Promise<AgentMessage[] | undefined>;
  /** The provider's request body just before it is sent: may replace it. */
  beforeProviderRequest?(payload: unknown): Promise<unknown>;
  /** Before a tool call runs: may block it (and may change `event.input` in place). */
  toolCall?(event: ToolCallEvent): Promise<ToolCallResult | undefined>;
  /** After a tool ran, before its result is recorded: may change the result. */
  toolResult?(event: ToolResultEvent): Promise<ToolResultPatch | undefined>;
  /** Before a message of a run is recorded: may replace it with one of the same role. */
  messageEnd?(message: AgentMessage): Promise<AgentMessage | undefined>;
  /** `!cmd`: may run the command elsewhere, or answer it. */
  userBash?(event: UserBashEvent): Promise<UserBashResult | undefined>;
}
