import * as vscode from "vscode";
import type { SessionChange, SessionManager } from "../core/session/session-manager";
import type { FilterMode } from "../core/tree/filters";
import { DisposableStore } from "../core/util/disposable";
import { clampText } from "../protocol/clamp";
import { LIMITS, type HostToWebviewMessage, type ReadOnlyNotice, type TurnFiles, type WebviewToHostMessage } from "../protocol/messages";
import { entryDetailsOf, sessionDataOf } from "./tree-session-data";
import { TreeHub } from "../protocol/tree-host";
import { openSessionTitle } from "../core/session/title";
import { holdIndexWrites } from "../core/session/session-index";
import type { SessionHost } from "./session-host";
import { TreeEditorPanel } from "./tree-editor-panel";
import { connectTreeWebview, treeHtml, treeWebviewOptions, type TreeRecorder } from "./tree-webview";
import { offerReload, watchWebviewStart, type StartAttempts } from "./webview-start";

export const TREE_VIEW_ID = "arbor.conversationTree";

/** What the tree webviews ask the rest of the extension to do. */
export interface TreeActions {
  checkout(id: string): Promise<void>;
  fork(id: string): Promise<void>;
  label(id: string): Promise<void>;
  copyText(id: string): Promise<void>;
  forkReadOnly(): Promise<void>;
  /** The files the turn at an entry changed (file checkpoints). */
  files?(sm: SessionManager, id: string): Promise<TurnFiles | undefined>;
  openFileChange?(sm: SessionManager, id: string, path: string | null): Promise<void>;
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

/** The line above the tree: the session's title by the rule every surface uses (its name, else its first message). */
function titleOf(sm: SessionManager): string {
  return openSessionTitle(sm);
}

/**
 * The Conversation Tree: one tree (a TreeHub) per window, kept in step with the current session,
 * shown by the side view (this provider) and by any editor tabs ("Open Conversation Tree in
 * Editor"). All of them share the selection, the filter, the search and the folds; each webview
 * holds only the rows it shows.
 */
export class TreeViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  readonly hub: TreeHub;
  private view: vscode.WebviewView | undefined;
  private readonly disposables = new DisposableStore();
  private readonly viewDisposables = new DisposableStore();
  /** Recoveries of a side view that never started (see watchWebviewStart), across its re-creations. */
  private readonly startAttempts: StartAttempts = { used: 0 };
  private readonly editors: TreeEditorPanel;
  /** With `record` (Arbor's own extension-host tests): the last message of each type posted to a tree webview. */
  /** The title last given to the trees (see updateTitle). */
  private shownTitle = "";
  readonly lastPosted = new Map<HostToWebviewMessage["type"], HostToWebviewMessage>();
  /** With `record`: the last message of each type a tree webview sent. */
  readonly lastReceived = new Map<string, WebviewToHostMessage>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: SessionHost,
    actions: TreeActions,
    private readonly defaultFilter: () => FilterMode,
    private readonly log: vscode.LogOutputChannel,
    private readonly record = false,
  ) {
    this.hub = new TreeHub(
      {
        checkout: (id) => actions.checkout(id),
        fork: (id) => actions.fork(id),
        label: (id) => actions.label(id),
        copyText: (id) => actions.copyText(id),
        forkReadOnly: () => actions.forkReadOnly(),
        details: (id, ids) => (host.current ? entryDetailsOf(host.current, id, ids) : undefined),
        files: async (id) => (host.current && actions.files ? actions.files(host.current, id) : undefined),
        openFileChange: async (id, path) => (host.current && actions.openFileChange ? actions.openFileChange(host.current, id, path) : undefined),
        log: (level, message) => (level === "error" ? log.error(message) : level === "warn" ? log.warn(message) : log.info(message)),
        fail: (message) => void vscode.window.showErrorMessage(message),
      },
      defaultFilter(),
    );
    this.editors = new TreeEditorPanel(extensionUri, this.hub, log, this.recorder());
    this.disposables.add(this.editors);
    this.disposables.add(host.onDidChangeSession(() => this.showCurrent()));
    this.disposables.add(host.onDidChange((c) => this.onSessionChange(c)));
    this.showCurrent();
  }

  /** The focused entry of the tree (for commands run from a view title or a key binding). */
  get selectedEntryId(): string | null {
    return this.hub.model.focusId;
  }

  /** The selected entries, oldest first (two when comparing branches). */
  get selection(): readonly string[] {
    return this.hub.selection;
  }

  get isVisible(): boolean {
    return this.view?.visible ?? false;
  }

  /** Warnings and errors the tree webviews reported, newest last (diagnostics and tests). */
  get webviewProblems(): readonly string[] {
    return this.hub.webviewProblems;
  }

  /** Messages from the webviews that failed validation. */
  get rejectedMessages(): number {
    return this.hub.rejectedMessages;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.viewDisposables.clear();
    this.view = view;
    view.webview.options = treeWebviewOptions(this.extensionUri);
    const render = () => treeHtml(view.webview, this.extensionUri, "view");
    this.viewDisposables.add(connectTreeWebview(view.webview, this.hub, this.recorder(), { get visible() { return view.visible; }, changed: view.onDidChangeVisibility }));
    this.viewDisposables.add(watchWebviewStart(view.webview, {
      render, visible: () => view.visible, name: "Conversation Tree", log: this.log,
      attempts: this.startAttempts, gaveUp: offerReload,
    }));
    this.viewDisposables.add(
      view.onDidDispose(() => {
        if (this.view === view) this.view = undefined;
        this.viewDisposables.clear();
      }),
    );
  }

  /** Opens (or reveals) the tree in an editor tab, with the selected entry's details beside it. */
  openInEditor(): void {
    this.editors.open();
  }

  /** Registers the editor tab's restorer (a tab open at shutdown comes back after a reload). */
  registerEditorSerializer(): vscode.Disposable {
    return this.editors.registerSerializer();
  }

  /** Settings changed: the filter setting applies while nobody picked a filter here. */
  refresh(): void {
    this.hub.setDefaultFilter(this.defaultFilter());
  }

  /**
   * Shows the Conversation Tree where its view lives (the panel by default, or wherever the user
   * moved it) and selects and scrolls to the leaf. `preserveFocus` leaves the keyboard where it was
   * (opening a session from the Sessions list), otherwise the tree takes it (the command).
   */
  async show(preserveFocus: boolean): Promise<void> {
    await vscode.commands.executeCommand(`${TREE_VIEW_ID}.focus`, { preserveFocus });
    const leaf = this.host.current?.getLeafId();
    if (leaf) this.reveal(leaf);
  }

  /** Scrolls to and selects an entry in every tree. */
  reveal(entryId: string): void {
    this.hub.reveal(entryId);
  }

  setFilter(filter: FilterMode): void {
    this.hub.setFilter(filter);
  }

  private recorder(): TreeRecorder | undefined {
    if (!this.record) return undefined;
    return {
      posted: (m) => this.lastPosted.set(m.type, m),
      received: (m) => {
        const type = (m as { type?: unknown } | null)?.type;
        if (typeof type === "string") this.lastReceived.set(type, m as WebviewToHostMessage);
      },
    };
  }

  private showCurrent(): void {
    const sm = this.host.current;
    const started = Date.now();
    this.shownTitle = sm ? titleOf(sm) : "";
    // Entries whose write failed are marked, so the tree can show they are not in the file.
    // A large session's tree is built in slices: the extension host stays responsive meanwhile.
    const shown = this.hub.showSessionInSlices(sm ? sessionDataOf(sm, new Set(sm.getUnsavedEntryIds())) : null, this.shownTitle, readOnlyNotice(sm));
    // The reopen index of a session just read is saved once its rows are drawn, not in between.
    holdIndexWrites(shown);
    void shown.then(
      () => {
        if (sm && this.hub.sessionId === sm.getSessionId()) this.log.info(`tree: ${sm.getEntryCount()} entries laid out in ${Date.now() - started} ms`);
      },
      (err: unknown) => this.log.error(`tree: could not lay out the session: ${(err as Error).message}`),
    );
  }

  private onSessionChange(change: SessionChange): void {
    const sm = this.host.current;
    if (!sm) return;
    switch (change.kind) {
      case "entries":
        // The first user message of an unnamed session gives it its title.
        if (sm.getSessionName() === undefined && change.entries.some((e) => e.type === "message")) this.updateTitle(sm);
        this.hub.append(change.entries, sm.getLeafId());
        break;
      case "leaf":
        this.hub.moveLeaf(change.leafId);
        break;
      case "labels":
        this.hub.changeLabels(change.labels.map((l) => ({ targetId: l.targetId, label: l.label ?? null })));
        break;
      case "name":
        this.updateTitle(sm);
        break;
      case "read-only":
        this.hub.setReadOnly(readOnlyNotice(sm));
        break;
      case "unsaved":
        // Rare (a write failed, or succeeded again): the session again, with the marks (folds, selection and scroll stay).
        this.showCurrent();
        break;
      case "reset":
        this.showCurrent();
        break;
      default:
        break;
    }
  }

  /** Gives the trees the session's title when it differs from the one they show. */
  private updateTitle(sm: SessionManager): void {
    const title = titleOf(sm);
    if (title === this.shownTitle) return;
    this.shownTitle = title;
    this.hub.setTitle(title);
  }

  dispose(): void {
    this.viewDisposables.dispose();
    this.disposables.dispose();
  }
}
