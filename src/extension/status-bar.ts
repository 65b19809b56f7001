import * as vscode from "vscode";
import { DisposableStore } from "../core/util/disposable";
import type { SessionHost } from "./session-host";

/** The status-bar item: the current session's name and model; a click resumes another session. */
export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("arbor.session", vscode.StatusBarAlignment.Left, 50);
  private readonly disposables = new DisposableStore();

  constructor(private readonly host: SessionHost) {
    this.item.name = "Arbor Session";
    this.item.command = "arbor.resumeSession";
    this.disposables.add(host.onDidChangeSession(() => this.update()));
    this.disposables.add(host.onDidChange((c) => (c.kind === "name" || c.kind === "read-only" || c.kind === "entries") && this.update()));
    this.update();
  }

  private update(): void {
    const sm = this.host.current;
    if (!sm) {
      this.item.hide();
      return;
    }
    const name = sm.getSessionName() ?? "Untitled session";
    const model = sm.getCurrentModel();
    const ro = sm.isReadOnly() ? " $(lock)" : "";
    this.item.text = `$(list-tree) ${name.length > 30 ? `${name.slice(0, 29)}…` : name}${model ? ` · ${model.modelId}` : ""}${ro}`;
    this.item.tooltip = `${name}\n${sm.getSessionFile() ?? "not saved yet"}${model ? `\nmodel: ${model.provider}/${model.modelId}` : ""}${sm.isReadOnly() ? `\nread-only: ${sm.getReadOnlyReason()}` : ""}\nClick to resume another session`;
    this.item.show();
  }

  dispose(): void {
    this.disposables.dispose();
    this.item.dispose();
  }
}
