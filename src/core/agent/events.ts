/**
 * What an agent session tells its front ends. One discriminated union, delivered through
 * `AgentSession.onEvent` (which returns a disposable).
 */
import type { SessionChange } from "../session/session-manager";
import type { EntrySummary } from "../tree/types";
import type {
  AgentMessage,
  AssistantMessage,
  BashExecutionMessage,
  ThinkingLevel,
  ToolResultMessage,
} from "../session/types";
import type { QueuedMessageInfo } from "./message-queue";
import type { ModelInfo, StreamEvent } from "./providers/provider";
import type { ApprovalAnswer, ApprovalRequest } from "./safety/approvals";

/** Who settled an approval: the user, the auto-approve setting, an earlier "for this session", or nobody (no one to ask: denied). */
export type ApprovalSource = "user" | "auto-approve" | "session-grant" | "unavailable";

/** Why a compaction runs: asked for, the context crossed the threshold, or the model said it overflowed. */
export type CompactionReason = "manual" | "threshold" | "overflow";

/** The steps of a compaction, in order, for progress display. */
export type CompactionPhase = "preparing" | "extensions" | "summarizing" | "writing";

/** What a completed compaction recorded. */
export interface CompactionResult {
  entryId: string;
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: unknown;
  fromExtension: boolean;
}

export type AgentSessionEvent =
  /** A prompt started: the session is busy until `run_end`. */
  | { type: "run_start" }
  | { type: "run_end"; lastAssistant?: AssistantMessage }
  /**
   * A message begins. User, tool-result and bash messages arrive complete; an assistant message
   * starts empty and grows through `message_update`.
   */
  | { type: "message_start"; message: AgentMessage }
  /** A piece of the streaming assistant reply; `message` is the reply so far. */
  | { type: "message_update"; message: AssistantMessage; delta: StreamEvent }
  /** A message is complete and appended as `entryId`. */
  | { type: "message_end"; message: AgentMessage; entryId: string }
  | { type: "tool_start"; toolCallId: string; toolName: string; args: Record<string, unknown> }
  | { type: "tool_update"; toolCallId: string; text: string }
  | { type: "tool_end"; toolCallId: string; result: ToolResultMessage; entryId: string }
  /** The user is being asked to approve something (a command, a write outside the workspace, the session's folder). */
  | { type: "approval_requested"; request: ApprovalRequest }
  /** An approval was settled; a denial also reaches the model as the call's result. */
  | { type: "approval_resolved"; request: ApprovalRequest; answer: ApprovalAnswer; by: ApprovalSource }
  | { type: "bash_start"; command: string; excludeFromContext: boolean }
  | { type: "bash_output"; text: string }
  /** `entryId` is undefined while the append waits for a running prompt to finish. */
  | { type: "bash_end"; message: BashExecutionMessage; entryId?: string }
  /** Entries were added to the tree (by this session, or by another process appending to the file). */
  | { type: "entries_appended"; entries: EntrySummary[]; external: boolean }
  | { type: "leaf_moved"; leafId: string | null }
  /** The session manager re-read or replaced its tree: redraw everything. */
  | { type: "tree_reset" }
  | { type: "compaction_start"; reason: CompactionReason }
  | { type: "compaction_progress"; reason: CompactionReason; phase: CompactionPhase }
  | {
      type: "compaction_end";
      reason: CompactionReason;
      result?: CompactionResult;
      cancelled: boolean;
      /** Set when the compaction failed. */
      errorMessage?: string;
      /** The failed request is sent again after an overflow compaction. */
      willRetry: boolean;
    }
  | { type: "branch_summary_start"; targetId: string }
  | { type: "branch_summary_end"; targetId: string; cancelled: boolean; summaryEntryId?: string; errorMessage?: string }
  /** A transient error: the call is sent again after `delayMs` (retry `attempt` of `maxAttempts`). */
  | { type: "auto_retry_start"; attempt: number; maxAttempts: number; delayMs: number; errorMessage: string }
  /** Retrying ended: a call succeeded, or the retries were used up, refused or cancelled (`finalError`). */
  | { type: "auto_retry_end"; success: boolean; attempt: number; finalError?: string }
  /** The user's prompts queued into the running reply changed (queued, delivered, taken back): all of them now. */
  | { type: "queue_changed"; queued: QueuedMessageInfo[] }
  | { type: "model_changed"; model: ModelInfo | undefined }
  | { type: "thinking_level_changed"; level: ThinkingLevel }
  /** The session became a read-only view (another window took it over). */
  | { type: "read_only"; reason: string }
  /** Something failed outside a call the front end awaits (a background write, an auto-compaction). */
  | { type: "error"; error: Error }
  /** The session was disposed; no events follow. */
  | { type: "disposed" };

/** The front-end event a session-manager change stands for (undefined for changes front ends learn otherwise). */
export function eventForSessionChange(change: SessionChange): AgentSessionEvent | undefined {
  switch (change.kind) {
    case "entries":
      return { type: "entries_appended", entries: change.entries, external: change.external };
    case "leaf":
      return { type: "leaf_moved", leafId: change.leafId };
    case "reset":
      return { type: "tree_reset" };
    case "read-only":
      return { type: "read_only", reason: change.reason };
    case "error":
      return { type: "error", error: change.error };
    default:
      return undefined;
  }
}
