/**
 * The messages between the extension host and the Conversation Tree webview. Shared by both sides;
 * imports neither vscode, nor the DOM, nor Node. Every message crossing the boundary is checked
 * with the guards in `guards.ts` before use.
 *
 * Handshake: the webview posts `ready` each time it (re)loads; the host answers with `state` (the
 * full session), then sends increments. A webview that was hidden and shown again is a new page:
 * it posts `ready` again and gets the full state again.
 */
import type { FilterMode } from "../core/tree/filters";
import type { EntrySummary } from "../core/tree/types";

export type { EntrySummary } from "../core/tree/types";
export type { FilterMode } from "../core/tree/filters";

/** A label as it stands in the session's label map. */
export interface LabelAssignment {
  targetId: string;
  label: string;
}

/** A label set, or cleared with `label: null`. */
export interface LabelUpdate {
  targetId: string;
  label: string | null;
}

/** The full state of one session, as the tree needs it. */
export interface SessionSnapshot {
  /** The session's id (header id): increments and requests name it so stale ones can be dropped. */
  sessionId: string;
  /** From the last session_info entry; null when unnamed. */
  name: string | null;
  /** Every entry in file order, checkout markers included (the tree splices them out). */
  entries: EntrySummary[];
  labels: LabelAssignment[];
  /** The current leaf; null before any entry. */
  leafId: string | null;
}

/** Another window holds the session: this one is a read-only view. */
export interface ReadOnlyNotice {
  /** Plain text shown in the banner. */
  message: string;
  /** Whether the banner offers "Fork" (the webview then posts `forkSession`). */
  canFork: boolean;
  /** The button's text when it is not "Fork" (e.g. "Save as New Session" for a file replaced while open). */
  actionLabel?: string;
}

/** The long form of an entry, fetched on demand (the tree only holds previews). */
export type EntryDetails =
  | {
      kind: "compaction";
      summary: string;
      tokensBefore: number;
      firstKeptEntryId: string;
      readFiles: string[];
      modifiedFiles: string[];
    }
  | { kind: "branchSummary"; summary: string; fromId: string }
  | { kind: "text"; text: string };

// ---------------------------------------------------------------------------
// Host → webview
// ---------------------------------------------------------------------------

/** The full state: sent in answer to every `ready`, and when the current session is replaced. */
export interface StateMessage {
  type: "state";
  /** null when no session is open. */
  session: SessionSnapshot | null;
  readOnly: ReadOnlyNotice | null;
  /** The filter setting; the webview's own saved choice wins over it. */
  defaultFilter?: FilterMode;
}

/** Entries appended to the file (by this window or, live, by another process); the leaf moves with them. */
export interface EntriesAppendedMessage {
  type: "entriesAppended";
  sessionId: string;
  entries: EntrySummary[];
  leafId: string | null;
}

/** The leaf moved without new entries (a checkout). */
export interface LeafMovedMessage {
  type: "leafMoved";
  sessionId: string;
  leafId: string | null;
}

export interface LabelsChangedMessage {
  type: "labelsChanged";
  sessionId: string;
  changes: LabelUpdate[];
}

export interface SessionRenamedMessage {
  type: "sessionRenamed";
  sessionId: string;
  name: string | null;
}

/** Shows (or, with null, clears) the read-only banner. */
export interface ReadOnlyMessage {
  type: "readOnly";
  notice: ReadOnlyNotice | null;
}

/** The answer to `requestDetails`, with the same request id. */
export type EntryDetailsMessage =
  | { type: "entryDetails"; requestId: string; entryId: string; ok: true; details: EntryDetails }
  | { type: "entryDetails"; requestId: string; entryId: string; ok: false; error: string };

/** Selects and scrolls to an entry (e.g. after a checkout from the command palette). */
export interface RevealMessage {
  type: "reveal";
  sessionId: string;
  entryId: string;
}

/** Sets the filter (e.g. from a view title action). */
export interface SetFilterMessage {
  type: "setFilter";
  filter: FilterMode;
}

export type HostToWebviewMessage =
  | StateMessage
  | EntriesAppendedMessage
  | LeafMovedMessage
  | LabelsChangedMessage
  | SessionRenamedMessage
  | ReadOnlyMessage
  | EntryDetailsMessage
  | RevealMessage
  | SetFilterMessage;

// ---------------------------------------------------------------------------
// Webview → host
// ---------------------------------------------------------------------------

/** The webview (re)loaded and wants the full state. */
export interface ReadyMessage {
  type: "ready";
}

/**
 * Actions on one entry. The host applies the session semantics (a checkout of a user message puts
 * the leaf on its parent and offers the text for editing) and drops ids of another session.
 */
export interface EntryActionMessage {
  type: "checkout" | "fork" | "label" | "copyText";
  sessionId: string;
  id: string;
}

export const ENTRY_ACTIONS = ["checkout", "fork", "label", "copyText"] as const;

/** "Fork" on the read-only banner: fork the session at its current leaf. */
export interface ForkSessionMessage {
  type: "forkSession";
  sessionId: string;
}

/** Asks for an entry's long form; answered by `entryDetails` with the same request id. */
export interface RequestDetailsMessage {
  type: "requestDetails";
  requestId: string;
  sessionId: string;
  entryId: string;
}

/** The keyboard selection moved (commands run from the view title can act on it). */
export interface SelectionChangedMessage {
  type: "selectionChanged";
  sessionId: string;
  id: string | null;
}

export const LOG_LEVELS = ["info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A diagnostic for the host's log (the webview has no other way to report its own errors). */
export interface LogMessage {
  type: "log";
  level: LogLevel;
  message: string;
}

export type WebviewToHostMessage =
  | ReadyMessage
  | EntryActionMessage
  | ForkSessionMessage
  | RequestDetailsMessage
  | SelectionChangedMessage
  | LogMessage;

// ---------------------------------------------------------------------------
// Limits the guards enforce
// ---------------------------------------------------------------------------

export const LIMITS = {
  /** Entry and session ids: 8 hex chars or a UUID in practice; other writers get some room. */
  idLength: 256,
  requestIdLength: 64,
  /** Previews are about 200 characters; leave room without accepting megabytes. */
  previewLength: 10_000,
  labelLength: 10_000,
  /** Short names: entry types, roles, tool names, custom types, providers, models. */
  nameLength: 1_000,
  timestampLength: 64,
  messageLength: 100_000,
  /** Long text: summaries, full entry text. */
  textLength: 50_000_000,
  entriesPerMessage: 5_000_000,
  filesPerCompaction: 100_000,
} as const;
