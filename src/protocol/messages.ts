/**
 * The messages between the extension host and the Conversation Tree webviews (the side view and
 * the editor tab). Shared by both sides; imports neither vscode, nor the DOM, nor Node. Every
 * message crossing the boundary is checked with the guards in `guards.ts` before use.
 *
 * The host keeps the tree (entries, filter, search, folds, selection, layout); a webview holds
 * only a window of rows around what it shows, and the number of rows (the scroll extent).
 *
 * Handshake: the webview posts `ready` each time it (re)loads; the host answers with a `tree`
 * message with `reset: true`. The webview then says which rows it shows (`viewport`), and the
 * host answers each with the rows around them. Every change (an append, a checkout, a filter, a
 * fold, a selection) reaches every open webview as a `tree` message carrying the rows of its
 * window at the new version. Keys and clicks become requests (`navigate`, `select`,
 * `toggleFold`, `checkout`, ...) that the host applies.
 */
import type { FilterMode } from "../core/tree/filters";
import type { EntrySummary } from "../core/tree/types";

export type { EntrySummary } from "../core/tree/types";
export type { FilterMode } from "../core/tree/filters";

/** Another window holds the session: this one is a read-only view. */
export interface ReadOnlyNotice {
  /** Plain text shown in the banner. */
  message: string;
  /** Whether the banner offers "Fork" (the webview then posts `forkSession`). */
  canFork: boolean;
  /** The button's text when it is not "Fork" (e.g. "Save as New Session" for a file replaced while open). */
  actionLabel?: string;
}

/** The long form of an entry, fetched on demand (rows only carry previews). */
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

/** The session a tree shows. */
export interface TreeSessionInfo {
  /** The session's id (header id): requests name it so that stale ones can be dropped. */
  sessionId: string;
  /** What the header line shows. */
  title: string;
  /** Entries in the file (checkout markers excluded). */
  entryCount: number;
}

/** One drawn row: the entry's light view and where and how it is drawn. All text is plain text. */
export interface TreeRow {
  entry: EntrySummary;
  /** aria-level: 1-based depth in the drawn tree. */
  level: number;
  posInSet: number;
  setSize: number;
  /**
   * The nearest indent columns, outermost first, one character each: l(ine), b(lank), t(ee), e(lbow).
   * Deeper trees draw at most a few; the rest are counted in `hiddenLanes` (the depth marker).
   */
  lanes: string;
  hiddenLanes: number;
  /** Drawn children when the row is a branch point (it can be folded), else 0. */
  branches: number;
  folded: boolean;
  /** First row of a branch segment. */
  segmentStart: boolean;
  /** A top-level row (a root, or the chain of one). */
  top: boolean;
  orphan: boolean;
  onPath: boolean;
  /** "exact" on the leaf's row; "inside" on the nearest drawn ancestor of a hidden leaf. */
  leaf: "exact" | "inside" | null;
  label: string | null;
  /** The row's place relative to the selected compaction. */
  span: "replaced" | "kept" | null;
  /** The workspace's files were recorded here (a file checkpoint at this entry). */
  checkpoint: boolean;
}

/** Rows [start, start + rows.length) of the drawn tree at `version`, which has `rowCount` rows. */
export interface RowWindow {
  /** Increases with every change of the tree; rows of an older version are stale. */
  version: number;
  rowCount: number;
  start: number;
  rows: TreeRow[];
  /** The `seq` of the viewport request this window answers, when it answers one. */
  seq?: number;
}

export interface TreeViewSettings {
  filter: FilterMode;
  query: string;
  /** Folded branch points (what a webview saves, to restore after a reload). */
  folded: string[];
}

export interface TreeSelection {
  /** Selected entry ids, oldest first (at most two); the last one has the focus. */
  ids: string[];
  /** The row of the focused entry, or -1. */
  focusRow: number;
}

/** What the status line says. */
export interface TreeStatus {
  shown: number;
  total: number;
  /** The leaf is hidden by the filter or a fold: its nearest drawn ancestor carries the mark. */
  leafHidden: boolean;
  /** The row that carries the leaf mark (the leaf or its nearest drawn ancestor); absent when none does. */
  leafRow?: number;
  /** The selected compaction replaced this many entries (absent when no compaction is selected). */
  replacedCount?: number;
}

/** Where the webview should scroll: a row, brought into view ("nearest"), to the middle ("center") or to the top ("start"). */
export interface ScrollRequest {
  row: number;
  align: "nearest" | "center" | "start";
}

// ---------------------------------------------------------------------------
// Host → webview
// ---------------------------------------------------------------------------

/** The tree's state: after `ready`, after every change, and in answer to `viewport`. */
export interface TreeMessage {
  type: "tree";
  /** Drop every row held and start over (another session, or the first state). */
  reset: boolean;
  /** null when no session is open. */
  session: TreeSessionInfo | null;
  view: TreeViewSettings;
  window: RowWindow;
  selection: TreeSelection;
  status: TreeStatus;
  scroll: ScrollRequest | null;
}

/** Shows (or, with null, clears) the read-only banner. */
export interface ReadOnlyMessage {
  type: "readOnly";
  notice: ReadOnlyNotice | null;
}

/** One file a turn changed, as the details pane lists it. */
export interface TurnFileChange {
  path: string;
  kind: "added" | "modified" | "deleted";
  /** Lines added and deleted; null for a binary file or when they could not be counted. */
  linesAdded: number | null;
  linesDeleted: number | null;
}

/** The files recorded at an entry, against the snapshot before it on its path. */
export interface TurnFiles {
  /** At most `LIMITS.filesPerCompaction` of them. */
  changes: TurnFileChange[];
  /** How many files changed in all. */
  total: number;
  /** No snapshot before it: these are the workspace's files as the session first recorded them. */
  first: boolean;
}

/** The answer to `requestDetails`, with the same request id. */
export type EntryDetailsMessage =
  | { type: "entryDetails"; requestId: string; entryId: string; ok: true; details: EntryDetails; files?: TurnFiles }
  | { type: "entryDetails"; requestId: string; entryId: string; ok: false; error: string };

export type HostToWebviewMessage = TreeMessage | ReadOnlyMessage | EntryDetailsMessage;

// ---------------------------------------------------------------------------
// Webview → host
// ---------------------------------------------------------------------------

/** What a webview saved with setState, offered back to the host when it loads again. */
export interface SavedTreeState {
  sessionId: string | null;
  /** The first row in view. */
  topRow: number;
  filter: FilterMode;
  query: string;
  folded: string[];
  selection: string[];
}

/** The webview (re)loaded and wants the state. */
export interface ReadyMessage {
  type: "ready";
  saved?: SavedTreeState;
}

/**
 * The rows the webview shows ([visibleFrom, visibleTo)) and the window it wants held
 * ([from, to), the visible rows plus a margin). Answered with a `tree` message carrying `seq`.
 */
export interface ViewportMessage {
  type: "viewport";
  sessionId: string;
  from: number;
  to: number;
  visibleFrom: number;
  visibleTo: number;
  seq: number;
}

/** Selects an entry; with `add`, adds it to the selection (or removes it when selected). */
export interface SelectMessage {
  type: "select";
  sessionId: string;
  id: string;
  add: boolean;
}

export const NAVIGATION_MOVES = ["up", "down", "pageUp", "pageDown", "home", "end", "left", "right"] as const;
export type NavigationMove = (typeof NAVIGATION_MOVES)[number];

/** A navigation key: the host moves the focus (Left/Right also fold and unfold branch points). */
export interface NavigateMessage {
  type: "navigate";
  sessionId: string;
  move: NavigationMove;
  /** Rows in a page, for PageUp/PageDown. */
  pageSize: number;
}

/** Folds or unfolds a branch point. */
export interface ToggleFoldMessage {
  type: "toggleFold";
  sessionId: string;
  id: string;
}

export interface SetFilterMessage {
  type: "setFilter";
  filter: FilterMode;
}

export interface SetQueryMessage {
  type: "setQuery";
  query: string;
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

/** Opens the diff of a file the turn at `entryId` changed (`path` null: every file, in one view). */
export interface OpenFileChangeMessage {
  type: "openFileChange";
  sessionId: string;
  entryId: string;
  path: string | null;
}

/** Asks for an entry's long form; answered by `entryDetails` with the same request id. */
export interface RequestDetailsMessage {
  type: "requestDetails";
  requestId: string;
  sessionId: string;
  entryId: string;
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
  | ViewportMessage
  | SelectMessage
  | NavigateMessage
  | ToggleFoldMessage
  | SetFilterMessage
  | SetQueryMessage
  | EntryActionMessage
  | ForkSessionMessage
  | OpenFileChangeMessage
  | RequestDetailsMessage
  | LogMessage;

// ---------------------------------------------------------------------------
// Limits the guards enforce (and the host clamps to before sending)
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
  filesPerCompaction: 100_000,
  /** Rows in one window: a few screens; a webview asking for more gets this many. */
  rowsPerWindow: 2_000,
  /** Indent columns a row carries at most. */
  lanes: 64,
  /** Rows of a tree (far beyond any session on disk; keeps indexes sane). */
  rowCount: 100_000_000,
  /** Folds and selections saved by a webview. */
  savedIds: 10_000,
  queryLength: 1_000,
} as const;
