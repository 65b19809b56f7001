import { FILTER_MODES, FILTER_MODE_NAMES, type FilterMode } from "../../src/core/tree/filters";
import { firstChildIndex, isFoldable, visualParentIndex, type Row } from "../../src/core/tree/layout";
import { TreeViewModel } from "../../src/core/tree/tree-view-model";
import { describeInvalidMessage, isHostToWebviewMessage } from "../../src/protocol/guards";
import type { HostToWebviewMessage, StateMessage, WebviewToHostMessage } from "../../src/protocol/messages";
import { ReadOnlyBanner } from "./banner";
import { el, listen, type Disposable } from "../shared/dom";
import { EntryDetails } from "./entry-details";
import { treeKeyAction, type TreeKeyAction } from "./keyboard";
import { emptyText, statusText } from "./page-text";
import { paintRow, type PaintContext } from "./row-painter";
import { createChoice, createSearchField, type Choice, type SearchField } from "../toolkit";
import { ROW_HEIGHT, TreeList } from "./tree-list";
import { defaultUiState, parseUiState, type UiState } from "./ui-state";
import type { VsCodeApi } from "../shared/vscode-api";

const SEARCH_DEBOUNCE_MS = 120;
const SAVE_DELAY_MS = 200;

/**
 * The Conversation Tree page: applies host messages to the view model, draws it through the
 * virtualised list, and turns clicks and keys into messages for the host.
 */
export class TreeApp implements Disposable {
  private readonly model: TreeViewModel;
  private readonly list: TreeList;
  private readonly search: SearchField;
  private readonly filter: Choice<FilterMode>;
  private readonly banner: ReadOnlyBanner;
  private readonly details = new EntryDetails((m) => this.post(m));
  private readonly nameLine = el("div", "session-name");
  private readonly empty = el("div", "empty");
  private readonly status = el("div", "status");
  private readonly disposables: Disposable[] = [];
  private readonly ui: UiState;
  private readonly hasSavedUi: boolean;
  private selectedId: string | null = null;
  private searchTimer = 0;
  private saveTimer = 0;
  private hasState = false;
  private paintCtx: PaintContext | undefined;

  private constructor(root: HTMLElement, private readonly api: VsCodeApi<WebviewToHostMessage>) {
    const saved = parseUiState(api.getState());
    this.hasSavedUi = saved !== undefined;
    this.ui = saved ?? defaultUiState();
    this.model = TreeViewModel.create(this.ui.filter);
    this.model.setQuery(this.ui.query);

    this.banner = new ReadOnlyBanner(() => {
      if (this.model.sessionId !== null) this.post({ type: "forkSession", sessionId: this.model.sessionId });
    });
    this.search = createSearchField({ placeholder: "Search entries and labels", label: "Search the conversation tree" });
    this.search.value = this.ui.query;
    this.filter = createChoice({
      label: "Filter",
      value: this.ui.filter,
      choices: FILTER_MODES.map((m) => ({ value: m, text: FILTER_MODE_NAMES[m] })),
    });
    this.list = new TreeList({
      beginPaint: () => {
        this.paintCtx = this.paintContext();
      },
      rowAt: (index) => this.model.rows[index],
      stateKey: (index) => this.stateKey(index),
      paint: (parts, index) => {
        const row = this.model.rows[index];
        if (row) paintRow(parts, row, this.paintCtx ?? this.paintContext());
      },
      onRowClick: (index, onTwisty) => this.handleRowClick(index, onTwisty),
      onRowContextMenu: (index) => this.select(index, false),
      onKeyDown: (e) => this.handleKey(e),
      onScroll: () => this.scheduleSave(),
    });

    const toolbar = el("div", "toolbar");
    toolbar.append(this.search.element, this.filter.element);
    this.empty.hidden = true;
    root.append(this.banner.element, toolbar, this.nameLine, this.list.element, this.empty, this.details.panel.element, this.status);
    this.disposables.push(
      this.banner,
      this.list,
      this.search.onInput((value) => this.scheduleSearch(value)),
      this.filter.onChange((mode) => this.applyFilter(mode)),
      listen(this.search.element, "keydown", (e) => this.handleSearchKey(e)),
    );
    this.render();
  }

  /** Builds the page into `root` and says ready to the host. */
  static mount(root: HTMLElement, api: VsCodeApi<WebviewToHostMessage>): TreeApp {
    const app = new TreeApp(root, api);
    api.postMessage({ type: "ready" });
    return app;
  }

  /** Entry point for every `message` event: validates, applies, redraws. */
  handleMessage(data: unknown): void {
    if (!isHostToWebviewMessage(data)) {
      this.post({ type: "log", level: "warn", message: `Conversation Tree dropped a message: ${describeInvalidMessage(data)}` });
      return;
    }
    try {
      this.apply(data);
      performance.clearMarks(`arbor:${data.type}`);
      performance.mark(`arbor:${data.type}`);
    } catch (err) {
      const message = err instanceof Error ? `${err.message}\n${err.stack ?? ""}` : String(err);
      this.post({ type: "log", level: "error", message: `Conversation Tree failed on ${data.type}: ${message}`.slice(0, 10_000) });
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    window.clearTimeout(this.searchTimer);
    window.clearTimeout(this.saveTimer);
  }

  private apply(msg: HostToWebviewMessage): void {
    if (msg.type === "state") return this.applyState(msg);
    if (msg.type === "readOnly") return this.banner.show(msg.notice);
    if (msg.type === "entryDetails") return this.details.receive(msg);
    if (msg.type === "setFilter") {
      this.filter.value = msg.filter;
      return this.applyFilter(msg.filter);
    }
    // Everything else is about one session: drop what belongs to another (or arrives before state).
    if (!this.hasState || msg.sessionId !== this.model.sessionId) return;
    switch (msg.type) {
      case "entriesAppended": {
        const following = this.isLeafInView();
        const followSelection = this.selectedId !== null && this.selectedId === this.model.leafRow()?.row.node.summary.id;
        this.model.append(msg.entries, msg.leafId);
        const leaf = this.model.leafRow();
        if (leaf && followSelection) this.selectedId = leaf.row.node.summary.id;
        this.render();
        if (leaf && following) this.list.scrollToIndex(leaf.row.index);
        return;
      }
      case "leafMoved":
        this.model.moveLeaf(msg.leafId);
        return this.render();
      case "labelsChanged":
        this.model.applyLabelChanges(msg.changes);
        return this.render();
      case "sessionRenamed":
        this.model.rename(msg.name);
        return this.render();
      case "reveal":
        return this.reveal(msg.entryId);
    }
  }

  private applyState(msg: StateMessage): void {
    const session = msg.session;
    // The same session again (the host re-sent it): keep what is on screen. The session saved
    // before a hide/show: restore it. Anything else starts at the leaf.
    const showing = session !== null && this.hasState && session.sessionId === this.model.sessionId;
    const restoring = !showing && session !== null && session.sessionId === this.ui.sessionId;
    if (!this.hasSavedUi && !this.hasState && msg.defaultFilter && msg.defaultFilter !== this.model.filter) {
      this.filter.value = msg.defaultFilter;
      this.model.setFilter(msg.defaultFilter);
    }
    if (!showing && !restoring && this.model.query !== "") {
      this.search.value = "";
      this.model.setQuery("");
    }
    const scrollTop = showing ? this.list.scrollTop : this.ui.scrollTop;
    const folded = showing ? [...this.model.folded] : restoring ? this.ui.folded : [];
    const selectedId = showing ? this.selectedId : restoring ? this.ui.selectedId : null;
    this.model.load(session, folded);
    this.hasState = true;
    this.details.reset();
    this.banner.show(msg.readOnly);
    const leaf = this.model.leafRow();
    this.selectedId = selectedId ?? (leaf ? leaf.row.node.summary.id : null);
    this.render();
    if (showing || restoring) this.list.scrollTop = scrollTop;
    else if (leaf) this.list.scrollToIndex(leaf.row.index, "center");
    this.ui.sessionId = session ? session.sessionId : null;
    this.scheduleSave();
  }

  /** Redraws everything that depends on the model and the selection. */
  private render(): void {
    this.reconcileSelection();
    this.details.update(this.selectedRow(), this.model);
    const rows = this.model.rows;
    this.list.setRowCount(rows.length);
    this.list.setActiveIndex(this.selectedIndex());
    this.list.render();
    this.nameLine.textContent = this.model.sessionId === null ? "" : (this.model.name ?? "Untitled session");
    this.nameLine.hidden = this.model.sessionId === null;
    this.empty.hidden = rows.length > 0;
    this.empty.textContent = emptyText(this.hasState, this.model);
    this.status.textContent = statusText(this.model);
  }

  /** What a row's look depends on besides the row itself (see TreeList). */
  private stateKey(index: number): string {
    const row = this.model.rows[index];
    const ctx = this.paintCtx;
    if (!row || !ctx) return "";
    const id = row.node.summary.id;
    return `${ctx.onActivePath(id) ? 1 : 0}${ctx.leafState(row) ?? "-"}${ctx.isSelected(row) ? 1 : 0}${ctx.spanState(id) ?? "-"}${ctx.label(id) ?? ""}`;
  }

  private paintContext(): PaintContext {
    const leaf = this.model.leafRow();
    const path = this.model.activePath.ids;
    const labels = this.model.labels;
    const selectedId = this.selectedId;
    return {
      label: (id) => labels.get(id),
      onActivePath: (id) => path.has(id),
      leafState: (row) => (leaf && leaf.row === row ? (leaf.exact ? "exact" : "inside") : undefined),
      isSelected: (row) => row.node.summary.id === selectedId,
      spanState: (id) => this.details.spanState(id),
      searchTokens: this.model.searchTokens,
    };
  }

  // -- selection ------------------------------------------------------------

  private selectedRow(): Row | undefined {
    return this.selectedId === null ? undefined : this.model.layout.rowById.get(this.selectedId);
  }

  private selectedIndex(): number {
    const row = this.selectedRow();
    return row ? row.index : -1;
  }

  /** The drawn row of an entry, or of its nearest drawn ancestor when filters or folds hide it; -1 if none. */
  private nearestDrawnIndex(id: string): number {
    for (let n = this.model.projection.nodes.get(id) ?? null; n; n = n.parent) {
      const row = this.model.layout.rowById.get(n.summary.id);
      if (row && row.index >= 0) return row.index;
    }
    return -1;
  }

  /** Keeps the selection on a drawn row: a hidden entry hands it to its nearest drawn ancestor. */
  private reconcileSelection(): void {
    if (this.selectedId === null) return;
    const index = this.nearestDrawnIndex(this.selectedId);
    const rows = this.model.rows;
    this.selectedId = index >= 0 ? rows[index].node.summary.id : rows.length > 0 ? rows[0].node.summary.id : null;
  }

  private select(index: number, scroll = true): void {
    const row = this.model.rows[index];
    if (!row) return;
    const changed = row.node.summary.id !== this.selectedId;
    this.selectedId = row.node.summary.id;
    this.details.update(row, this.model);
    this.list.setActiveIndex(index);
    this.list.render();
    if (scroll) this.list.scrollToIndex(index);
    if (changed && this.model.sessionId !== null) {
      this.post({ type: "selectionChanged", sessionId: this.model.sessionId, id: this.selectedId });
      this.scheduleSave();
    }
  }

  private reveal(entryId: string): void {
    const index = this.nearestDrawnIndex(entryId);
    if (index < 0) return;
    this.list.scrollToIndex(index, "center");
    this.select(index, false);
  }

  private isLeafInView(): boolean {
    const leaf = this.model.leafRow();
    if (!leaf) return false;
    const first = Math.floor(this.list.scrollTop / ROW_HEIGHT);
    return leaf.row.index >= first && leaf.row.index <= first + this.list.pageSize();
  }

  // -- input ------------------------------------------------------------------

  private handleRowClick(index: number, onTwisty: boolean): void {
    const row = this.model.rows[index];
    if (!row) return;
    if (onTwisty) {
      this.toggleFold(row);
      return;
    }
    this.select(index, false);
    this.act("checkout");
  }

  private handleKey(e: KeyboardEvent): void {
    const action = treeKeyAction(e);
    if (!action) return;
    // Type-to-search: moving focus during keydown lets the browser type the character into the
    // search box itself (setting the value by hand races the form control's own update).
    if (!(action.kind === "focusSearch" && action.text)) e.preventDefault();
    this.runKeyAction(action);
  }

  private runKeyAction(action: TreeKeyAction): void {
    const count = this.model.rows.length;
    const index = this.selectedIndex();
    const row = this.model.rows[index];
    switch (action.kind) {
      case "move": {
        if (count === 0) return;
        const page = this.list.pageSize();
        const to = { up: index - 1, down: index + 1, pageUp: index - page, pageDown: index + page, home: 0, end: count - 1 }[action.to];
        return this.select(Math.max(0, Math.min(count - 1, index < 0 ? 0 : to)));
      }
      case "left":
        if (row && isFoldable(row) && !row.folded) return this.toggleFold(row);
        return this.select(visualParentIndex(this.model.layout, index));
      case "right":
        if (row && isFoldable(row) && row.folded) return this.toggleFold(row);
        return this.select(firstChildIndex(this.model.layout, index));
      case "toggleFold":
        if (row && isFoldable(row)) this.toggleFold(row);
        return;
      case "checkout":
        return this.act("checkout");
      case "label":
        return this.act("label");
      case "fork":
        return this.act("fork");
      case "copy":
        return this.act("copyText");
      case "focusSearch":
        this.search.focus();
        return;
      case "escape":
        if (this.search.value !== "") {
          this.search.value = "";
          this.applySearch("");
        }
        return;
    }
  }

  private handleSearchKey(e: KeyboardEvent): void {
    if (e.key === "Escape") {
      this.search.value = "";
      this.applySearch("");
      this.list.element.focus();
    } else if (e.key === "Enter" || e.key === "ArrowDown") {
      e.preventDefault();
      this.applySearch(this.search.value);
      this.list.element.focus();
      if (this.selectedIndex() < 0 && this.model.rows.length > 0) this.select(0);
    }
  }

  private act(type: "checkout" | "fork" | "label" | "copyText"): void {
    const row = this.selectedRow();
    if (!row || this.model.sessionId === null) return;
    this.post({ type, sessionId: this.model.sessionId, id: row.node.summary.id });
  }

  private toggleFold(row: Row): void {
    const id = row.node.summary.id;
    if (!this.model.setFolded(id, !row.folded)) return;
    this.selectedId = id;
    this.render();
    this.list.scrollToIndex(this.selectedIndex());
    this.scheduleSave();
  }

  private applyFilter(mode: FilterMode): void {
    this.model.setFilter(mode);
    this.ui.filter = mode;
    this.render();
    this.list.scrollToIndex(this.selectedIndex(), "center");
    this.scheduleSave();
  }

  private scheduleSearch(value: string): void {
    window.clearTimeout(this.searchTimer);
    this.searchTimer = window.setTimeout(() => this.applySearch(value), SEARCH_DEBOUNCE_MS);
  }

  private applySearch(value: string): void {
    window.clearTimeout(this.searchTimer);
    if (value === this.model.query) return;
    this.model.setQuery(value);
    this.ui.query = value;
    this.render();
    this.list.scrollToIndex(this.selectedIndex(), "center");
    this.scheduleSave();
  }

  // -- host and persistence -----------------------------------------------------

  private post(message: WebviewToHostMessage): void {
    this.api.postMessage(message);
  }

  private scheduleSave(): void {
    if (this.saveTimer) return;
    this.saveTimer = window.setTimeout(() => {
      this.saveTimer = 0;
      this.ui.folded = [...this.model.folded];
      this.ui.selectedId = this.selectedId;
      this.ui.scrollTop = this.list.scrollTop;
      this.api.setState(this.ui);
    }, SAVE_DELAY_MS);
  }
}
