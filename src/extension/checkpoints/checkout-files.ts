import * as vscode from "vscode";
import { describeRestore, filesAt, type CheckpointStore, type RestorePlan, type RestoreReport } from "../../core/checkpoints";
import type { SessionManager } from "../../core/session/session-manager";
import { showPick } from "../quick-pick-probe";
import { fileUri, snapshotUri, type CheckpointService } from "./checkpoint-service";

/** What a checkout takes along: the conversation, the files, or both. */
export type FilesChoice = "both" | "conversation" | "files";

/** A restore a checkout could do. */
export interface CheckoutFiles {
  store: CheckpointStore;
  plan: RestorePlan;
}

export const UNDO_FILE_RESTORE_COMMAND = "arbor.undoFileRestore";

/** Files open with unsaved changes. */
export function dirtyFiles(): string[] {
  return vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === "file").map((d) => d.uri.fsPath);
}

/**
 * The restore a checkout to `target` would do, when the files there differ from the workspace.
 * None in Restricted Mode (snapshots are taken there, never restored) or without a snapshot.
 */
export async function checkoutFiles(service: CheckpointService, sm: SessionManager, target: string | null): Promise<CheckoutFiles | undefined> {
  if (!vscode.workspace.isTrusted) return undefined;
  const at = filesAt(sm, target);
  if (!at) return undefined;
  const store = await service.storeFor(sm.getCwd());
  if (!store || !(await store.has(at.snapshot))) return undefined;
  const plan = await store.plan(at.snapshot, dirtyFiles());
  return plan.steps.length > 0 ? { store, plan } : undefined;
}

/** Asks once what the checkout takes along (or takes the setting's answer). */
export async function askFilesChoice(service: CheckpointService, plan: RestorePlan): Promise<FilesChoice | undefined> {
  const setting = service.restoreOnCheckout();
  if (setting === "conversationAndFiles") return "both";
  if (setting === "conversationOnly") return "conversation";
  const n = plan.steps.length;
  const items: (vscode.QuickPickItem & { choice: FilesChoice })[] = [
    { label: "Conversation and files", description: `${n} ${n === 1 ? "file differs" : "files differ"}`, choice: "both" },
    { label: "Conversation only", description: "leave the files as they are", choice: "conversation" },
    { label: "Files only", description: "stay at this point of the conversation", choice: "files" },
  ];
  const pick = await showPick(items, { title: "Check out", placeHolder: "The files at that point differ from the workspace. What should the checkout take?" });
  return pick?.choice;
}

/** Applies a checkout's restore, asking first about unsaved files, and reports it. */
export async function restoreFiles(service: CheckpointService, files: CheckoutFiles): Promise<RestoreReport | undefined> {
  const { store, plan } = files;
  if (plan.unsaved.length > 0) {
    const go = "Restore Files";
    const answer = await vscode.window.showWarningMessage(
      `These files have unsaved changes that the restore would overwrite on disk: ${plan.unsaved.join(", ")}. Restore them anyway? (The current files are kept for "Undo File Restore"; unsaved editor text is not.)`,
      { modal: true },
      go,
    );
    if (answer !== go) return undefined;
  }
  const report = await store.apply(plan);
  return reportRestore(service, store, report);
}

async function reportRestore(service: CheckpointService, store: CheckpointStore, report: RestoreReport): Promise<RestoreReport> {
  if (!report.ok) {
    const failed = report.failed.map((f) => `${f.path} (${f.error})`).join(", ");
    const back = report.rolledBack ? "Every file already written was put back." : `These could not be put back: ${(report.rollbackFailed ?? []).map((f) => f.path).join(", ")}.`;
    void vscode.window.showErrorMessage(`The file restore failed at ${failed}. ${back}`);
    return report;
  }
  service.lastRestore = { store, report };
  const show = "Show Changes";
  const undo = "Undo File Restore";
  void vscode.window.showInformationMessage(describeRestore(report.counts), show, undo).then((answer) => {
    if (answer === show) void showChanges(store, report);
    if (answer === undo) void vscode.commands.executeCommand(UNDO_FILE_RESTORE_COMMAND);
  });
  return report;
}

/** Opens VS Code's multi-file diff: each restored file before the restore and now. */
export async function showChanges(store: CheckpointStore, report: RestoreReport): Promise<void> {
  const changes = await store.diff(report.from, report.to);
  const resources = changes.map((c) => [fileUri(store.workspace, c.path), snapshotUri(store.workspace, report.from, c.path), snapshotUri(store.workspace, report.to, c.path)]);
  await vscode.commands.executeCommand("vscode.changes", "Files restored by the checkout", resources);
}

/** "Undo File Restore": puts back the files as they were before this window's last restore. */
export function registerUndoFileRestore(service: CheckpointService): vscode.Disposable {
  return vscode.commands.registerCommand(UNDO_FILE_RESTORE_COMMAND, async () => {
    const last = service.lastRestore;
    if (!last) return void vscode.window.showInformationMessage("There is no file restore to undo in this window.");
    if (!vscode.workspace.isTrusted) return void vscode.window.showInformationMessage("Files are not restored in Restricted Mode.");
    const plan = await last.store.plan(last.report.from, dirtyFiles());
    await restoreFiles(service, { store: last.store, plan });
  });
}
