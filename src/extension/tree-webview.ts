import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import type { HostToWebviewMessage } from "../protocol/messages";
import { preparedSessions } from "../core/session/session-preparer";
import type { TreeHub } from "../protocol/tree-host";
import { renderWebviewHtml } from "../protocol/webview-html";

/** Webview options for a Conversation Tree: scripts on, and only the built assets loadable. */
export function treeWebviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, "dist"), vscode.Uri.joinPath(extensionUri, "media")],
  };
}

/** The tree page for a webview, with a fresh nonce. */
export function treeHtml(webview: vscode.Webview, extensionUri: vscode.Uri, layout: "view" | "editor"): string {
  const dist = vscode.Uri.joinPath(extensionUri, "dist");
  const media = vscode.Uri.joinPath(extensionUri, "media");
  return renderWebviewHtml({
    nonce: randomBytes(18).toString("base64"),
    cspSource: webview.cspSource,
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, "tree.js")).toString(),
    styleUri: webview.asWebviewUri(vscode.Uri.joinPath(media, "tree.css")).toString(),
    codiconUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, "codicons", "codicon.css")).toString(),
    title: "Conversation Tree",
    layout,
  });
}

/** Sees the messages crossing (Arbor's own extension-host tests record them). */
export interface TreeRecorder {
  posted(message: HostToWebviewMessage): void;
  received(message: unknown): void;
}

/** Where a webview is shown: VS Code drops the page of a hidden one (no retainContextWhenHidden). */
export interface TreeWebviewShown {
  readonly visible: boolean;
  readonly changed: vscode.Event<unknown>;
}

/**
 * Connects a webview to the hub: its messages go to a port (validated there), the port's
 * messages to the webview. Dispose to disconnect. With `shown`, hiding the webview tells the port
 * that its page is gone (a reveal meanwhile then waits for the page that comes back).
 */
export function connectTreeWebview(webview: vscode.Webview, hub: TreeHub, recorder?: TreeRecorder, shown?: TreeWebviewShown): vscode.Disposable {
  const port = hub.connect((message) => {
    recorder?.posted(message);
    void webview.postMessage(message);
  });
  const visibility = shown?.changed(() => {
    if (!shown.visible) port.pageDropped();
  });
  const sub = webview.onDidReceiveMessage((m: unknown) => {
    recorder?.received(m);
    // Background indexing waits while the user works in the tree.
    preparedSessions.userActive();
    port.receive(m);
  });
  return new vscode.Disposable(() => {
    sub.dispose();
    visibility?.dispose();
    port.dispose();
  });
}
