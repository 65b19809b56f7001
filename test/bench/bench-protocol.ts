/**
 * What the bench harness asks of a measurement child process and what the child reports back.
 * Each measurement that reads a big file runs in a fresh process so that peak memory (maxRSS)
 * belongs to that one implementation alone.
 */

/**
 * "ref-streamed": the reference's own tree and context code fed by a bench line reader, for files
 * the reference cannot read itself (checks results only; never timed against Arbor).
 */
export type Implementation = "ours" | "ref" | "ref-streamed";

export type ChildTask =
  | { kind: "floor"; file: string }
  /**
   * Open + the tree the UI needs, then contexts. Ours: with its reopen index in `indexDir` (empty
   * for a first open; prepared by a `prime` task for a reopen).
   */
  | { kind: "open"; impl: Implementation; file: string; targets: string[]; indexDir?: string }
  /** Ours: one untimed open that leaves the reopen index in `indexDir`. */
  | { kind: "prime"; file: string; indexDir: string }
  /** The reference's way to list, for the fields Arbor lists only (no joined text of every message). */
  | { kind: "list-same-fields"; dir: string }
  | { kind: "append"; impl: Implementation; file: string; count: number; seed: number }
  /** One listing in a fresh process; `home` becomes HOME, the agent dir and the cache dir's parent (an index lives somewhere under it or in `dir`). */
  | { kind: "list"; impl: Implementation; dir: string; cwd: string; home: string };

export interface MemorySnapshot {
  /** Peak resident set size of the process so far (process.resourceUsage().maxRSS), in MB. */
  maxRssMb: number;
  /** V8 heap in use right after a full garbage collection, in MB. */
  heapMb: number;
  /** Memory outside the V8 heap (Buffers and the like) after the same collection, in MB. */
  externalMb: number;
}

export interface FloorResult {
  kind: "floor";
  readParseMs: number;
  lines: number;
  baseline: MemorySnapshot;
  afterParse: MemorySnapshot;
}

export interface CheckoutMeasurement {
  id: string;
  /** branch(id) + buildSessionContext(), first visit. */
  ms: number;
  /** The same again right after (everything the first visit parsed is now in memory). */
  repeatMs: number;
  messages: number;
  digest: string;
}

export interface OpenResult {
  kind: "open";
  /**
   * Open until the tree is ready to draw: ref, open + getTree(); ours, open + the tree index +
   * the summaries of the first screen (the rows around the leaf).
   */
  openMs: number;
  /** Ours: how the reopen index was used (none, unchanged, ...). */
  indexUse?: string;
  /** Ours: every entry's summary after that (what a view that holds every row needs), ms. */
  allSummariesMs?: number;
  treeNodes: number;
  treeRoots: number;
  /** Hash of the ids in tree pre-order (children in the order the implementation gives). */
  treeDigest: string;
  baseline: MemorySnapshot;
  afterOpen: MemorySnapshot;
  /** After the contexts and checkouts below (maxRSS is the process's peak so far), before allSummaries. */
  afterCheckouts: MemorySnapshot;
  /** buildSessionContext() for the leaf the file resumes at: first call, then a repeat. */
  leafContextMs: number;
  leafContextRepeatMs: number;
  leafId: string | null;
  leafMessages: number;
  leafDigest: string;
  checkouts: CheckoutMeasurement[];
}

export interface AppendResult {
  kind: "append";
  /** Opening the writable copy (not part of the append time). */
  openMs: number;
  /** `count` appendMessage calls (ours: plus `await flush()`). */
  appendMs: number;
  count: number;
  /** The file grew by this many lines (checks that every append reached the disk). */
  linesAdded: number;
}

export interface ListResult {
  kind: "list" | "list-same-fields";
  ms: number;
  sessions: number;
  /** Hash of the normalized listing (path, id, name, messageCount, firstMessage, modified), newest first. */
  digest: string;
  /** The first rows, normalized, to show a mismatch. */
  sample: NormalizedSessionInfo[];
}

export interface NormalizedSessionInfo {
  file: string;
  id: string;
  name: string | undefined;
  messageCount: number;
  firstMessage: string;
  modified: number;
}

export interface PrimeResult {
  kind: "prime";
  indexUse: string;
}

export type ChildResult = FloorResult | OpenResult | AppendResult | ListResult | PrimeResult;

/** What a child sends back: a result, or why it could not measure (e.g. ours is not implemented yet). */
export type ChildReply = { ok: true; result: ChildResult } | { ok: false; error: string; unavailable: boolean };
