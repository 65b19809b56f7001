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
import type { SessionTreeNode } from "../session/session-tree";
import type { ImageContent, SessionEntry, TextContent } from "../session/types";
import type { Disposable } from "../util/disposable";

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

/** The before-events: their handlers can cancel (the first cancel wins) or change the operation. */
export const BEFORE_EVENT_TYPES: readonly SessionEventType[] = [
  "session_before_switch",
  "session_before_fork",
  "session_before_tree",
  "session_before_compact",
];

export type SessionEventHandler<K extends SessionEventType> = (
  event: SessionEventMap[K],
  context: ExtensionContext,
) => SessionEventResultMap[K] | undefined | void | Promise<SessionEventResultMap[K] | undefined | void>;

/** A session extension: a name (for error reports) and handlers for the events it cares about. */
export interface SessionExtension {
  name: string;
  handlers: { [K in SessionEventType]?: SessionEventHandler<K> };
}

/** A custom message an extension injects; it reaches the model as a user message. */
export interface ExtensionMessage {
  customType: string;
  content: string | (TextContent | ImageContent)[];
  /** Whether the transcript shows it (default true). */
  display?: boolean;
  details?: unknown;
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
  /** Appends a `custom_message` entry; while a prompt runs it waits until the prompt finishes. Resolves with its id. */
  sendMessage(message: ExtensionMessage): Promise<string>;
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

/** Reported when a handler throws; the operation goes on (a throwing before-handler does not cancel). */
export interface ExtensionErrorReport {
  extension: string;
  event: SessionEventType;
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
