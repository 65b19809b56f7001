import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import type { SessionChange, SessionManager } from "../core/session/session-manager";
import type { CompactionDetails } from "../core/session/types";
import type { FilterMode } from "../core/tree/filters";
import { describeInvalidMessage, isWebviewToHostMessage } from "../protocol/guards";
import type { EntryDetails, HostToWebviewMessage, SessionSnapshot, WebviewToHostMessage } from "../protocol/messages";
import { renderWebviewHtml } from "../protocol/webview-html";
import { DisposableStore } from "../core/util/disposable";
import { entryText } from "../core/session/entry-text";
import type { SessionHost } from "./session-host";

export const TREE_VIEW_ID = "arbor.conversationTree";

/** What the tree webview asks the rest of the extension to do. */
export interface TreeActions {
  checkout(id: string): Promise<void>;
  fork(id: string): Promise<void>;
  label(id: string): Promise<void>;
  copyText(id: string): Promise<void>;
  forkReadOnly(): Promise<void>;
}

/** The notice a read-only view shows. */
function readOnlyNotice(sm: SessionManager | undefined): { message: string; canFork: boolean } | null {
  const reason = sm?.getReadOnlyReason();
  if (!sm || !reason) return null;
  return { message: `Read-only: ${reason}. New entries from the other window appear live. Fork to continue here.`, canFork: true };
}

export function snapshotOf(sm: SessionManager): SessionSnapshot {
  return {
    sessionId: sm.getSessionId(),
    name: sm.getSessionName() ?? null,
    entries: sm.getSummaries(),
    labels: [...sm.getLabels()].map(([targetId, label]) => ({ targetId, label })),
    leafId: sm.getLeafId(),
  };
}

/**
 * The Conversation Tree webview view. The webview says `ready` each time it loads; the host
 * answers with the full state and then sends increments. Every incoming message is validated;
 * an invalid one is logged and dropped.
 */
export class TreeViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private readonly disposables = new DisposableStore();
  private readonly viewDisposables = new DisposableStore();
  private selection: string | null = null;
  /** Messages the webview sent that failed validation (for tests and diagnostics). */
  rejectedMessages = 0;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: SessionHost,
    private readonly actions: TreeActions,
    private readonly defaultFilter: () => FilterMode,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.add(host.onDidChangeSession(() => this.postState()));
    this.disposables.add(host.onDidChange((c) => this.onSessionChange(c)));
  }

  /** The entry selected in the tree (for commands run from the view title). */
  get selectedEntryId(): string | null {
    return this.selection;
  }

  get isVisible(): boolean {
    return this.view?.visible ?? false;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.viewDisposables.clear();
    this.view = view;
    const dist = vscode.Uri.joinPath(this.extensionUri, "dist");
    const media = vscode.Uri.joinPath(this.extensionUri, "media");
    view.webview.options = { enableScripts: true, localResourceRoots: [dist, media] };
    view.webview.html = renderWebviewHtml({
      nonce: randomBytes(18).toString("base64"),
      cspSource: view.webview.cspSource,
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, "tree.js")).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, "tree.css")).toString(),
      codiconUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, "codicons", "codicon.css")).toString(),
    });
    this.viewDisposables.add(view.webview.onDidReceiveMessage((m: unknown) => this.receive(m)));
    this.viewDisposables.add(
      view.onDidDispose(() => {
        if (this.view === view) this.view = undefined;
        this.viewDisposables.clear();
      }),
    );
  }

  private post(message: HostToWebviewMessage): void {
    void this.view?.webview.postMessage(message);
  }

  /** Sends the whole state (after `ready`, and when the session is replaced). */
  postState(): void {
    const sm = this.host.current;
    this.post({ type: "state", session: sm ? snapshotOf(sm) : null, readOnly: readOnlyNotice(sm), defaultFilter: this.defaultFilter() });
  }

  /** Scrolls to and selects an entry. */
  reveal(entryId: string): void {
    const sm = this.host.current;
    if (sm) this.post({ type: "reveal", sessionId: sm.getSessionId(), entryId });
  }

  setFilter(filter: FilterMode): void {
    this.post({ type: "setFilter", filter });
  }

  private onSessionChange(change: SessionChange): void {
    const sm = this.host.current;
    if (!sm) return;
    const sessionId = sm.getSessionId();
    switch (change.kind) {
      case "entries":
        this.post({ type: "entriesAppended", sessionId, entries: change.entries, leafId: sm.getLeafId() });
        break;
      case "leaf":
        this.post({ type: "leafMoved", sessionId, leafId: change.leafId });
        break;
      case "labels":
        this.post({ type: "labelsChanged", sessionId, changes: change.labels.map((l) => ({ targetId: l.targetId, label: l.label ?? null })) });
        break;
      case "name":
        this.post({ type: "sessionRenamed", sessionId, name: change.name ?? null });
        break;
      case "read-only":
        this.post({ type: "readOnly", notice: readOnlyNotice(sm) });
        break;
      case "reset":
        this.postState();
        break;
      default:
        break;
    }
  }

  private receive(raw: unknown): void {
    if (!isWebviewToHostMessage(raw)) {
      this.rejectedMessages++;
      this.log.warn(`dropped an invalid message from the tree webview: ${describeInvalidMessage(raw)}`);
      return;
    }
    void this.handle(raw).catch((err: Error) => {
      this.log.error(`tree action ${raw.type} failed: ${err.message}`);
      void vscode.window.showErrorMessage(err.message);
    });
  }

  private async handle(m: WebviewToHostMessage): Promise<void> {
    const sm = this.host.current;
    const current = (id: string) => sm !== undefined && sm.getSessionId() === id;
    switch (m.type) {
      case "ready":
        return this.postState();
      case "log":
        if (m.level === "error") this.log.error(`webview: ${m.message}`);
        else if (m.level === "warn") this.log.warn(`webview: ${m.message}`);
        else this.log.info(`webview: ${m.message}`);
        return;
      case "selectionChanged":
        if (current(m.sessionId)) this.selection = m.id;
        return;
      case "requestDetails":
        if (!current(m.sessionId)) return;
        return this.answerDetails(sm!, m.requestId, m.entryId);
      case "forkSession":
        if (current(m.sessionId)) await this.actions.forkReadOnly();
        return;
      default:
        if (!current(m.sessionId)) {
          this.log.warn(`dropped ${m.type} for a session that is no longer open`);
          return;
        }
        if (m.type === "checkout") return this.actions.checkout(m.id);
        if (m.type === "fork") return this.actions.fork(m.id);
        if (m.type === "label") return this.actions.label(m.id);
        return this.actions.copyText(m.id);
    }
  }

  private answerDetails(sm: SessionManager, requestId: string, entryId: string): void {
    const entry = sm.getEntry(entryId);
    if (!entry) {
      this.post({ type: "entryDetails", requestId, entryId, ok: false, error: `No entry with id ${entryId}` });
      return;
    }
    let details: EntryDetails;
    if (entry.type === "compaction") {
      const files = (entry.details ?? {}) as Partial<CompactionDetails>;
      details = {
        kind: "compaction",
        summary: entry.summary,
        tokensBefore: entry.tokensBefore,
        firstKeptEntryId: entry.firstKeptEntryId,
        readFiles: Array.isArray(files.readFiles) ? files.readFiles.filter((f) => typeof f === "string") : [],
        modifiedFiles: Array.isArray(files.modifiedFiles) ? files.modifiedFiles.filter((f) => typeof f === "string") : [],
      };
    } else if (entry.type === "branch_summary") {
      details = { kind: "branchSummary", summary: entry.summary, fromId: entry.fromId };
    } else {
      details = { kind: "text", text: entryText(entry) };
    }
    this.post({ type: "entryDetails", requestId, entryId, ok: true, details });
  }

  dispose(): void {
    this.viewDisposables.dispose();
    this.disposables.dispose();
  }
}
