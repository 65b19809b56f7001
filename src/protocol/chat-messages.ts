/**
 * The messages between the extension host and the Chat webview (the side view and the editor panel
 * speak the same protocol). Shared by both sides; imports neither vscode, nor the DOM, nor Node.
 * Every message is checked with the guards in `chat-guards.ts` before use.
 *
 * Handshake: the webview posts `ready` each time it (re)loads; the host answers with `chatState`
 * (the session, the run state, the model, and the tail of the transcript), then sends increments.
 *
 * The transcript is addressed by position within a generation: one slot per entry of the current
 * root-to-leaf path (null for entries that show nothing). A checkout, a switch or a reset starts a
 * new generation (and sends its tail); appends at the leaf extend it. The webview holds only what it shows: it asks for earlier items with `requestItems`
 * as the reader scrolls up, so the first paint of a 10,000-message transcript costs the same as
 * that of a short one. A streaming reply travels as small deltas and becomes an item once complete.
 */
import type { ThinkingLevel } from "../core/session/types";
import type { ExtensionUiState } from "../core/pi-extensions/chrome";
import type { TranscriptItem } from "../core/transcript/transcript";
import type { AttachmentToChatMessage, AttachmentToHostMessage, PromptImage } from "./chat-attachments";
import type { SessionStats } from "../core/session/usage-totals";

export type { ExtensionUiState, ExtensionWidget } from "../core/pi-extensions/chrome";

export type { TranscriptItem } from "../core/transcript/transcript";

/** The session the chat shows, as the header needs it. */
export interface ChatSessionInfo {
  sessionId: string;
  title: string;
  /** Set when this window cannot write the session (another window holds it, or the file moved). */
  readOnly: string | null;
  /** Tools the agent may not use here, and why (Restricted Mode); null when nothing is restricted. */
  restriction: string | null;
  /** The instruction files (AGENTS.md, CLAUDE.md) the agent was given, outermost first. */
  contextFiles: ContextFileRef[];
}

/** An instruction file the chat names at its top; a click opens it. */
export interface ContextFileRef {
  /** Absolute path (sent back to open it; the host opens only files it listed). */
  path: string;
  /** Short form: relative to the working folder, or with ~ for home. */
  label: string;
}

/** A model as the pickers show it. */
export interface ChatModel {
  provider: string;
  id: string;
  name: string;
  contextWindow: number;
  /** The thinking levels this model supports, lowest first ("off" always). */
  thinkingLevels: ThinkingLevel[];
}

/** What is running, for the Stop button and the live indicator. */
export type RunKind = "reply" | "bash" | "compaction" | "summary";

export interface RunState {
  kind: RunKind;
  /** Plain text for the indicator ("Thinking…", "Compacting (summarizing)…"). */
  label: string;
  /** What the Stop button says instead of "Stop" ("Cancel" while a retry waits). */
  stopLabel?: "Cancel";
}

/** A slash command the input offers. */
export interface SlashCommand {
  name: string;
  description: string;
  /** What follows the name, for the hint ("[instructions]"). */
  args?: string;
  /** Which extension registered it; absent for Arbor's own. */
  source?: string;
}

/** The context use of the current path against the model's window. */
export interface ContextUse {
  tokens: number;
  window: number;
}

/**
 * One position of the path: the item its entry shows, or null for an entry that shows nothing (a
 * label, a model change, a tool result drawn inside the reply that called it).
 */
export type TranscriptSlot = TranscriptItem | null;

/** A window of the transcript. */
export interface TranscriptWindow {
  generation: number;
  /** Positions on the path in all. */
  total: number;
  /** Position of `items[0]`. */
  start: number;
  items: TranscriptSlot[];
}


// ---------------------------------------------------------------------------
// Host → webview
// ---------------------------------------------------------------------------

export interface ChatStateMessage {
  type: "chatState";
  /** null when no session is open. */
  session: ChatSessionInfo | null;
  transcript: TranscriptWindow;
  run: RunState | null;
  model: ChatModel | null;
  thinkingLevel: ThinkingLevel;
  /** Why there is no model and how to add one; null when a model is set. */
  noModel: string | null;
  commands: SlashCommand[];
  context: ContextUse | null;
  /** Text to put in the input (taken back for editing while no chat was shown), or null. */
  input: string | null;
  extensionUi: ExtensionUiState;
}

/** Puts the caret in the input (the chat was shown for the user to type: a new session). */
export interface FocusInputMessage {
  type: "focusInput";
}

/** Pi extensions changed the chat's chrome (widgets, title, working indicator, thinking label). */
export interface ExtensionUiMessage {
  type: "extensionUi";
  ui: ExtensionUiState;
}

/** A new transcript (a checkout, a switch): replaces everything the webview holds. */
export interface TranscriptResetMessage {
  type: "transcriptReset";
  transcript: TranscriptWindow;
}

/** Items appended at the end of the current generation. */
export interface ItemsAppendedMessage {
  type: "itemsAppended";
  generation: number;
  total: number;
  start: number;
  items: TranscriptSlot[];
}

/** One earlier item changed in place (a tool call got its result). */
export interface ItemUpdatedMessage {
  type: "itemUpdated";
  generation: number;
  index: number;
  item: TranscriptItem;
}

/** The answer to `requestItems`. */
export interface ItemsMessage {
  type: "items";
  generation: number;
  start: number;
  items: TranscriptSlot[];
}

/** A reply began streaming. */
export interface ReplyStartMessage {
  type: "replyStart";
  provider: string;
  model: string;
}

/** A piece of the streaming reply. `index` is the block's index in the reply. */
export interface ReplyDeltaMessage {
  type: "replyDelta";
  index: number;
  part: "text" | "thinking" | "toolCall";
  /** Text for text and thinking; for a tool call, its name on the first delta. */
  delta: string;
}

/** The streaming reply ended (its item arrives through `itemsAppended`, unless nothing was recorded). */
export interface ReplyEndMessage {
  type: "replyEnd";
}

/** A tool call started, printed output, or finished (its result arrives as an item update). */
export interface ToolProgressMessage {
  type: "toolProgress";
  toolCallId: string;
  state: "running" | "output" | "done";
  toolName: string;
  /** Output so far for `output`. */
  text?: string;
}

/** A `!cmd` started, printed output, or finished (its record arrives as an item). */
export interface BashProgressMessage {
  type: "bashProgress";
  state: "start" | "output" | "end";
  command?: string;
  text?: string;
}

export interface RunStateMessage {
  type: "runState";
  run: RunState | null;
}

export interface ModelStateMessage {
  type: "modelState";
  model: ChatModel | null;
  thinkingLevel: ThinkingLevel;
  noModel: string | null;
  context: ContextUse | null;
}

export interface SessionInfoMessage {
  type: "sessionInfo";
  session: ChatSessionInfo | null;
}

export interface CommandsMessage {
  type: "commands";
  commands: SlashCommand[];
}

/** Puts text in the input (a checkout of a user message, an extension's setEditorText). */
export interface SetInputMessage {
  type: "setInput";
  text: string;
}

/** A prompt typed while the agent worked, waiting to be delivered (shown above the input). */
export interface QueuedPrompt {
  /** The queue's id for it (sent back to take it back). */
  id: string;
  /** Steering (delivered after the current tool calls) or a follow-up (when the agent would stop). */
  kind: "steer" | "followUp";
  text: string;
  /** Images sent with it. */
  imageCount: number;
}

/** Every prompt waiting now, steering first (sent after the state, and on each change). */
export interface QueueMessage {
  type: "queue";
  queued: QueuedPrompt[];
}

export type { SessionStats } from "../core/session/usage-totals";

/** `/session`: shown above the input until closed or the next send. */
export interface SessionStatsMessage {
  type: "sessionStats";
  stats: SessionStats;
}

/** A line shown above the input until the next send (an error the user should read). */
export interface NoticeMessage {
  type: "notice";
  level: "info" | "error";
  text: string;
}

export type HostToChatMessage =
  | ChatStateMessage
  | SessionStatsMessage
  | TranscriptResetMessage
  | ItemsAppendedMessage
  | ItemUpdatedMessage
  | ItemsMessage
  | ReplyStartMessage
  | ReplyDeltaMessage
  | ReplyEndMessage
  | ToolProgressMessage
  | BashProgressMessage
  | RunStateMessage
  | ModelStateMessage
  | SessionInfoMessage
  | CommandsMessage
  | SetInputMessage
  | NoticeMessage
  | ExtensionUiMessage
  | FocusInputMessage
  | QueueMessage
  | AttachmentToChatMessage;

// ---------------------------------------------------------------------------
// Webview → host
// ---------------------------------------------------------------------------

export interface ChatReadyMessage {
  type: "ready";
}

/**
 * What the user typed: a prompt, `!cmd`, `!!cmd` or `/command args`; the host tells them apart.
 * A prompt sent while the agent works steers it (Enter), or waits as a follow-up (`followUp`: Alt+Enter).
 */
export interface SendMessage {
  type: "send";
  text: string;
  /** Images pasted or dropped into the input (see chat-attachments.ts). */
  images?: PromptImage[];
  followUp?: boolean;
}

/** Takes a queued prompt (by id), or all of them (no id: Alt+Up), back into the input. */
export interface TakeBackQueuedMessage {
  type: "takeBackQueued";
  id?: string;
}

/** The input's text changed (typed, recalled, set by the host): the host mirrors it for extensions' `getEditorText`. */
export interface InputChangedMessage {
  type: "inputChanged";
  text: string;
}

/** Stop (the button, or Escape): aborts the running reply, command or compaction, and takes back what was queued. */
export interface StopMessage {
  type: "stop";
}

/** Earlier items of a generation, `[start, end)`. */
export interface RequestItemsMessage {
  type: "requestItems";
  generation: number;
  start: number;
  end: number;
}

/** A cycling key in the input: the next (or previous) scoped model, or the next thinking level. */
export interface CycleMessage {
  type: "cycle";
  what: "model" | "modelBackward" | "thinking";
}

/** Opens the model picker (a native quick pick, in response to this click). */
export interface PickModelMessage {
  type: "pickModel";
}

export interface SetThinkingLevelMessage {
  type: "setThinkingLevel";
  level: ThinkingLevel;
}

/** The "add a model" button of the no-model notice. */
export interface AddModelMessage {
  type: "addModel";
}

/** A link in the transcript: the host opens it through VS Code (which asks about untrusted domains). */
export interface OpenLinkMessage {
  type: "openLink";
  href: string;
}

/** Opens one of the context files the chat lists. */
export interface OpenContextFileMessage {
  type: "openContextFile";
  path: string;
}

/** Copies text (a code block, a message) to the clipboard. */
export interface CopyMessage {
  type: "copy";
  text: string;
}

/** "Insert at Cursor" on a code block: the host puts the code at the active editor's selections. */
export interface InsertCodeMessage {
  type: "insertCode";
  text: string;
}

/** Shows an entry in the Conversation Tree. */
export interface RevealEntryMessage {
  type: "revealEntry";
  entryId: string;
}

/** A diagnostic for the host's log. */
export interface ChatLogMessage {
  type: "log";
  level: "info" | "warn" | "error";
  message: string;
}

export type ChatToHostMessage =
  | ChatReadyMessage
  | SendMessage
  | TakeBackQueuedMessage
  | InputChangedMessage
  | StopMessage
  | RequestItemsMessage
  | PickModelMessage
  | CycleMessage
  | SetThinkingLevelMessage
  | AddModelMessage
  | OpenLinkMessage
  | OpenContextFileMessage
  | CopyMessage
  | InsertCodeMessage
  | RevealEntryMessage
  | ChatLogMessage
  | AttachmentToHostMessage;

export const CHAT_LIMITS = {
  idLength: 256,
  nameLength: 1_000,
  /** A prompt: large pastes are fine, megabytes of text are not a prompt. */
  inputLength: 1_000_000,
  /** Any one text in an item (tool output, a message). */
  textLength: 50_000_000,
  /** Items in one message. */
  itemsPerMessage: 100_000,
  /** Blocks in one message's content. */
  blocksPerItem: 10_000,
  /** Items a webview may ask for at once. */
  requestSpan: 2_000,
  messageLength: 100_000,
  /** Prompts queued at once. */
  queuedPrompts: 1_000,
} as const;
