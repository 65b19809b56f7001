/**
 * The light view of an entry that the tree needs: enough to draw, filter and search a row
 * without holding (or sending) the entry's full content. Shared by the core, the host and the
 * webview, so it imports nothing.
 */
export interface EntrySummary {
  id: string;
  /** null for a root. A parent id that is not in the file makes the entry an orphan (drawn as a root). */
  parentId: string | null;
  /** The entry type as written; unknown types are kept as they are. */
  type: string;
  /** ISO-8601, as written. */
  timestamp: string;
  /** 1-based line number in the session file (0 when not persisted). */
  line: number;
  /** For `message` entries: user, assistant, toolResult, bashExecution, custom, ... */
  role?: string;
  /** One line of plain text (at most ~200 characters) describing the entry. Never HTML. */
  preview: string;
  /** custom / custom_message */
  customType?: string;
  /** toolResult messages; for assistant messages the names of the tools called, comma-separated */
  toolName?: string;
  /** toolResult messages and assistant messages that ended in error */
  isError?: boolean;
  /**
   * Assistant messages with no visible text that ended normally (stop, toolUse, no stop reason):
   * Pi's tree hides them in every filter unless they are the current leaf. Absent is read as false.
   */
  textless?: boolean;
  /**
   * The text Pi's tree search reads (label excluded), when the other fields do not give the same
   * words (see `searchTextOverride` and `derivedSearchText`). Not lower-cased.
   */
  searchText?: string;
  /** compaction */
  tokensBefore?: number;
  /** compaction */
  firstKeptEntryId?: string;
  /** branch_summary */
  fromId?: string;
  /** label entries: the labelled entry and the text (absent = cleared) */
  targetId?: string;
  label?: string;
  /** model_change */
  provider?: string;
  modelId?: string;
  /** thinking_level_change */
  thinkingLevel?: string;
  /** true for Arbor's own checkout markers (custom entries of type `arbor.checkout`), which the tree splices out */
  checkoutMarker?: boolean;
  /** Set by the host when a field was outside the protocol's limits and was shortened or replaced to draw the entry. */
  clamped?: boolean;
  /** Set by the host while the entry's write has failed: it lives in memory only, until a retry or a save as a new session. */
  unsaved?: boolean;
}
