import * as vscode from "vscode";
import type { ApprovalAnswer, ApprovalRequest } from "../core/agent/safety/approvals";
import { approvalDialog, type ApprovalDialog } from "./approval-dialog";

export { ALLOW_FILE_FOR_SESSION, ALLOW_FOR_SESSION, ALLOW_ONCE, approvalDialog, commandPreview, DENY, visibleText, type ApprovalDialog } from "./approval-dialog";

/** Shows a dialog and resolves with the title of the button chosen, or undefined when it was dismissed. */
export type ApprovalPresenter = (dialog: ApprovalDialog) => Thenable<string | undefined> | string | undefined;

/** VS Code's own modal, as its agent mode asks before running a terminal command. */
const showModal: ApprovalPresenter = (dialog) => {
  const items: vscode.MessageItem[] = dialog.buttons.map((button, i) => ({ title: button.title, isCloseAffordance: i === dialog.buttons.length - 1 }));
  return vscode.window.showWarningMessage(dialog.message, { modal: true, detail: dialog.detail }, ...items).then((item) => item?.title);
};

/**
 * Asks the user to approve what the agent is about to do, one dialog at a time. A dismissed dialog
 * is a denial. A stopped run's dialog cannot be taken down (VS Code modals cannot be closed from
 * code); its late answer is ignored by the session.
 */
export class ToolApprovals {
  private presenter: ApprovalPresenter = showModal;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly log: vscode.LogOutputChannel) {}

  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const next = this.queue.then(async (): Promise<ApprovalAnswer> => {
      if (signal.aborted) return "deny";
      const dialog = approvalDialog(request);
      const title = await this.presenter(dialog);
      const answer = dialog.buttons.find((b) => b.title === title)?.answer ?? "deny";
      this.log.info(`approval (${request.kind}): ${answer}${signal.aborted ? " (after the run was stopped)" : ""}`);
      return answer;
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Test seam, offered only under ARBOR_TEST_HOOKS=1: dialogs go to `presenter` (which sees what the
   * user would see and answers with a button title) until the returned disposable is disposed.
   */
  interceptForTests(presenter: ApprovalPresenter): vscode.Disposable {
    this.presenter = presenter;
    return new vscode.Disposable(() => {
      if (this.presenter === presenter) this.presenter = showModal;
    });
  }
}
