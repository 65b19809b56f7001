/**
 * The session-extension API: the events an extension receives, what before-events may answer, and
 * the context bound to the current session. This is what Arbor's VS Code extension hands other
 * extensions from `activate`; see docs/extension-api.md.
 */
import type {
  BeforeCompactEvent,
  BeforeCompactResult,
  BeforeTreeEvent,
  BeforeTreeResult,
  CompactEvent,
  TreeEvent,
} from "../agent/hooks";
import type {
  AgentEndEvent,
  AgentStartEvent,
  BeforeAgentStartEvent,
  BeforeAgentStartResult,
  BeforeProviderRequestEvent,
  ContextEvent,
  ContextResult,
  InputEvent,
  InputResult,
  MessageEndEvent,
  MessageEndResult,
  MessageStartEvent,
  MessageUpdateEvent,
  ModelSelectEvent,
  ThinkingLevelSelectEvent,
  ToolCallEvent,
  ToolCallResult,
  ToolExecutionEndEvent,
  ToolExecutionStartEvent,
  ToolExecutionUpdateEvent,
  ToolResultEvent,
  ToolResultPatch,
  TurnEndEvent,
  TurnStartEvent,
  UserBashEvent,
  UserBashResult,
} from "../agent/hook-events";
import type { SessionTreeNode } from "../session/session-tree";
import type { ImageContent, SessionEntry, TextContent } from "../session/types";
import type { Disposable } from "../util/disposable";

export type * from "../agent/hook-events";

export type {
  BeforeCompactEvent,
  BeforeCompactResult,
  BeforeTreeEvent,
  BeforeTreeResult,
  CompactEvent,
  SuppliedCompaction,
  TreeEvent,
  TreePreparation,
} from "../agent/hooks";

/** Why a session started: the first one, or which replacement made it. */
export type SessionStartReason = "startup" | "new" | "resume" | "fork" | "reload";
/** Why a session is shutting down. */
export type SessionShutdownReason = "quit" | "new" | "resume" | "fork" | "reload";

export interface SessionStartEvent {
  type: "session_start";
  reason: SessionStartReason;
  /** The session file this one replaced, if any. */
  previousSessionFile?: string;
}

export interface BeforeSwitchEvent {
  type: "session_before_switch";
  /** "new" for a new session; "resume" for opening or importing an existing one. */
  reason: "new" | "resume";
  targetSessionFile?: string;
}

export interface BeforeForkEvent {
  type: "session_before_fork";
  entryId: string;
  /** "before": fork ends at the entry's parent (a user message, re-edited); "at": includes the entry. */
  position: "before" | "at";
}

export interface SessionShutdownEvent {
  type: "session_shutdown";
  reason: SessionShutdownReason;
  targetSessionFile?: string;
}

/** A before-event handler's answer: `cancel: true` stops the operation. */
export interface CancelResult {
  cancel?: boolean;
}

/** Every event an extension can handle, by name. */
export interface SessionEventMap {
  session_start: SessionStartEvent;
  session_before_switch: BeforeSwitchEvent;
  session_before_fork: BeforeForkEvent;
  session_shutdown: SessionShutdownEvent;
  session_before_tree: BeforeTreeEvent;
  session_tree: TreeEvent;
  session_before_compact: BeforeCompactEvent;
  session_compact: CompactEvent;
}

/** What each event's handlers may return (before-events only; the others return nothing). */
export interface SessionEventResultMap {
  session_start: void;
  session_before_switch: CancelResult;
  session_before_fork: CancelResult;
  session_shutdown: void;
  session_before_tree: BeforeTreeResult;
  session_tree: void;
  session_before_compact: BeforeCompactResult;
  session_compact: void;
}

export type SessionEventType = keyof SessionEventMap;

/** The agent events (Pi's names and shapes); see src/core/agent/hook-events.ts. */
export interface AgentEventMap {
  input: InputEvent;
  before_agent_start: BeforeAgentStartEvent;
  agent_start: AgentStartEvent;
  agent_end: AgentEndEvent;
  turn_start: TurnStartEvent;
  turn_end: TurnEndEvent;
  message_start: MessageStartEvent;
  message_update: MessageUpdateEvent;
  message_end: MessageEndEvent;
  tool_execution_start: ToolExecutionStartEvent;
  tool_execution_update: ToolExecutionUpdateEvent;
  tool_execution_end: ToolExecutionEndEvent;
  tool_call: ToolCallEvent;
  tool_result: ToolResultEvent;
  context: ContextEvent;
  before_provider_request: BeforeProviderRequestEvent;
  model_select: ModelSelectEvent;
  thinking_level_select: ThinkingLevelSelectEvent;
  user_bash: UserBashEvent;
}

/** What agent-event handlers may return; see docs/extension-api.md for how answers combine. */
export interface AgentEventResultMap {
  input: InputResult;
  before_agent_start: BeforeAgentStartResult;
  agent_start: void;
  agent_end: void;
  turn_start: void;
  turn_end: void;
  message_start: void;
  message_update: void;
  message_end: MessageEndResult;
  tool_execution_start: void;
  tool_execution_update: void;
  tool_execution_end: void;
  tool_call: ToolCallResult;
  tool_result: ToolResultPatch;
  context: ContextResult;
  /** The new payload (any value but undefined replaces it). */
  before_provider_request: unknown;
  model_select: void;
  thinking_level_select: void;
  user_bash: UserBashResult;
}

/** Every event an extension can handle: the session events and the agent events. */
export type ExtensionEventMap = SessionEventMap & AgentEventMap;
export type ExtensionEventResultMap = SessionEventResultMap & AgentEventResultMap;
export type ExtensionEventType = keyof ExtensionEventMap;

/** The before-events: their handlers can cancel (the first cancel wins) or change the operation. */
export const BEFORE_EVENT_TYPES: readonly SessionEventType[] = [
  "session_before_switch",
  "session_before_fork",
  "session_before_tree",
  "session_before_compact",
];

export type SessionEventHandler<K extends ExtensionEventType> = (
  event: ExtensionEventMap[K],
  context: ExtensionContext,
) => ExtensionEventResultMap[K] | undefined | void | Promise<ExtensionEventResultMap[K] | undefined | void>;

/** A session extension: a name (for error reports) and handlers for the events it cares about. */
export interface SessionExtension {
  name: string;
  handlers: { [K in ExtensionEventType]?: SessionEventHandler<K> };
}

/** A custom message an extension injects; it reaches the model as a user message. */
export interface ExtensionMessage {
  customType: string;
  content: string | (TextContent | ImageContent)[];
  /** Whether the transcript shows it; recorded as given (Pi's front ends show it only when true). */
  display?: boolean;
  details?: unknown;
}

/**
 * How a message reaches a session, as in Pi: while a reply runs, "steer" (the default) records it
 * after the running turn's tool calls, before the next model call; "followUp" once the model would
 * stop (it then answers it); "nextTurn" with the next prompt. When idle, `triggerTurn` asks the
 * model to answer it at once; otherwise it is just recorded.
 */
export interface SendMessageOptions {
  triggerTurn?: boolean;
  deliverAs?: "steer" | "followUp" | "nextTurn";
}

/** Follow-up work after a replacement, with a context bound to the new session. */
export interface WithSessionOptions {
  withSession?: (context: ExtensionContext) => void | Promise<void>;
}

/** Options of `navigateTree` (see AgentSession.navigateTree). */
export interface NavigateOptions {
  summarize?: boolean;
  customInstructions?: string;
  replaceInstructions?: boolean;
  label?: string;
}

/**
 * What an extension may do with the session it was handed. Bound to one session: after that
 * session is replaced (switch, new, fork, reload), every member throws a StaleContextError (its message is STALE_CONTEXT_MESSAGE).
 */
export interface ExtensionContext {
  readonly sessionId: string;
  /** Undefined for a session that lives only in memory. */
  readonly sessionFile: string | undefined;
  readonly cwd: string;
  readonly readOnly: boolean;
  /** Appends a `custom` entry (extension state; never reaches the model). Returns its id. */
  appendEntry(customType: string, data?: unknown): string;
  /**
   * Appends a `custom_message` entry, delivered as {@link SendMessageOptions} says (while a reply
   * runs it is steered into it by default). Resolves with its id once recorded (with `triggerTurn`,
   * once the turn it started has ended).
   */
  sendMessage(message: ExtensionMessage, options?: SendMessageOptions): Promise<string>;
  /** Sends a user prompt as if typed; while a reply runs, `deliverAs` queues it (without it, that is refused). Resolves when its run ends. */
  sendUserMessage(content: string | (TextContent | ImageContent)[], options?: { deliverAs?: "steer" | "followUp" }): Promise<void>;
  /** No prompt, compaction or summary is running. */
  isIdle(): boolean;
  /** Resolves once the session is idle. */
  waitForIdle(): Promise<void>;
  /**
   * Replacements, as the commands do them (each fires its before-event, which may cancel). The
   * context goes stale once the replacement happens: do follow-up work in `withSession`. Refused
   * (rejects) when called from a handler Arbor is waiting for, which would otherwise deadlock.
   */
  newSession(options?: WithSessionOptions & { parentSession?: string }): Promise<{ cancelled: boolean }>;
  switchSession(sessionFile: string, options?: WithSessionOptions): Promise<{ cancelled: boolean }>;
  fork(entryId: string, options?: WithSessionOptions & { position?: "before" | "at" }): Promise<{ cancelled: boolean }>;
  /** Moves to another entry (session_before_tree / session_tree); refused while a reply runs. */
  navigateTree(targetId: string, options?: NavigateOptions): Promise<{ cancelled: boolean }>;
  /** Sets (or with undefined / "" clears) an entry's label. Returns the label entry's id. */
  setLabel(entryId: string, label: string | undefined): string;
  /** Names the session ("" clears). Returns the session_info entry's id. */
  setSessionName(name: string): string;
  getSessionName(): string | undefined;
  getLeafId(): string | null;
  /** A copy of an entry; changing it changes nothing in the session. */
  getEntry(id: string): SessionEntry | undefined;
  /** Copies of the entries from the root to the leaf (or to `fromId`). */
  getBranch(fromId?: string): SessionEntry[];
  /** A copy of the whole entry tree (Pi's shape: entries with children and labels). */
  getTree(): SessionTreeNode[];
  getLabel(entryId: string): string | undefined;
}

/**
 * Reported when a handler throws or does not finish in time; the operation goes on (a throwing
 * before-handler does not cancel; a failing `tool_call` handler blocks that call). `event` is the
 * event's name, or what else the extension was doing ("load", "command:<name>", "ui").
 */
export interface ExtensionErrorReport {
  extension: string;
  event: string;
  error: Error;
}

/** The API Arbor's VS Code extension returns from `activate`. */
export interface ArborApi {
  readonly apiVersion: 1;
  /** Registers a session extension; its handlers run in registration order. Dispose to unregister. */
  registerSessionExtension(extension: SessionExtension): Disposable;
  /** A context bound to the current session (stale after the next replacement), or undefined when none is open. */
  getSessionContext(): ExtensionContext | undefined;
  /** Errors thrown by handlers. */
  onDidReportError(listener: (report: ExtensionErrorReport) => void): Disposable;
}
