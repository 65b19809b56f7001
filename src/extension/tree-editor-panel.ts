import * as vscode from "vscode";
import { DisposableStore } from "../core/util/disposable";
import type { TreeHub } from "../protocol/tree-host";
import { connectTreeWebview, treeHtml, treeWebviewOptions, type TreeRecorder } from "./tree-webview";
import { offerReload, watchWebviewStart } from "./webview-start";

/** The webview panel type of the Conversation Tree in an editor tab. */
export const TREE_EDITOR_VIEW_TYPE = "arbor.conversationTreeEditor";

/**
 * "Arbor: Open Conversation Tree in Editor": the same tree as the side view, in an editor tab, with
 * the selected entry's details beside it. It connects to the same hub as the side view, so a
 * checkout, a selection, a filter or a fold in either shows in both.
 */
export class TreeEditorPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private readonly panelDisposables = new DisposableStore();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly hub: TreeHub,
    private readonly log: Pick<vscode.LogOutputChannel, "warn" | "info">,
    private readonly recorder?: TreeRecorder,
  ) {}

  /** Opens the tab, or brings the open one to the front. */
  open(): void {
    if (this.panel) {
      this.panel.reveal(undefined, false);
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      TREE_EDITOR_VIEW_TYPE,
      "Conversation Tree",
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      treeWebviewOptions(this.extensionUri),
    );
    this.adopt(panel);
  }

  /** Restores a tab that was open when the window closed. */
  registerSerializer(): vscode.Disposable {
    return vscode.window.registerWebviewPanelSerializer(TREE_EDITOR_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel: vscode.WebviewPanel) => {
        if (this.panel) {
          // One tree tab per window: a second restored one closes.
          panel.dispose();
          return;
        }
        this.adopt(panel);
      },
    });
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.panelDisposables.clear();
    this.panel = panel;
    panel.iconPath = {
      light: vscode.Uri.joinPath(this.extensionUri, "media", "arbor.svg"),
      dark: vscode.Uri.joinPath(this.extensionUri, "media", "arbor.svg"),
    };
    panel.webview.options = treeWebviewOptions(this.extensionUri);
    const render = () => treeHtml(panel.webview, this.extensionUri, "editor");
    this.panelDisposables.add(connectTreeWebview(panel.webview, this.hub, this.recorder, { get visible() { return panel.visible; }, changed: panel.onDidChangeViewState }));
    this.panelDisposables.add(watchWebviewStart(panel.webview, { render, visible: () => panel.visible, name: "Conversation Tree tab", log: this.log, gaveUp: offerReload }));
    this.panelDisposables.add(
      panel.onDidDispose(() => {
        if (this.panel === panel) this.panel = undefined;
        this.panelDisposables.clear();
      }),
    );
  }

  dispose(): void {
    this.panelDisposables.dispose();
    this.panel?.dispose();
    this.panel = undefined;
  }
}
