import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import type { SessionChange, SessionManager } from "../core/session/session-manager";
import type { FilterMode } from "../core/tree/filters";
import { clampLabelUpdates, clampSessionName, clampSnapshot, clampSummary, clampText, detailsOf, SafeIds } from "../protocol/clamp";
import { describeInvalidMessage, isHostToWebviewMessage, isWebviewToHostMessage } from "../protocol/guards";
import { LIMITS, type EntrySummary, type HostToWebviewMessage, type ReadOnlyNotice, type SessionSnapshot, type WebviewToHostMessage } from "../protocol/messages";
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
function readOnlyNotice(sm: SessionManager | undefined): ReadOnlyNotice | null {
  const reason = sm?.getReadOnlyReason();
  if (!sm || !reason) return null;
  if (sm.isDetached()) {
    const unsaved = sm.getUnsavedEntryIds().length;
    const kept = unsaved === 0 ? "Everything is kept here" : `Everything is kept here, including ${unsaved === 1 ? "1 entry" : `${unsaved} entries`} not in any file yet`;
    return { message: clampText(`${reason}. ${kept}.`, LIMITS.messageLength), canFork: true, actionLabel: "Save as New Session" };
  }
  return { message: clampText(`Read-only: ${reason}. New entries from the other window appear live. Fork to continue here.`, LIMITS.messageLength), canFork: true };
}

/** Entries whose write failed are sent marked, so the tree can show they are not in the file. */
function markUnsaved(sm: SessionManager, entries: EntrySummary[]): EntrySummary[] {
  const unsaved = new Set(sm.getUnsavedEntryIds());
  return unsaved.size === 0 ? entries : entries.map((e) => (unsaved.has(e.id) ? { ...e, unsaved: true } : e));
}

export function snapshotOf(sm: SessionManager): SessionSnapshot {
  return {
    sessionId: sm.getSessionId(),
    name: sm.getSessionName() ?? null,
    entries: markUnsaved(sm, sm.getSummaries()),
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
  /** Stand-ins for ids the protocol refuses, per session (see clamp.ts). */
  private ids = new SafeIds();
  private idsOf: SessionManager | undefined;
  /** Messages the webview sent that failed validation (for tests and diagnostics). */
  rejectedMessages = 0;
  /** Warnings and errors the webview reported (its only channel for them), newest last; for diagnostics and tests. */
  readonly webviewProblems: string[] = [];
  /** With `record` (Arbor's own extension-host tests): the last message of each type posted to the webview. */
  readonly lastPosted = new Map<HostToWebviewMessage["type"], HostToWebviewMessage>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: SessionHost,
    private readonly actions: TreeActions,
    private readonly defaultFilter: () => FilterMode,
    private readonly log: vscode.LogOutputChannel,
    private readonly record = false,
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
    if (this.record) this.lastPosted.set(message.type, message);
    void this.view?.webview.postMessage(message);
  }

  /** The id map of the current session (a new session starts a new one). */
  private safeIds(sm: SessionManager): SafeIds {
    if (this.idsOf !== sm) {
      this.idsOf = sm;
      this.ids = new SafeIds((id) => sm.hasEntry(id));
    }
    return this.ids;
  }

  /**
   * Sends the whole state (after `ready`, and when the session is replaced). Every entry is brought
   * within the protocol's limits on its own (clamp.ts), so one odd field never blanks the tree.
   */
  postState(): void {
    const sm = this.host.current;
    const session = sm ? clampSnapshot(snapshotOf(sm), this.safeIds(sm)) : null;
    this.post({ type: "state", session, readOnly: readOnlyNotice(sm), defaultFilter: this.defaultFilter() });
  }

  /** Scrolls to and selects an entry. */
  reveal(entryId: string): void {
    const sm = this.host.current;
    if (!sm) return;
    const ids = this.safeIds(sm);
    this.post({ type: "reveal", sessionId: ids.out(sm.getSessionId()), entryId: ids.out(entryId) });
  }

  setFilter(filter: FilterMode): void {
    this.post({ type: "setFilter", filter });
  }

  private onSessionChange(change: SessionChange): void {
    const sm = this.host.current;
    if (!sm) return;
    const ids = this.safeIds(sm);
    const sessionId = ids.out(sm.getSessionId());
    const leaf = (id: string | null) => (id === null ? null : ids.out(id));
    switch (change.kind) {
      case "entries":
        this.post({ type: "entriesAppended", sessionId, entries: change.entries.map((e) => clampSummary(e, ids)), leafId: leaf(sm.getLeafId()) });
        break;
      case "leaf":
        this.post({ type: "leafMoved", sessionId, leafId: leaf(change.leafId) });
        break;
      case "labels":
        this.post({ type: "labelsChanged", sessionId, changes: clampLabelUpdates(change.labels.map((l) => ({ targetId: l.targetId, label: l.label ?? null })), ids) });
        break;
      case "name":
        this.post({ type: "sessionRenamed", sessionId, name: clampSessionName(change.name ?? null) });
        break;
      case "read-only":
        this.post({ type: "readOnly", notice: readOnlyNotice(sm) });
        break;
      case "unsaved":
        // Rare (a write failed, or succeeded again): the whole state carries the marks.
        this.postState();
        break;
      case "reset":
        this.postState();
        break;
      default:
        break;
    }
  }

  /** Every message from the webview enters here: validated, then handled. */
  receive(raw: unknown): void {
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
    const ids = sm ? this.safeIds(sm) : this.ids;
    const current = (id: string) => sm !== undefined && ids.out(sm.getSessionId()) === id;
    switch (m.type) {
      case "ready":
        return this.postState();
      case "log":
        if (m.level !== "info") {
          this.webviewProblems.push(m.message);
          if (this.webviewProblems.length > 50) this.webviewProblems.shift();
        }
        if (m.level === "error") this.log.error(`webview: ${m.message}`);
        else if (m.level === "warn") this.log.warn(`webview: ${m.message}`);
        else this.log.info(`webview: ${m.message}`);
        return;
      case "selectionChanged":
        if (current(m.sessionId)) this.selection = m.id === null ? null : ids.in(m.id);
        return;
      case "requestDetails":
        if (!current(m.sessionId)) return;
        return this.answerDetails(sm!, m.requestId, m.entryId, ids);
      case "forkSession":
        if (current(m.sessionId)) await this.actions.forkReadOnly();
        return;
      default:
        if (!current(m.sessionId)) {
          this.log.warn(`dropped ${m.type} for a session that is no longer open`);
          return;
        }
        if (m.type === "checkout") return this.actions.checkout(ids.in(m.id));
        if (m.type === "fork") return this.actions.fork(ids.in(m.id));
        if (m.type === "label") return this.actions.label(ids.in(m.id));
        return this.actions.copyText(ids.in(m.id));
    }
  }

  /**
   * Answers a details request, always: a malformed entry (or one that cannot be read) gets an error
   * the pane shows, never silence that would leave it "Loading…".
   */
  private answerDetails(sm: SessionManager, requestId: string, safeId: string, ids: SafeIds): void {
    let answer: HostToWebviewMessage;
    try {
      const entry = sm.getEntry(ids.in(safeId));
      answer = entry
        ? { type: "entryDetails", requestId, entryId: safeId, ...detailsOf(entry as unknown as Record<string, unknown>, () => entryText(entry), ids) }
        : { type: "entryDetails", requestId, entryId: safeId, ok: false, error: `No entry with id ${safeId} in this session` };
    } catch (err) {
      answer = { type: "entryDetails", requestId, entryId: safeId, ok: false, error: clampText(`Could not read this entry: ${(err as Error).message}`, LIMITS.messageLength) };
    }
    if (!isHostToWebviewMessage(answer)) {
      this.log.error(`details of ${safeId} fell outside the protocol's limits`);
      answer = { type: "entryDetails", requestId, entryId: safeId, ok: false, error: "This entry cannot be shown (its fields are outside the limits the view accepts)." };
    }
    this.post(answer);
  }

  dispose(): void {
    this.viewDisposables.dispose();
    this.disposables.dispose();
  }
}
