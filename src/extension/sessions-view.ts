import * as vscode from "vscode";
import { resolveSessionsRoot, sessionDirForCwd } from "../core/session/paths";
import type { SessionInfo } from "../core/session/session-list";
import { SessionManager } from "../core/session/session-manager";
import { sessionTitle } from "../core/session/title";
import { DisposableStore, MutableDisposable } from "../core/util/disposable";
import { watchFolder } from "../core/util/folder-watch";
import { formatAge, sessionTimesText } from "../core/util/format-age";
import type { SessionHost, SessionLocation } from "./session-host";
import { mergeRows, nestForks, nodesFor, type SessionNode } from "./session-rows";

export { nestForks, type SessionNode } from "./session-rows";

export { sessionTitle } from "../core/session/title";

/** Whether a session matches a search over its name, first message and labels. */
export function matchesQuery(info: SessionInfo, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const hay = [info.name ?? "", info.firstMessage, ...info.labels, info.cwd].join("\n").toLowerCase();
  return words.every((w) => hay.includes(w));
}

/**
 * The Sessions view: the workspace's sessions (or every workspace's), newest first, updated as
 * files appear, change or go away, including ones Pi writes from a terminal.
 */
export class SessionsView implements vscode.TreeDataProvider<SessionNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SessionNode | SessionNode[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly listed = new vscode.EventEmitter<readonly SessionInfo[]>();
  /** Every listing read from disk (before a search narrows it), for work that follows the list. */
  readonly onDidList = this.listed.event;
  private readonly disposables = new DisposableStore();
  private readonly watcher = new MutableDisposable<{ dispose(): void }>();
  /** The rows VS Code was last given (the node objects it knows the rows by). */
  private roots: SessionNode[] | undefined;
  private loading: Promise<SessionNode[]> | undefined;
  /** Bumped whenever the rows are dropped, so that an update started before finds out. */
  private generation = 0;
  /** The session file the rows last marked as open here. */
  private drawnCurrent: string | undefined;
  private updating: Promise<void> | undefined;
  private updateAgain = false;
  private refreshTimer: NodeJS.Timeout | undefined;
  private allWorkspaces = false;
  /** Arbor's own tests: folder changes are not reported (see ignoreFolderChanges). */
  private folderChangesIgnored = false;
  private query = "";
  readonly view: vscode.TreeView<SessionNode>;

  constructor(
    private readonly host: SessionHost,
    private readonly location: () => SessionLocation,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.view = vscode.window.createTreeView("arbor.sessions", { treeDataProvider: this, showCollapseAll: true });
    this.disposables.add(this.view);
    this.disposables.add(this.listed);
    this.disposables.add(
      host.onDidChangeSession(() => {
        this.markCurrent();
        this.refresh();
      }),
    );
    this.disposables.add(host.onDidChange((c) => (c.kind === "name" || (c.kind === "entries" && c.entries.some((e) => e.type === "message"))) && this.refresh()));
    this.rewatch();
    void this.updateContext();
  }

  get showingAllWorkspaces(): boolean {
    return this.allWorkspaces;
  }

  setAllWorkspaces(on: boolean): void {
    this.allWorkspaces = on;
    void this.updateContext();
    this.rewatch();
    this.redrawAll();
  }

  setQuery(query: string): void {
    this.query = query.trim();
    this.view.message = this.query ? `Sessions matching "${this.query}"` : undefined;
    void this.updateContext();
    this.redrawAll();
  }

  /** Settings changed: look in the right folder again. */
  relocate(): void {
    this.rewatch();
    this.redrawAll();
  }

  private async updateContext(): Promise<void> {
    await vscode.commands.executeCommand("setContext", "arbor.allWorkspaces", this.allWorkspaces);
    await vscode.commands.executeCommand("setContext", "arbor.sessionSearch", this.query !== "");
  }

  private rewatch(): void {
    const loc = this.location();
    const dir = this.allWorkspaces ? resolveSessionsRoot(loc) : sessionDirForCwd(loc.cwd, loc);
    this.watcher.value = watchFolder(dir, () => {
      if (!this.folderChangesIgnored) this.refresh();
    }, { recursive: this.allWorkspaces });
  }

  /**
   * Arbor's own tests: until disposed, the folder's changes reach the list no more than they do on a
   * file system that never reports them (some network drives), so that only Refresh can find a file.
   */
  ignoreFolderChanges(): vscode.Disposable {
    this.folderChangesIgnored = true;
    return new vscode.Disposable(() => (this.folderChangesIgnored = false));
  }

  /** A different list (another folder, a search): every row is drawn again. */
  private redrawAll(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
    this.generation++;
    this.roots = undefined;
    this.loading = undefined;
    this.changed.fire(undefined);
  }

  /**
   * Lists the sessions again and redraws only the rows that changed (all of them only when rows
   * come, go or move). Changes are taken at most every quarter second while a session is being
   * written, so the list keeps up with Pi writing in a terminal without redrawing on every line.
   */
  refresh(immediately = false): void {
    if (immediately) {
      if (this.refreshTimer) clearTimeout(this.refreshTimer);
      this.refreshTimer = undefined;
      this.startUpdate();
    } else {
      this.refreshTimer ??= setTimeout(() => {
        this.refreshTimer = undefined;
        this.startUpdate();
      }, 250);
    }
  }

  /**
   * Redraws the rows of the session that stopped being the current one and of the new one now, not
   * with the next listing. VS Code drops a click on a row whose command was just replaced (its
   * arguments are looked up by an id that the redraw retires), and the user's next click right
   * after a switch is often on the session just left: it must not land during that redraw.
   */
  private markCurrent(): void {
    const nodes = this.roots ? this.currentChanged(this.roots) : [];
    if (nodes.length) this.changed.fire(nodes);
  }

  /** The rows whose "current" mark is out of date (the session that was current and the one now), noted as drawn. */
  private currentChanged(shown: readonly SessionNode[]): SessionNode[] {
    const current = this.host.current?.getSessionFile() ?? undefined;
    if (current === this.drawnCurrent) return [];
    const paths = new Set([current, this.drawnCurrent].filter((p): p is string => p !== undefined));
    this.drawnCurrent = current;
    return nodesFor(shown, paths);
  }

  private startUpdate(): void {
    if (this.updating) {
      this.updateAgain = true;
      return;
    }
    this.updating = this.update()
      .catch((err: unknown) => this.log.error(`updating the Sessions view: ${(err as Error).message}`))
      .finally(() => {
        this.updating = undefined;
        if (this.updateAgain) {
          this.updateAgain = false;
          this.startUpdate();
        }
      });
  }

  private async update(): Promise<void> {
    const shown = this.roots;
    if (!shown) {
      // Nothing drawn yet, or a listing under way that may predate this change: list afresh when
      // VS Code asks for the rows.
      this.generation++;
      this.loading = undefined;
      this.changed.fire(undefined);
      return;
    }
    const generation = this.generation;
    const next = await this.load();
    if (generation !== this.generation || shown !== this.roots) return;
    const current = this.host.current?.getSessionFile() ?? undefined;
    const merged = mergeRows(shown, next);
    if (merged.kind === "reshaped") {
      this.roots = merged.roots;
      this.drawnCurrent = current;
      this.changed.fire(undefined);
      return;
    }
    const redraw = new Set([...merged.changed, ...this.currentChanged(shown)]);
    if (redraw.size) this.changed.fire([...redraw]);
  }

  /**
   * The sessions on disk now, for a pick made at once (Resume Session): the rows shown may still wait
   * for their coalesced refresh after a write, so this takes a fresh listing, merges it into the rows
   * (redrawing what changed) and returns them.
   */
  async listNow(): Promise<SessionNode[]> {
    if (this.roots) {
      this.refresh(true);
      while (this.updating) await this.updating;
    }
    return this.list();
  }

  /** The sessions as listed now (loads them if needed). */
  async list(): Promise<SessionNode[]> {
    if (this.roots) return this.roots;
    if (!this.loading) {
      const generation = this.generation;
      const loading = this.load().then((roots) => {
        if (generation === this.generation) {
          this.roots = roots;
          this.drawnCurrent = this.host.current?.getSessionFile() ?? undefined;
        }
        return roots;
      });
      this.loading = loading;
    }
    return this.loading;
  }

  /** A fresh listing, searched and nested (the rows shown are left alone). */
  private async load(): Promise<SessionNode[]> {
    const loc = this.location();
    let infos: SessionInfo[];
    try {
      infos = this.allWorkspaces ? await SessionManager.listAll(loc) : await SessionManager.list(loc.cwd, loc);
    } catch (err) {
      this.log.error(`listing sessions: ${(err as Error).message}`);
      infos = [];
    }
    this.listed.fire(infos);
    if (this.query) infos = infos.filter((i) => matchesQuery(i, this.query));
    await vscode.commands.executeCommand("setContext", "arbor.hasSessions", infos.length > 0);
    return this.query ? infos.map((info) => ({ info, forks: [] })) : nestForks(infos);
  }

  async getChildren(element?: SessionNode): Promise<SessionNode[]> {
    return element ? element.forks : this.list();
  }

  getParent(): undefined {
    return undefined;
  }

  getTreeItem(node: SessionNode): vscode.TreeItem {
    const { info } = node;
    const current = this.host.current?.getSessionFile() === info.path;
    const item = new vscode.TreeItem(sessionTitle(info), node.forks.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = info.path;
    const parts = [formatAge(info.modified), `${info.messageCount} msg${info.messageCount === 1 ? "" : "s"}`];
    if (info.parentSessionPath) parts.push("fork");
    if (this.allWorkspaces) parts.push(info.cwd);
    item.description = parts.join(" · ");
    item.iconPath = new vscode.ThemeIcon(current ? "comment-discussion" : info.parentSessionPath ? "repo-forked" : "comment");
    item.contextValue = current ? "arbor.session.current" : "arbor.session";
    const tip = new vscode.MarkdownString(undefined, false);
    tip.appendMarkdown("**");
    tip.appendText(sessionTitle(info));
    tip.appendMarkdown("**\n\n");
    tip.appendText(`${info.messageCount} messages · ${sessionTimesText(info.created, info.modified)}\n`);
    tip.appendText(`${info.path}\n`);
    if (info.parentSessionPath) tip.appendText(`forked from ${info.parentSessionPath}\n`);
    if (info.labels.length) tip.appendText(`labels: ${info.labels.join(", ")}\n`);
    if (info.badLines) tip.appendText(`${info.badLines} unreadable line(s)\n`);
    item.tooltip = tip;
    item.accessibilityInformation = { label: `${sessionTitle(info)}, ${parts.join(", ")}${current ? ", open" : ""}` };
    item.command = { command: "arbor.sessions.resume", title: "Resume", arguments: [node] };
    return item;
  }

  dispose(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.watcher.dispose();
    this.disposables.dispose();
    this.changed.dispose();
  }
}
