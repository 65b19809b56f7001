import type { SessionManager } from "../session/session-manager";
import { CHECKOUT_CUSTOM_TYPE, CHECKPOINT_CUSTOM_TYPE, type SessionEntry } from "../session/types";
import type { CheckpointStore, Snapshot } from "./checkpoint-store";

/** The `customType` of the session entries that record a snapshot. */
export { CHECKPOINT_CUSTOM_TYPE };

/** What a checkpoint entry holds (its `data`). */
export interface CheckpointEntryData {
  /** The snapshot's id in the workspace's checkpoint store. */
  snapshot: string;
  /** Paths changed since the previous snapshot (cut at 200 paths in all; `counts` stay exact). */
  added: string[];
  modified: string[];
  deleted: string[];
  counts: { added: number; modified: number; deleted: number };
  truncated?: boolean;
  /** Files left out for their size. */
  skipped?: string[];
}

/** The snapshot a checkpoint entry records, or undefined for any other entry. */
export function checkpointOf(entry: SessionEntry | undefined): CheckpointEntryData | undefined {
  if (!entry || entry.type !== "custom" || entry.customType !== CHECKPOINT_CUSTOM_TYPE) return undefined;
  const data = entry.data as Partial<CheckpointEntryData> | undefined;
  return data && typeof data.snapshot === "string" && /^[0-9a-f]{40}$/.test(data.snapshot) ? (data as CheckpointEntryData) : undefined;
}

/** Where the files at an entry come from. */
export interface FilesAt {
  snapshot: string;
  /**
   * True when the snapshot was taken while this entry was the leaf (a checkpoint entry itself, or
   * one recorded right under it); false when it is the last one before it on its path (an entry in
   * the middle of a reply: the files as that prompt began).
   */
  exact: boolean;
}

/**
 * The files at an entry: the workspace as it was when that entry was the leaf. A checkpoint entry
 * is its own snapshot; an entry that was left or prompted from has a checkpoint child (the latest
 * counts); otherwise the nearest checkpoint above it.
 */
export function filesAt(sm: SessionManager, entryId: string | null): FilesAt | undefined {
  // A checkout marker stands for the entry it was checked out at.
  for (let entry = entryId === null ? undefined : sm.getEntry(entryId); entry?.type === "custom" && entry.customType === CHECKOUT_CUSTOM_TYPE && !hasCheckpointChild(sm, entry.id); entry = sm.getEntry(entry.parentId ?? "")) {
    entryId = entry.parentId;
  }
  if (entryId === null) return undefined;
  const own = checkpointOf(sm.getEntry(entryId));
  if (own) return { snapshot: own.snapshot, exact: true };
  const children = sm.getChildren(entryId).map(checkpointOf).filter((c): c is CheckpointEntryData => c !== undefined);
  if (children.length > 0) return { snapshot: children[children.length - 1].snapshot, exact: true };
  const path = sm.getPathIds(entryId);
  for (let i = path.length - 2; i >= 0; i--) {
    const found = checkpointOf(sm.getEntry(path[i]));
    if (found) return { snapshot: found.snapshot, exact: false };
  }
  return undefined;
}

function hasCheckpointChild(sm: SessionManager, id: string): boolean {
  return sm.getChildren(id).some((c) => checkpointOf(c) !== undefined);
}

/** Why a moment asks for a snapshot (for logs and tests). */
export type SnapshotMoment = "prompt" | "leave";

/**
 * Records snapshots of a session's workspace in the session: before a prompt runs and when the
 * leaf leaves an entry. A `custom` entry goes in only when the files differ from what the leaf
 * already records; Pi skips custom entries when it builds the context, so the conversation is the
 * same with or without them.
 */
export class SessionCheckpoints {
  private pending: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: CheckpointStore,
    private readonly sm: SessionManager,
    private readonly onSnapshot?: (snapshot: Snapshot, moment: SnapshotMoment, entryId: string | undefined) => void,
  ) {}

  /** The store this session records into. */
  get checkpointStore(): CheckpointStore {
    return this.store;
  }

  /** Snapshots now and records it at the leaf when the files differ from the leaf's. */
  record(moment: SnapshotMoment): Promise<Snapshot> {
    const run = this.pending.then(() => this.take(moment));
    this.pending = run.catch(() => undefined);
    return run;
  }

  private async take(moment: SnapshotMoment): Promise<Snapshot> {
    const snapshot = await this.store.snapshot();
    const leaf = this.sm.getLeafId();
    const known = filesAt(this.sm, leaf);
    let entryId: string | undefined;
    // Files equal to what the leaf resolves to (its own record, or the one above it when the turn
    // changed nothing) need no entry: filesAt already gives them.
    const same = known?.snapshot === snapshot.id;
    if (!same && !this.sm.isReadOnly()) {
      const data: CheckpointEntryData = { snapshot: snapshot.id, ...snapshot.summary, counts: snapshot.counts };
      if (snapshot.skipped.length > 0) data.skipped = snapshot.skipped.map((s) => s.path);
      entryId = this.sm.appendCustomEntry(CHECKPOINT_CUSTOM_TYPE, data);
    }
    this.onSnapshot?.(snapshot, moment, entryId);
    return snapshot;
  }
}

/** Every snapshot id a session file's entries refer to (for pruning), read from its JSONL text. */
export function snapshotsInSessionText(text: string): string[] {
  const ids: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.includes(CHECKPOINT_CUSTOM_TYPE)) continue;
    try {
      const entry = JSON.parse(line) as SessionEntry;
      const data = checkpointOf(entry);
      if (data) ids.push(data.snapshot);
    } catch {
      // A damaged line refers to nothing.
    }
  }
  return ids;
}
