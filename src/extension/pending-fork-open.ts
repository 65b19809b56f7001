import * as vscode from "vscode";
import { takePendingOpen } from "../core/session/pending-open";
import { assertKnownSessionFile } from "../core/session/session-file-check";
import type { SessionHost } from "./session-host";

/**
 * A window opened for a fork into a new git worktree opens the forked session as Arbor starts
 * there (the record another window left in the global storage for this folder, see
 * core/session/pending-open.ts). Only in a trusted workspace, since opening a session takes its
 * writer lock: in Restricted Mode the record waits until the folder is trusted. The session file
 * must be in a sessions folder Arbor knows. Resolves once done (true when a session was opened).
 */
export async function openPendingFork(host: SessionHost, storageDir: string, log: vscode.LogOutputChannel, editText: (text: string) => void): Promise<boolean> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (folder?.scheme !== "file") return false;
  if (!vscode.workspace.isTrusted) {
    return new Promise((resolve) => {
      const once = vscode.workspace.onDidGrantWorkspaceTrust(() => {
        once.dispose();
        resolve(openPendingFork(host, storageDir, log, editText));
      });
    });
  }
  const record = await takePendingOpen(storageDir, folder.fsPath);
  if (!record) return false;
  try {
    if (record.file) {
      const file = await assertKnownSessionFile(record.file, host.knownSessionFolders());
      log.info(`opening the session forked into this worktree: ${file}`);
      if (!(await host.open(file))) return false;
    } else {
      log.info("starting a new session for the fork into this worktree (its path held no reply yet)");
      if (!(await host.create())) return false;
    }
  } catch (error) {
    log.warn(`not opening the forked session ${record.file ?? ""}: ${(error as Error).message}`);
    void vscode.window.showWarningMessage(vscode.l10n.t("Arbor could not open the session forked into this folder: {0}", (error as Error).message));
    return false;
  }
  if (record.editText !== undefined) editText(record.editText);
  return true;
}
