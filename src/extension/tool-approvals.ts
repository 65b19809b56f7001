import * as vscode from "vscode";
import type { ApprovalAnswer, ApprovalRequest } from "../core/agent/safety/approvals";

/** What one approval dialog shows. */
export interface ApprovalDialog {
  /** The question, in bold. */
  message: string;
  /** Exactly what would run or be written, and where. */
  detail: string;
  /** The buttons in order; the last one (Deny) is also what Escape or closing the dialog means. */
  buttons: readonly { title: string; answer: ApprovalAnswer }[];
}

/** Shows a dialog and resolves with the title of the button chosen, or undefined when it was dismissed. */
export type ApprovalPresenter = (dialog: ApprovalDialog) => Thenable<string | undefined> | string | undefined;

export const ALLOW_ONCE = "Allow Once";
export const ALLOW_FOR_SESSION = "Allow for This Session";
export const DENY = "Deny";

/** Longer commands are shown up to here, with a note that the rest runs too. */
const MAX_SHOWN_CHARACTERS = 8000;

/**
 * Text from the model made safe to review: control characters and the Unicode marks that reorder
 * or hide text are shown as escapes, so what the dialog shows is what the shell gets.
 */
export function visibleText(text: string): string {
  const shown = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
  if (shown.length <= MAX_SHOWN_CHARACTERS) return shown;
  return `${shown.slice(0, MAX_SHOWN_CHARACTERS)}\n… (${shown.length - MAX_SHOWN_CHARACTERS} more characters not shown; allowing runs all of it)`;
}

function folderList(folders: readonly string[]): string {
  return folders.length === 0 ? "no folder is open" : folders.join(", ");
}

/** The dialog for a request: the question, what exactly is at stake, and the answers that fit it. */
export function approvalDialog(request: ApprovalRequest): ApprovalDialog {
  const all = [
    { title: ALLOW_ONCE, answer: "once" as const },
    { title: ALLOW_FOR_SESSION, answer: "session" as const },
    { title: DENY, answer: "deny" as const },
  ];
  switch (request.kind) {
    case "command":
      return {
        message: "The agent wants to run this command",
        detail: `${visibleText(request.command)}\n\nin ${request.cwd}\n\n"${ALLOW_FOR_SESSION}" also runs the agent's later commands in this session without asking.`,
        buttons: all,
      };
    case "outside-read":
      return {
        message: `The agent wants to ${request.toolName === "read" ? "read a file" : `search (${request.toolName})`} outside the workspace`,
        detail:
          `${visibleText(request.path)}\n\nThe session's folder: ${request.cwd}\nThe workspace: ${folderList(request.workspaceFolders)}\n\n` +
          `"${ALLOW_FOR_SESSION}" also lets the agent's later reads outside the workspace through, in this session.`,
        buttons: all,
      };
    case "outside-write":
      return {
        message: `The agent wants to ${request.toolName === "edit" ? "edit" : "write"} a file outside the workspace`,
        detail:
          `${visibleText(request.path)}\n\nThe workspace: ${folderList(request.workspaceFolders)}\n\n` +
          `"${ALLOW_FOR_SESSION}" also lets the agent's later changes outside the workspace through, in this session (always inside its folder, ${request.cwd}).`,
        buttons: all,
      };
    case "working-folder":
      return {
        message: "This session works in a folder outside the open workspace",
        detail:
          `${visibleText(request.cwd)}\n\nThe session's file names this folder as its working folder. Let the agent's tools read files, change them and run commands there for this session?\n\n` +
          `The open workspace: ${folderList(request.workspaceFolders)}`,
        buttons: all.slice(1),
      };
  }
}

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
