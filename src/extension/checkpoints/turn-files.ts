import * as vscode from "vscode";
import { checkpointOf, type CheckpointEntryData } from "../../core/checkpoints";
import type { SessionReader } from "../../core/session/session-reader";
import type { SessionEntry } from "../../core/session/types";
import { LIMITS, type TurnFileChange, type TurnFiles } from "../../protocol/messages";
import { fileUri, snapshotUri, type CheckpointService } from "./checkpoint-service";

/** The snapshot recorded at an entry and the one before it on its path. */
interface TurnSnapshots {
  snapshot: string;
  previous: string | undefined;
  data: CheckpointEntryData;
}

/**
 * The checkpoint recorded at an entry (the entry itself, or the latest one right under it: the
 * files as the leaf left it), and the nearest checkpoint above it on the path: what the turn started from.
 */
export function turnSnapshots(sm: SessionReader, entryId: string): TurnSnapshots | undefined {
  const entry = sm.getEntry(entryId);
  if (!entry) return undefined;
  let at: SessionEntry | undefined = checkpointOf(entry) ? entry : undefined;
  if (!at) {
    const children = sm.getChildren(entryId).filter((c) => checkpointOf(c) !== undefined);
    at = children[children.length - 1];
  }
  const data = checkpointOf(at);
  if (!at || !data) return undefined;
  let previous: string | undefined;
  if (at.parentId !== null) {
    const path = sm.getPathIds(at.parentId);
    for (let i = path.length - 1; i >= 0 && previous === undefined; i--) previous = checkpointOf(sm.getEntry(path[i]!))?.snapshot;
  }
  return { snapshot: data.snapshot, previous, data };
}

const sum = (c: CheckpointEntryData["counts"]): number => c.added + c.modified + c.deleted;

/** The files the turn at an entry changed, with their line counts where the store can tell. */
export async function turnFilesAt(service: CheckpointService, sm: SessionReader, entryId: string): Promise<TurnFiles | undefined> {
  const turn = turnSnapshots(sm, entryId);
  if (!turn) return undefined;
  if (turn.previous === undefined) return { changes: [], total: sum(turn.data.counts), first: true };
  const store = await service.storeFor(sm.getCwd());
  if (store && (await store.has(turn.previous)) && (await store.has(turn.snapshot))) {
    const diff = await store.diff(turn.previous, turn.snapshot);
    const changes = diff.flatMap((c): TurnFileChange[] =>
      c.kind === "added" || c.kind === "modified" || c.kind === "deleted" ? [{ path: c.path, kind: c.kind, linesAdded: c.linesAdded ?? null, linesDeleted: c.linesDeleted ?? null }] : [],
    );
    return { changes: changes.slice(0, LIMITS.filesPerCompaction), total: changes.length, first: false };
  }
  // The store is gone (pruned, another machine): what the entry recorded, without line counts.
  const recorded = (kind: TurnFileChange["kind"], paths: readonly string[]): TurnFileChange[] => paths.map((path) => ({ path, kind, linesAdded: null, linesDeleted: null }));
  const changes = [...recorded("added", turn.data.added), ...recorded("modified", turn.data.modified), ...recorded("deleted", turn.data.deleted)];
  return { changes: changes.slice(0, LIMITS.filesPerCompaction), total: sum(turn.data.counts), first: false };
}

/** Opens the diff of one file the turn changed, or of all of them in VS Code's multi-file diff. */
export async function openTurnChange(service: CheckpointService, sm: SessionReader, entryId: string, path: string | null): Promise<void> {
  const turn = turnSnapshots(sm, entryId);
  if (!turn?.previous) return;
  const store = await service.storeFor(sm.getCwd());
  if (!store) {
    void vscode.window.showInformationMessage(vscode.l10n.t("The files recorded here are no longer in the checkpoint store."));
    return;
  }
  const { previous, snapshot } = turn;
  const workspace = store.workspace;
  if (path !== null) {
    await vscode.commands.executeCommand("vscode.diff", snapshotUri(workspace, previous, path), snapshotUri(workspace, snapshot, path), vscode.l10n.t("{0} (this turn)", path));
    return;
  }
  const resources = (await store.diff(previous, snapshot)).map((c) => [fileUri(workspace, c.path), snapshotUri(workspace, previous, c.path), snapshotUri(workspace, snapshot, c.path)]);
  await vscode.commands.executeCommand("vscode.changes", vscode.l10n.t("Files this turn changed"), resources);
}
