/**
 * Pi's `ctx.ui` drawn with VS Code's own widgets: notifications for `notify`, a quick pick for
 * `select` and `confirm` (a quick pick, not a modal dialog, because Pi's `timeout` and `signal`
 * must be able to close it, and VS Code cannot close a message box from code), an input box for
 * `input`, an untitled document for `editor`, one status-bar item per extension and key for
 * `setStatus`, a progress notification for Pi's loaders (`custom()` with a loader), the chat's input for `setEditorText`, and the chat's own chrome for widgets, the title,
 * the working indicator and the thinking label. Every title names the extension that asks.
 */
import * as vscode from "vscode";
import { ExtensionChrome, type ExtensionUiState } from "../../core/pi-extensions/chrome";
import type { DialogOptions, NotifyType, PiUiHost } from "../../core/pi-extensions/pi-ui";

export interface VscodePiUiDeps {
  /** Puts text in the chat's input and shows the chat. */
  setChatInput(text: string): void;
  /** The chat input's current text (as last sent or set). */
  getChatInput(): string;
  /** What the extensions show in the chat's chrome changed (widgets, title, working indicator, thinking label). */
  chromeChanged(state: ExtensionUiState): void;
}

const YES = "Yes";
const NO = "No";

/** Closes a quick pick or input box at the dialog's timeout or when its signal aborts. */
function closeOn(widget: { hide(): void }, options: DialogOptions): vscode.Disposable {
  const timer = options.timeout && options.timeout > 0 ? setTimeout(() => widget.hide(), options.timeout) : undefined;
  const abort = (): void => widget.hide();
  options.signal?.addEventListener("abort", abort, { once: true });
  return new vscode.Disposable(() => {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", abort);
  });
}

/** One quick pick over `labels`; resolves to the chosen label, or undefined when dismissed. */
function pick(title: string, placeholder: string | undefined, labels: string[], options: DialogOptions): Promise<string | undefined> {
  // As in Pi, a dialog whose signal has already aborted is never shown.
  if (options.signal?.aborted) return Promise.resolve(undefined);
  const quickPick = vscode.window.createQuickPick();
  quickPick.title = title;
  quickPick.placeholder = placeholder;
  quickPick.items = labels.map((label) => ({ label }));
  quickPick.ignoreFocusOut = true;
  return new Promise((resolve) => {
    let chosen: string | undefined;
    const closer = closeOn(quickPick, options);
    quickPick.onDidAccept(() => {
      chosen = quickPick.selectedItems[0]?.label;
      quickPick.hide();
    });
    quickPick.onDidHide(() => {
      closer.dispose();
      quickPick.dispose();
      resolve(chosen);
    });
    quickPick.show();
  });
}

/** Closes the tabs of an untitled document without the save prompt (emptied first, so it is no longer dirty). */
async function closeUntitled(document: vscode.TextDocument): Promise<void> {
  if (document.isClosed) return;
  const edit = new vscode.WorkspaceEdit();
  edit.delete(document.uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)));
  await vscode.workspace.applyEdit(edit);
  const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === document.uri.toString());
  if (tabs.length) await vscode.window.tabGroups.close(tabs);
}

export class VscodePiUi implements PiUiHost, vscode.Disposable {
  private readonly statusItems = new Map<string, vscode.StatusBarItem>();
  readonly chrome: ExtensionChrome;

  constructor(private readonly deps: VscodePiUiDeps) {
    this.chrome = new ExtensionChrome((state) => deps.chromeChanged(state));
  }

  notify(extension: string, message: string, type: NotifyType): void {
    const text = `${extension}: ${message}`;
    if (type === "error") void vscode.window.showErrorMessage(text);
    else if (type === "warning") void vscode.window.showWarningMessage(text);
    else void vscode.window.showInformationMessage(text);
  }

  async confirm(extension: string, title: string, message: string, options: DialogOptions): Promise<boolean> {
    return (await pick(`${extension}: ${title}`, message, [YES, NO], options)) === YES;
  }

  select(extension: string, title: string, choices: string[], options: DialogOptions): Promise<string | undefined> {
    return pick(`${extension}: ${title}`, undefined, choices.map(String), options);
  }

  input(extension: string, title: string, placeholder: string | undefined, options: DialogOptions): Promise<string | undefined> {
    if (options.signal?.aborted) return Promise.resolve(undefined);
    const box = vscode.window.createInputBox();
    box.title = `${extension}: ${title}`;
    box.placeholder = placeholder;
    box.ignoreFocusOut = true;
    return new Promise((resolve) => {
      let value: string | undefined;
      const closer = closeOn(box, options);
      box.onDidAccept(() => {
        value = box.value;
        box.hide();
      });
      box.onDidHide(() => {
        closer.dispose();
        box.dispose();
        resolve(value);
      });
      box.show();
    });
  }

  /**
   * Pi's multi-line editor: an untitled document; the text is taken when the user picks Done. Either
   * way the editor closes afterwards without asking to save (its text went to the extension, or was
   * dismissed with the dialog).
   */
  async editor(extension: string, title: string, prefill: string | undefined): Promise<string | undefined> {
    const document = await vscode.workspace.openTextDocument({ content: prefill ?? "" });
    await vscode.window.showTextDocument(document, { preview: false });
    const done = await vscode.window.showInformationMessage(`${extension}: ${title}`, { detail: "Edit the text in the new editor, then choose Done." }, "Done");
    const text = document.getText();
    await closeUntitled(document);
    return done === "Done" ? text : undefined;
  }

  setStatus(extension: string, key: string, text: string | undefined): void {
    const id = `${extension}/${key}`;
    let item = this.statusItems.get(id);
    if (text === undefined || text === "") {
      item?.dispose();
      this.statusItems.delete(id);
      return;
    }
    if (!item) {
      item = vscode.window.createStatusBarItem(`arbor.pi.${id}`, vscode.StatusBarAlignment.Left, 10);
      item.name = `Arbor extension ${extension}`;
      this.statusItems.set(id, item);
    }
    item.text = text.replace(/\s*\n\s*/g, " ");
    item.tooltip = `${extension} (${key})`;
    item.show();
  }

  /** The status items shown now, by "extension/key" (for the Extensions list and tests). */
  statuses(): Map<string, string> {
    return new Map([...this.statusItems].map(([id, item]) => [id, item.text]));
  }

  /** Pi's loader: VS Code's progress notification, titled with the extension, with Cancel when the loader takes Escape. */
  progress(extension: string, message: string, cancellable: boolean, cancel: () => void): { close(): void } {
    let close: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (close = resolve));
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `${extension}: ${message}`, cancellable }, (_progress, token) => {
      const sub = token.onCancellationRequested(() => {
        close();
        cancel();
      });
      return closed.finally(() => sub.dispose());
    });
    return { close };
  }

  setEditorText(_extension: string, text: string): void {
    this.deps.setChatInput(text);
  }

  getEditorText(): string {
    return this.deps.getChatInput();
  }

  /** The session's extensions ended: their status items and what they showed in the chat go with them. */
  sessionEnded(): void {
    for (const item of this.statusItems.values()) item.dispose();
    this.statusItems.clear();
    this.chrome.clear();
  }

  dispose(): void {
    for (const item of this.statusItems.values()) item.dispose();
    this.statusItems.clear();
  }
}
