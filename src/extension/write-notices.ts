import * as vscode from "vscode";
import type { SessionChange } from "../core/session/session-manager";
import type { SessionHost } from "./session-host";

export const SAVE_AS_NEW_COMMAND = "arbor.saveAsNewSession";
const SAVE_AS_NEW = vscode.l10n.t("Save as New Session");
const RETRY = vscode.l10n.t("Retry");

/**
 * Tells the user when what they wrote has not reached the session file: a write that failed (a
 * full disk, an I/O error), with Retry and Save as New Session, and a file replaced or deleted
 * while open, with Save as New Session. Failures of background writes (checkout markers, agent
 * output) would otherwise only reach the log. One notification per failure, not one per retry.
 */
export class WriteNotices implements vscode.Disposable {
  private readonly subscription: vscode.Disposable;
  /** The failure the user was last told about (cleared once everything is saved again). */
  private shown: string | undefined;

  constructor(
    private readonly host: SessionHost,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscription = host.onDidChange((c) => this.onChange(c));
  }

  private onChange(change: SessionChange): void {
    if (change.kind === "read-only" && change.replaced) {
      this.shown = change.reason;
      void this.offer(vscode.window.showWarningMessage(change.reason, SAVE_AS_NEW));
      return;
    }
    if (change.kind !== "unsaved") return;
    if (change.ids.length === 0) {
      if (this.shown !== undefined) vscode.window.setStatusBarMessage("$(check) Arbor: every entry is saved to the session file again", 5000);
      this.shown = undefined;
      return;
    }
    const reason = change.error?.message ?? "the write failed";
    // A replaced file has its own notice; a lost lock turns the window read-only with a banner.
    if (this.host.current?.isReadOnly() || this.shown === reason) return;
    this.shown = reason;
    const message =
      change.ids.length === 1
        ? vscode.l10n.t("Arbor could not save to the session file: {0}. 1 entry is kept in this window (marked in the Conversation Tree) and Arbor tries again.", reason)
        : vscode.l10n.t("Arbor could not save to the session file: {0}. {1} entries are kept in this window (marked in the Conversation Tree) and Arbor tries again.", reason, change.ids.length);
    this.log.warn(message);
    void this.offer(vscode.window.showErrorMessage(message, RETRY, SAVE_AS_NEW));
  }

  private async offer(answer: Thenable<string | undefined>): Promise<void> {
    const choice = await answer;
    if (choice === SAVE_AS_NEW) await vscode.commands.executeCommand(SAVE_AS_NEW_COMMAND);
    else if (choice === RETRY) {
      this.shown = undefined;
      await this.host.current?.flush().catch(() => undefined);
    }
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
