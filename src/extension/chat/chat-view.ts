import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { preparedSessions } from "../../core/session/session-preparer";
import { DisposableStore } from "../../core/util/disposable";
import type { HostToChatMessage } from "../../protocol/chat-messages";
import { renderWebviewHtml } from "../../protocol/webview-html";
import type { ChatController, ChatSurface } from "./chat-controller";
import { offerReload, watchWebviewStart, type StartAttempts, type StartWatch } from "../webview-start";

export const CHAT_VIEW_ID = "arbor.chat";
export const CHAT_PANEL_TYPE = "arbor.chatPanel";

/** Fills a webview with the chat page (strict CSP with a nonce; images only as data) and wires it to the controller. */
function bindChatWebview(webview: vscode.Webview, extensionUri: vscode.Uri, controller: ChatController, store: DisposableStore, visible: () => boolean, start: Omit<StartWatch, "render" | "visible">): ChatSurface {
  const dist = vscode.Uri.joinPath(extensionUri, "dist");
  const media = vscode.Uri.joinPath(extensionUri, "media");
  webview.options = { enableScripts: true, localResourceRoots: [dist, media] };
  const render = () => renderWebviewHtml({
    nonce: randomBytes(18).toString("base64"),
    cspSource: webview.cspSource,
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, "chat.js")).toString(),
    styleUri: webview.asWebviewUri(vscode.Uri.joinPath(media, "chat.css")).toString(),
    codiconUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, "codicons", "codicon.css")).toString(),
    title: "Arbor Chat",
    dataImages: true,
  });
  const surface: ChatSurface = {
    post: (message: HostToChatMessage) => void webview.postMessage(message),
    get visible() {
      return visible();
    },
  };
  store.add(controller.attach(surface));
  store.add(
    webview.onDidReceiveMessage((m: unknown) => {
      // Background indexing waits while the user works in the chat.
      preparedSessions.userActive();
      controller.receive(surface, m);
    }),
  );
  store.add(watchWebviewStart(webview, { ...start, render, visible }));
  return surface;
}

/**
 * The chat in the Arbor container (beside the Conversation Tree) and, on demand, in an editor
 * tab. Both are views of one ChatController: what one shows, the other shows.
 */
export class ChatViews implements vscode.WebviewViewProvider, vscode.Disposable {
  private readonly viewStore = new DisposableStore();
  private readonly panelStore = new DisposableStore();
  /** Recoveries of the side view that never started (see watchWebviewStart), across its re-creations. */
  private readonly startAttempts: StartAttempts = { used: 0 };
  private view: vscode.WebviewView | undefined;
  private panel: vscode.WebviewPanel | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly controller: ChatController,
    private readonly log: Pick<vscode.LogOutputChannel, "warn" | "info">,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.viewStore.clear();
    this.view = view;
    bindChatWebview(view.webview, this.extensionUri, this.controller, this.viewStore, () => view.visible, { name: "Chat", log: this.log, attempts: this.startAttempts, gaveUp: offerReload });
    this.viewStore.add(
      view.onDidDispose(() => {
        if (this.view === view) this.view = undefined;
        this.viewStore.clear();
      }),
    );
  }

  /** Opens (or reveals) the chat in an editor tab beside the active editor. */
  openInEditor(): void {
    if (this.panel) {
      this.panel.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel(CHAT_PANEL_TYPE, "Arbor Chat", { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, { enableScripts: true, retainContextWhenHidden: false });
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, "media", "arbor.svg");
    this.panel = panel;
    bindChatWebview(panel.webview, this.extensionUri, this.controller, this.panelStore, () => panel.visible, { name: "Chat tab", log: this.log, gaveUp: offerReload });
    this.panelStore.add(
      panel.onDidDispose(() => {
        this.panel = undefined;
        this.panelStore.clear();
      }),
    );
  }

  /** Shows the chat where the user has it: the editor tab if open, else the side view. */
  async reveal(): Promise<void> {
    if (this.panel) this.panel.reveal(undefined, false);
    else await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  get isOpen(): boolean {
    return this.view !== undefined || this.panel !== undefined;
  }

  dispose(): void {
    this.viewStore.dispose();
    this.panel?.dispose();
    this.panelStore.dispose();
  }
}
