import * as vscode from "vscode";
import { referencedSnapshots } from "../../core/checkpoints";
import type { SessionHost } from "../session-host";
import type { CheckpointService } from "./checkpoint-service";

export const PRUNE_CHECKPOINTS_COMMAND = "arbor.pruneCheckpoints";

export function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * "Prune Checkpoints...": shows what this workspace's checkpoints take and removes the snapshots no
 * session file refers to any more (the last snapshot and this window's undo point are kept).
 */
export function registerPruneCheckpoints(service: CheckpointService, host: SessionHost): vscode.Disposable {
  return vscode.commands.registerCommand(PRUNE_CHECKPOINTS_COMMAND, async () => {
    const cwd = host.current?.getCwd() ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const store = cwd ? await service.storeFor(cwd) : undefined;
    if (!store) return void vscode.window.showInformationMessage("There are no file checkpoints for this workspace.");
    await host.current?.flush();
    const bytes = await store.storageBytes();
    const prune = "Prune";
    const answer = await vscode.window.showInformationMessage(
      `The file checkpoints of ${store.workspace} take ${megabytes(bytes)}. Remove the snapshots that no session refers to any more?`,
      { modal: true },
      prune,
    );
    if (answer !== prune) return;
    const folders = host.knownSessionFolders();
    const { ids, complete } = await referencedSnapshots([folders.sessionsRoot, ...(folders.explicitDir ? [folders.explicitDir] : [])]);
    if (!complete) return void vscode.window.showWarningMessage("Some session files could not be read, so no checkpoint was pruned.");
    const last = service.lastRestore;
    if (last) ids.add(last.report.from);
    const result = await store.prune(ids);
    void vscode.window.showInformationMessage(`Pruned ${result.removed} ${result.removed === 1 ? "snapshot" : "snapshots"}: ${megabytes(result.bytesBefore)} → ${megabytes(result.bytesAfter)}.`);
  });
}
