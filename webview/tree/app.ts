import { FILTER_MODES, FILTER_MODE_NAMES, type FilterMode } from "../../src/core/tree/filters";
import { parseSearchQuery } from "../../src/core/tree/search";
import { followLeafRow, type ShownBefore } from "./follow-leaf";
import { describeInvalidMessage, isHostToWebviewMessage } from "../../src/protocol/guards";
import type { HostToWebviewMessage, TreeMessage, TreeSelection, TreeSessionInfo, TreeStatus, WebviewToHostMessage } from "../../src/protocol/messages";
import { ReadOnlyBanner } from "./banner";
import { CompactChrome } from "./compact-chrome";
import { el, listen, type Disposable } from "../shared/dom";
import { DetailsLayout } from "./details-layout";
import { EntryDetails } from "./entry-details";
import { treeKeyAction, type TreeKeyAction } from "./keyboard";
import { emptyText, statusText } from "./page-text";
import { RowCache } from "./row-cache";
import { LANE_WIDTH, paintPlaceholder, paintRow } from "./row-painter";
import { createChoice, createSearchField, type Choice, type SearchField } from "../toolkit";
import { OVERSCAN, ROW_HEIGHT, TreeList, WRAPPED_ROW_HEIGHT } from "./tree-list";
import { defaultUiState, parseUiState, savedForHost, type UiState } from "./ui-state";
import type { VsCodeApi } from "../shared/vscode-api";

const SEARCH_DEBOUNCE_MS = 120;
const SAVE_DELAY_MS = 200;
/** Rows asked for beyond the visible ones, on each side (behind them while scrolling). */
const MARGIN_ROWS = 80;
/**
 * Rows asked for ahead of the visible ones in the direction of the scroll, and how few may be
 * left held ahead before more are asked for: the answer comes back before the rows run out,
 * even at a fast wheel's pace and a host a few frames away.
 */
const AHEAD_ROWS = 240;
const LOW_AHEAD_ROWS = 100;
/** A viewport request unanswered this long is taken as lost, and the page asks again (see afterRender). */
const PENDING_GIVE_UP_MS = 2_000;
/** After scrolling stops, the host learns what is in view (it follows the leaf only where it is seen). */
const SETTLE_MS = 150;
/** Narrower than this, row text wraps onto a second line (a side bar): rows never cut text after a few words. */
const WRAP_BELOW_PX = 520;

/**
 * The Conversation Tree page. The host holds the tree; this page holds the rows around what it
 * shows (RowCache), asks for more as it scrolls, draws them through the virtualised list, and
 * turns clicks and keys into requests for the host.
 */
export class TreeApp implements Disposable {
  private readonly cache = new RowCache();
  private readonly list: TreeList;
  private readonly search: SearchField;
  private readonly filter: Choice<FilterMode>;
  private readonly banner: ReadOnlyBanner;
  private readonly details: EntryDetails;
  /** Where the side view's details go (the editor tab always has them beside). */
  private readonly detailsLayout: DetailsLayout | undefined;
  private readonly nameLine = el("div", "session-name");
  private readonly empty = el("div", "empty");
  private readonly status = el("div", "status");
  private readonly disposables: Disposable[] = [];
  private readonly ui: UiState;
  private readonly hasSavedUi: boolean;
  private session: TreeSessionInfo | null = null;
  private hasState = false;
  private filterValue: FilterMode = "default";
  private query = "";
  private folded: string[] = [];
  private tokens: readonly string[] = [];
  private selection: TreeSelection = { ids: [], focusRow: -1 };
  private treeStatus: TreeStatus = { shown: 0, total: 0, leafHidden: false };
  private seq = 0;
  /** The viewport request not answered yet (at most one is in flight), and when it was sent. */
  private pending: { from: number; to: number; seq: number; sent: number } | undefined;
  private told = { first: -1, last: -1 };
  private visible = { first: 0, last: 0 };
  /** The last scroll's direction: 1 down, -1 up, 0 not scrolled yet. */
  private direction = 0;
  private maxLanes = 8;
  private searchTimer = 0;
  private saveTimer = 0;
  private settleTimer = 0;

  private constructor(root: HTMLElement, private readonly api: VsCodeApi<WebviewToHostMessage>, editor: boolean) {
    const saved = parseUiState(api.getState());
    this.hasSavedUi = saved !== undefined;
    this.ui = saved ?? defaultUiState();
    this.details = new EntryDetails((m) => this.post(m), editor);

    this.banner = new ReadOnlyBanner(() => {
      if (this.session) this.post({ type: "forkSession", sessionId: this.session.sessionId });
    });
    this.search = createSearchField({ placeholder: "Search entries", label: "Search the conversation tree", title: "Search entries and labels" });
    this.search.value = this.ui.query;
    this.filter = createChoice({
      label: "Filter",
      value: this.ui.filter,
      choices: FILTER_MODES.map((m) => ({ value: m, text: FILTER_MODE_NAMES[m] })),
    });
    this.list = new TreeList({
      beginPaint: () => undefined,
      rowAt: (index) => this.cache.get(index),
      stateKey: (index) => this.stateKey(index),
      paint: (parts, index) => {
        const row = this.cache.get(index);
        if (!row) return paintPlaceholder(parts, index);
        const id = row.entry.id;
        paintRow(parts, row, index, { selected: this.selection.ids.includes(id), focused: this.isFocused(id), searchTokens: this.tokens, maxLanes: this.maxLanes });
      },
      onRowClick: (index, onTwisty, additive) => this.handleRowClick(index, onTwisty, additive),
      onRowContextMenu: (index) => this.selectRow(index, false),
      onKeyDown: (e) => this.handleKey(e),
      onResize: (width) => this.resize(width),
      onRendered: (first, last) => this.afterRender(first, last),
    });

    const toolbar = el("div", "toolbar");
    toolbar.append(this.search.element, this.filter.element);
    this.empty.hidden = true;
    const treePane = el("div", "tree-pane");
    treePane.append(this.banner.element, toolbar, this.nameLine, this.list.element, this.empty);
    if (editor) {
      // The editor tab: the tree on the left, the selected entry's details on the right.
      treePane.append(this.status);
      this.details.panel.element.classList.add("beside");
      root.append(treePane, this.details.panel.element);
    } else {
      treePane.append(this.status);
      root.append(treePane);
      const layout = new DetailsLayout(root, treePane, this.details.panel.element, this.ui, () => ({
        rowHeight: this.list.rowHeight,
        chrome: treePane.clientHeight - this.list.element.clientHeight - (this.details.panel.element.hidden ? 0 : this.details.panel.element.offsetHeight),
      }), () => this.saveNow());
      toolbar.append(layout.toggle);
      layout.layout();
      this.detailsLayout = layout;
      this.disposables.push(layout, new CompactChrome(root, treePane, toolbar, this.nameLine, this.status, () => layout.layout()));
    }
    this.disposables.push(
      this.banner,
      this.list,
      this.search.onInput((value) => this.scheduleSearch(value)),
      this.filter.onChange((mode) => {
        if (mode !== this.filterValue) this.post({ type: "setFilter", filter: mode });
      }),
      listen(this.search.element, "keydown", (e) => this.handleSearchKey(e)),
    );
    this.render();
  }

  /** Builds the page into `root` and says ready to the host (offering what it saved before a hide). */
  static mount(root: HTMLElement, api: VsCodeApi<WebviewToHostMessage>): TreeApp {
    const editor = document.body.dataset.layout === "editor";
    const app = new TreeApp(root, api, editor);
    api.postMessage(app.hasSavedUi ? { type: "ready", saved: savedForHost(app.ui) } : { type: "ready" });
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
    window.clearTimeout(this.settleTimer);
  }

  private apply(msg: HostToWebviewMessage): void {
    if (msg.type === "tree") return this.applyTree(msg);
    if (msg.type === "readOnly") return this.banner.show(msg.notice);
    return this.details.receive(msg);
  }

  private applyTree(msg: TreeMessage): void {
    const shown = this.list.visibleRange();
    const before: ShownBefore = { ...shown, rowCount: this.cache.rowCount, leafRow: this.treeStatus.leafRow, sessionId: this.session?.sessionId ?? null, entryCount: this.session?.entryCount ?? 0 };
    const another = msg.reset || msg.session?.sessionId !== this.session?.sessionId;
    if (another) {
      this.cache.clear();
      this.details.reset();
      this.pending = undefined;
    }
    this.session = msg.session;
    this.hasState = true;
    this.cache.apply(msg.window);
    if (this.pending && msg.window.seq !== undefined && msg.window.seq >= this.pending.seq) this.pending = undefined;
    this.filterValue = msg.view.filter;
    if (this.filter.value !== msg.view.filter) this.filter.value = msg.view.filter;
    this.folded = msg.view.folded;
    if (msg.view.query !== this.query) {
      this.query = msg.view.query;
      this.tokens = parseSearchQuery(msg.view.query);
      // Someone else changed the search (another view): show it, unless the user is typing here.
      if (!this.search.element.contains(document.activeElement) && this.search.value !== msg.view.query) this.search.value = msg.view.query;
    }
    this.selection = msg.selection;
    this.treeStatus = msg.status;
    this.list.setRowCount(this.cache.rowCount);
    // Shown before scrolling: a hidden list has no height, and a scroll set on it is lost.
    this.list.element.hidden = this.cache.rowCount === 0;
    if (msg.scroll) this.list.scrollToIndex(msg.scroll.row, msg.scroll.align);
    else {
      const follow = followLeafRow(before, { sessionId: msg.session?.sessionId ?? null, entryCount: msg.session?.entryCount ?? 0, leafRow: msg.status.leafRow });
      if (follow !== undefined) this.list.scrollToIndex(follow, "nearest");
    }
    this.render();
    this.scheduleSave();
  }

  /** Redraws everything that depends on the state. */
  private render(): void {
    this.list.setActiveIndex(this.selection.focusRow);
    this.list.render();
    const session = this.session;
    this.nameLine.textContent = session ? session.title : "";
    this.nameLine.hidden = session === null;
    this.empty.hidden = this.cache.rowCount > 0;
    // With nothing to draw the message takes the list's place, at the top.
    this.list.element.hidden = this.cache.rowCount === 0;
    this.empty.textContent = emptyText(this.hasState, session);
    this.status.textContent = statusText(session, this.treeStatus, this.filterValue, this.query);
    this.updateDetails();
  }

  private updateDetails(): void {
    const focus = this.selection.focusRow;
    this.details.update(focus >= 0 ? this.cache.get(focus) : undefined, this.session?.sessionId ?? null, this.treeStatus.replacedCount);
  }

  private isFocused(id: string): boolean {
    const ids = this.selection.ids;
    return ids.length > 0 && ids[ids.length - 1] === id;
  }

  /** What a row's look depends on besides the row object (see TreeList). */
  private stateKey(index: number): string {
    const row = this.cache.get(index);
    if (!row) return "";
    const id = row.entry.id;
    return `${this.selection.ids.includes(id) ? 1 : 0}${this.isFocused(id) ? 1 : 0}${this.maxLanes}`;
  }

  // -- rows from the host ---------------------------------------------------------

  /** After each render: asks for rows in view that are not held yet, and tells the host what is seen once scrolling settles. */
  private afterRender(first: number, last: number): void {
    if (first !== this.visible.first) this.direction = first > this.visible.first ? 1 : -1;
    this.visible = { first, last };
    if (!this.session) return;
    const count = this.cache.rowCount;
    // Ask ahead of the scroll: once fewer than LOW_AHEAD_ROWS are held in its direction (half a
    // margin on each side before any scroll), before any row shows blank.
    const still = Math.max(OVERSCAN, MARGIN_ROWS / 2);
    const needFrom = Math.max(0, first - (this.direction < 0 ? LOW_AHEAD_ROWS : this.direction > 0 ? OVERSCAN : still));
    const needTo = Math.min(count, last + (this.direction > 0 ? LOW_AHEAD_ROWS : this.direction < 0 ? OVERSCAN : still));
    if (!this.cache.covers(needFrom, needTo)) {
      // One request in flight at a time: while the scrollbar is dragged the host answers the
      // latest position once the last answer is in, instead of every position passed on the way
      // (a queue of stale windows would delay the rows in view). An answer that never comes
      // (the host moved on to another session) does not stop the page from asking again.
      const p = this.pending;
      if (!p || performance.now() - p.sent > PENDING_GIVE_UP_MS) this.requestRows(first, last);
      return;
    }
    if (first !== this.told.first || last !== this.told.last) {
      window.clearTimeout(this.settleTimer);
      this.settleTimer = window.setTimeout(() => {
        if (this.visible.first !== this.told.first || this.visible.last !== this.told.last) this.requestRows(this.visible.first, this.visible.last);
      }, SETTLE_MS);
    }
    this.scheduleSave();
  }

  private requestRows(first: number, last: number): void {
    if (!this.session) return;
    const count = this.cache.rowCount;
    const from = Math.max(0, first - (this.direction < 0 ? AHEAD_ROWS : MARGIN_ROWS));
    const to = Math.min(count, last + (this.direction > 0 ? AHEAD_ROWS : MARGIN_ROWS));
    const seq = ++this.seq;
    this.pending = { from, to, seq, sent: performance.now() };
    this.told = { first, last };
    this.post({ type: "viewport", sessionId: this.session.sessionId, from, to, visibleFrom: first, visibleTo: last, seq });
  }

  private resize(width: number): void {
    if (width <= 0) return;
    this.detailsLayout?.layout();
    const wrap = width < WRAP_BELOW_PX;
    this.list.element.classList.toggle("wrap", wrap);
    this.list.setRowHeight(wrap ? WRAPPED_ROW_HEIGHT : ROW_HEIGHT);
    // Lanes get 8% of the width (at least the row's own column and one more); the text
    // keeps the rest, whatever the depth.
    const lanes = Math.max(2, Math.min(8, Math.floor((width * 0.08) / LANE_WIDTH)));
    if (lanes !== this.maxLanes) {
      this.maxLanes = lanes;
      this.list.invalidate();
    }
  }

  // -- input ------------------------------------------------------------------

  private idAt(index: number): string | undefined {
    return this.cache.get(index)?.entry.id;
  }

  /** Selects a row at once on screen (the host's answer confirms it) and tells the host. */
  private selectRow(index: number, additive: boolean): void {
    const id = this.idAt(index);
    if (id === undefined || !this.session) return;
    if (!additive) {
      this.selection = { ids: [id], focusRow: index };
      this.render();
    }
    this.post({ type: "select", sessionId: this.session.sessionId, id, add: additive });
  }

  private handleRowClick(index: number, onTwisty: boolean, additive: boolean): void {
    const id = this.idAt(index);
    if (id === undefined || !this.session) return;
    if (onTwisty) {
      this.post({ type: "toggleFold", sessionId: this.session.sessionId, id });
      return;
    }
    this.selectRow(index, additive);
    if (!additive) this.post({ type: "checkout", sessionId: this.session.sessionId, id });
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
    const session = this.session;
    const focusId = this.selection.ids[this.selection.ids.length - 1];
    switch (action.kind) {
      case "move":
        if (session) this.post({ type: "navigate", sessionId: session.sessionId, move: action.to, pageSize: this.list.pageSize() });
        return;
      case "left":
      case "right":
        if (session) this.post({ type: "navigate", sessionId: session.sessionId, move: action.kind, pageSize: this.list.pageSize() });
        return;
      case "toggleFold":
        if (session && focusId !== undefined) this.post({ type: "toggleFold", sessionId: session.sessionId, id: focusId });
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
      if (this.selection.ids.length === 0 && this.session) this.post({ type: "navigate", sessionId: this.session.sessionId, move: "home", pageSize: 1 });
    }
  }

  private act(type: "checkout" | "fork" | "label" | "copyText"): void {
    const id = this.selection.ids[this.selection.ids.length - 1];
    if (id === undefined || !this.session) return;
    this.post({ type, sessionId: this.session.sessionId, id });
  }

  private scheduleSearch(value: string): void {
    window.clearTimeout(this.searchTimer);
    this.searchTimer = window.setTimeout(() => this.applySearch(value), SEARCH_DEBOUNCE_MS);
  }

  private applySearch(value: string): void {
    window.clearTimeout(this.searchTimer);
    if (value === this.query) return;
    this.post({ type: "setQuery", query: value });
  }

  // -- host and persistence -----------------------------------------------------

  private post(message: WebviewToHostMessage): void {
    this.api.postMessage(message);
  }

  /** Saves at once what the user just chose (the details toggle, their height). */
  private saveNow(): void {
    this.api.setState(this.ui);
  }

  private scheduleSave(): void {
    if (this.saveTimer) return;
    this.saveTimer = window.setTimeout(() => {
      this.saveTimer = 0;
      // Before the host's first state the view holds none of the saved folds, selection or
      // position (a scroll event while the page lays out must not erase them).
      if (this.hasState) {
        this.ui.sessionId = this.session ? this.session.sessionId : null;
        this.ui.topRow = this.visible.first;
        this.ui.filter = this.filterValue;
        this.ui.query = this.query;
        this.ui.folded = this.folded.slice(0, 10_000);
        this.ui.selection = [...this.selection.ids];
      }
      this.api.setState(this.ui);
    }, SAVE_DELAY_MS);
  }
}
