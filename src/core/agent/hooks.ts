/**
 * The points where session extensions take part in tree navigation and compaction. The agent
 * session calls these hooks; the runtime implements them by emitting the extension events
 * (`session_before_tree`, `session_tree`, `session_before_compact`, `session_compact`).
 */
import type { CompactionPreparation } from "../compaction/prepare-compaction";
import type { BranchSummaryEntry, CompactionEntry, SessionEntry } from "../session/types";

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

/** Implemented by the runtime; every hook is optional and may be async. */
export interface AgentSessionHooks {
  beforeTree?(event: BeforeTreeEvent): Promise<BeforeTreeResult | undefined>;
  afterTree?(event: TreeEvent): Promise<void>;
  beforeCompact?(event: BeforeCompactEvent): Promise<BeforeCompactResult | undefined>;
  afterCompact?(event: CompactEvent): Promise<void>;
}
