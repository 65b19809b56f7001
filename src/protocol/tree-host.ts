/**
 * The host's half of the Conversation Tree protocol: one TreeHub per window holds the tree
 * (TreeModel) and the state every tree webview shares (filter, search, folds, selection); each
 * open webview (the side view, an editor tab) is a TreeViewPort that knows which rows that
 * webview shows and sends it only those, plus a margin. No vscode and no Node: the extension
 * adapts it to webviews, and the tests and benchmarks drive it directly.
 */
import type { FilterMode } from "../core/tree/filters";
import { NONE } from "../core/tree/tree-index";
import { TreeModel, type LabelChange, type SessionData } from "../core/tree/tree-model";
import { runStepsInSlices } from "../core/util/steps";
import type { EntrySummary } from "../core/tree/types";
import { clampLabel, clampSummary, clampText, SafeIds } from "./clamp";
import { describeInvalidMessage, isHostToWebviewMessage, isWebviewToHostMessage } from "./guards";
import {
  LIMITS,
  type EntryDetails,
  type EntryDetailsMessage,
  type HostToWebviewMessage,
  type LogLevel,
  type NavigationMove,
  type ReadOnlyNotice,
  type SavedTreeState,
  type ScrollRequest,
  type TreeMessage,
  type TreeRow,
  type TurnFiles,
  type WebviewToHostMessage,
} from "./messages";
import { CHECKPOINT_CUSTOM_TYPE } from "../core/session/types";

/** Indent columns sent per row: more than any side bar draws; the webview draws what fits. */
export const LANES_SENT = 8;
/** Rows held on either side of the visible ones when the host picks the window itself. */
const MARGIN_ROWS = 60;
/** Rows assumed visible before a webview says. */
const DEFAULT_VISIBLE = 40;

/** What the tree asks of the rest of the extension. */
export interface TreeHostActions {
  checkout(id: string): void | Promise<void>;
  fork(id: string): void | Promise<void>;
  label(id: string): void | Promise<void>;
  copyText(id: string): void | Promise<void>;
  /** "Fork" on the read-only banner. */
  forkReadOnly(): void | Promise<void>;
  /**
   * The long form of an entry (ids in it go out through `ids`), or why it cannot be shown;
   * undefined when there is no entry with that id.
   */
  details(entryId: string, ids: SafeIds): { ok: true; details: EntryDetails } | { ok: false; error: string } | undefined;
  /** The files the turn at an entry changed, when a file checkpoint was recorded there. */
  files?(entryId: string): Promise<TurnFiles | undefined>;
  /** Opens the diff of a file the turn at an entry changed (null: all of them). */
  openFileChange?(entryId: string, path: string | null): void | Promise<void>;
  log(level: LogLevel, message: string): void;
  /** An action failed: tell the user. */
  fail?(message: string): void;
}

/** How a change moves each webview's scroll position. */
interface ScrollPolicy {
  /** Applies only to this port (the one the user acted in); undefined: every port. */
  only?: TreeViewPort;
  target: "focus" | "leaf" | "none";
  align: ScrollRequest["align"];
  /** Only when the target is out of view. */
  ifHidden?: boolean;
}

/**
 * The shared tree of one window. The extension calls the session-side methods (`showSession`,
 * `append`, `moveLeaf`, ...) as the session changes; webviews connect with `connect`.
 */
export class TreeHub {
  private modelValue: TreeModel;
  /** Another session's tree being built in slices (see showSessionInSlices), with the session-side changes that came meanwhile. */
  private loading: { cancelled: boolean; queued: (() => void)[] } | undefined;
  private title = "";
  private readOnly: ReadOnlyNotice | null = null;
  private readonly ports = new Set<TreeViewPort>();
  /** No one has changed the filter, search, folds or selection of this session here yet: a webview's saved state may be adopted. */
  private untouched = true;
  /** A reveal came while no webview was ready to scroll to it. */
  private revealOnReady = false;
  private filterChosen = false;
  private versionValue = 0;
  /** Stand-ins for ids the protocol refuses, per session (see clamp.ts). */
  private ids = new SafeIds();
  /** Messages from webviews that failed validation (tests and diagnostics read it). */
  rejectedMessages = 0;
  /** Warnings and errors the webviews reported (their only channel for them), newest last. */
  readonly webviewProblems: string[] = [];

  constructor(
    private readonly actions: TreeHostActions,
    defaultFilter: FilterMode = "default",
    /** showSessionInSlices: sessions of at least `from` entries are built in slices of about `ms`. */
    private readonly slicing: { from: number; ms: number } = { from: 20_000, ms: 15 },
  ) {
    this.modelValue = TreeModel.create(defaultFilter);
  }

  get model(): TreeModel {
    return this.modelValue;
  }

  /** Increases with every change sent; a window's rows carry it. */
  get version(): number {
    return this.versionValue;
  }
  /** Selected entry ids, oldest first; the last one has the focus. */
  get selection(): readonly string[] {
    return this.model.selection;
  }
  get sessionId(): string | null {
    return this.model.sessionId;
  }

  /** Connects a webview: `post` delivers messages to it. Dispose the port when the webview goes. */
  connect(post: (message: HostToWebviewMessage) => void): TreeViewPort {
    const port = new TreeViewPort(this, post);
    this.ports.add(port);
    return port;
  }

  // ------------------------------------------------------------ session side

  /**
   * Shows a session (null: none). The same session again keeps the folds, the selection and
   * what each webview shows; another one starts at its leaf.
   */
  showSession(data: SessionData | null, title: string, readOnly: ReadOnlyNotice | null): void {
    this.cancelLoading();
    const same = data !== null && data.sessionId === this.model.sessionId;
    this.title = title;
    this.readOnly = readOnly;
    if (same) {
      this.model.load(data, this.model.folded, this.model.selection);
      this.broadcast({ target: "none", align: "nearest" });
    } else {
      this.model.load(data);
      this.shown();
    }
    for (const port of this.ports) port.sendReadOnly();
  }

  /**
   * Shows another session as `showSession` does, building a large one's tree in slices of the
   * event loop (a million entries take about half a second): the webviews keep the session they
   * show until the new one is ready, and the session-side changes made meanwhile (appends, a
   * checkout, labels, the title) are applied after it, in order. Resolves when the session is
   * shown, or when another `showSession` replaced it first.
   */
  async showSessionInSlices(data: SessionData | null, title: string, readOnly: ReadOnlyNotice | null): Promise<void> {
    const size = data === null ? 0 : Array.isArray(data.entries) ? data.entries.length : data.entries.size;
    if (data === null || size < this.slicing.from || data.sessionId === this.model.sessionId) return this.showSession(data, title, readOnly);
    this.cancelLoading();
    const load = { cancelled: false, queued: [] as (() => void)[] };
    this.loading = load;
    const next = TreeModel.create(this.model.filter);
    next.setQuery(this.model.query);
    const steps = next.loadSteps(data);
    try {
      // A replaced load stops at its next step.
      await runStepsInSlices((function* () {
        while (!load.cancelled && !steps.next().done) yield;
      })(), this.slicing.ms);
    } finally {
      // A load that failed shows nothing new, and queues nothing more.
      if (this.loading === load && !load.cancelled) this.loading = undefined;
    }
    if (load.cancelled) return;
    this.loading = undefined;
    // The window's filter and search may have changed while the tree was built.
    if (next.filter !== this.model.filter) next.setFilter(this.model.filter);
    if (next.query !== this.model.query) next.setQuery(this.model.query);
    this.modelValue = next;
    this.title = title;
    this.readOnly = readOnly;
    this.shown();
    for (const port of this.ports) port.sendReadOnly();
    for (const change of load.queued) change();
  }

  /** A session-side change that must wait for the tree being built; true when it was queued. */
  private queued(change: () => void): boolean {
    if (!this.loading) return false;
    this.loading.queued.push(change);
    return true;
  }

  private cancelLoading(): void {
    if (this.loading) this.loading.cancelled = true;
    this.loading = undefined;
  }

  /** Another session was loaded into the model: every webview starts at its leaf. */
  private shown(): void {
    this.untouched = true;
    const index = this.model.index;
    this.ids = new SafeIds((id) => index.positionOf(id) !== undefined);
    this.broadcast({ target: "leaf", align: "center" }, true);
  }

  /** Entries appended to the file; the leaf moves with them. Webviews that showed the leaf follow it. */
  append(entries: readonly EntrySummary[], leafId: string | null): void {
    if (this.queued(() => this.append(entries, leafId))) return;
    const following = [...this.ports].filter((p) => p.showsRow(this.model.leafRow()?.row ?? -1));
    const focusOnLeaf = this.model.focusId !== null && this.model.leafRow() !== undefined && this.model.focusRow() === this.model.leafRow()?.row;
    this.model.append(entries, leafId);
    const leaf = this.model.leafRow();
    if (focusOnLeaf && leaf) this.model.select(this.model.idAt(leaf.row));
    this.versionValue++;
    for (const port of this.ports) port.update(following.includes(port) ? { target: "leaf", align: "nearest" } : { target: "none", align: "nearest" });
  }

  /** The leaf moved without new entries (a checkout). */
  moveLeaf(leafId: string | null): void {
    if (this.queued(() => this.moveLeaf(leafId))) return;
    this.model.moveLeaf(leafId);
    this.broadcast({ target: "none", align: "nearest" });
  }

  changeLabels(changes: readonly LabelChange[]): void {
    if (this.queued(() => this.changeLabels(changes))) return;
    this.model.applyLabelChanges(changes);
    this.broadcast({ target: "none", align: "nearest" });
  }

  setTitle(title: string): void {
    if (this.queued(() => this.setTitle(title))) return;
    this.title = title;
    this.broadcast({ target: "none", align: "nearest" });
  }

  setReadOnly(notice: ReadOnlyNotice | null): void {
    if (this.queued(() => this.setReadOnly(notice))) return;
    this.readOnly = notice;
    for (const port of this.ports) port.sendReadOnly();
  }

  /** Selects an entry and brings it into view everywhere (after a checkout from the palette, say). */
  reveal(entryId: string): void {
    if (this.queued(() => this.reveal(entryId))) return;
    if (!this.model.select(entryId)) return;
    // A selection asked for here outranks what a webview saved before it was hidden.
    this.untouched = false;
    // A webview that is still starting (the view just shown again) scrolls to it once it is ready,
    // instead of to where it was when it was hidden.
    this.revealOnReady = this.ports.size === 0 || [...this.ports].some((p) => !p.isReady);
    this.broadcast({ target: "focus", align: "center", ifHidden: true });
  }

  /** @internal Whether a webview becoming ready should scroll to the selection (see reveal); asks once. */
  takeRevealOnReady(): boolean {
    const reveal = this.revealOnReady;
    this.revealOnReady = false;
    return reveal;
  }

  /** Sets the filter (a command, or a webview's picker); every webview keeps the selection in view. */
  setFilter(filter: FilterMode): void {
    this.filterChosen = true;
    this.untouched = false;
    this.model.setFilter(filter);
    this.broadcast({ target: "focus", align: "center" });
  }

  /** The filter setting changed: it applies while nobody has picked a filter in this window. */
  setDefaultFilter(filter: FilterMode): void {
    if (this.filterChosen || filter === this.model.filter) return;
    this.model.setFilter(filter);
    this.broadcast({ target: "focus", align: "center" });
  }

  // ------------------------------------------------------------ for ports

  /** @internal */
  disconnect(port: TreeViewPort): void {
    this.ports.delete(port);
  }

  /** @internal The message for one port: its window of rows at the current version. */
  messageFor(reset: boolean, scroll: ScrollRequest | null, from: number, to: number, seq?: number): TreeMessage {
    const model = this.model;
    const count = model.rows.count;
    const end = Math.min(to, count);
    const nodes: number[] = [];
    for (let r = from; r < end; r++) nodes.push(model.rows.nodeAt(r));
    // The window's summaries at once: bodies on disk are read in file order, not one by one.
    const summaries = model.index.summaries(nodes);
    const rows: TreeRow[] = [];
    for (let r = from; r < end; r++) rows.push(this.rowAt(r, summaries[r - from]!));
    const leaf = model.leafRow();
    const span = model.compactionSpan();
    const ids = this.ids;
    return {
      type: "tree",
      reset,
      session: model.sessionId === null ? null : { sessionId: ids.out(model.sessionId), title: clampText(this.title, LIMITS.labelLength), entryCount: model.index.nodeCount },
      view: { filter: model.filter, query: model.query, folded: [...model.folded].slice(0, LIMITS.savedIds).map((id) => ids.out(id)) },
      window: { version: this.versionValue, rowCount: count, start: from, rows, ...(seq === undefined ? {} : { seq }) },
      selection: { ids: model.selection.map((id) => ids.out(id)), focusRow: model.focusRow() },
      status: { shown: count, total: model.index.nodeCount, leafHidden: leaf !== undefined && !leaf.exact, ...(leaf ? { leafRow: leaf.row } : {}), ...(span ? { replacedCount: span.replacedCount } : {}) },
      scroll,
    };
  }

  /** @internal The row a scroll policy targets, or -1. */
  targetRow(policy: ScrollPolicy): number {
    if (policy.target === "focus") return this.model.focusRow();
    if (policy.target === "leaf") return this.model.leafRow()?.row ?? -1;
    return -1;
  }

  /** @internal */
  readOnlyMessage(): HostToWebviewMessage {
    const notice = this.readOnly;
    if (!notice) return { type: "readOnly", notice: null };
    return {
      type: "readOnly",
      notice: {
        message: clampText(notice.message, LIMITS.messageLength),
        canFork: notice.canFork,
        ...(notice.actionLabel ? { actionLabel: clampText(notice.actionLabel, LIMITS.nameLength) } : {}),
      },
    };
  }

  /** @internal A webview loaded: adopt what it saved when this window has nothing newer for that session. */
  adopt(saved: SavedTreeState | undefined): void {
    if (!saved || !this.untouched || saved.sessionId === null || this.model.sessionId === null || saved.sessionId !== this.ids.out(this.model.sessionId)) return;
    this.untouched = false;
    this.filterChosen = true;
    const ids = this.ids;
    this.model.restoreView(saved.filter, saved.query, saved.folded.map((id) => ids.in(id)), saved.selection.map((id) => ids.in(id)));
    this.versionValue++;
  }

  /** @internal Applies a request from a webview. */
  async handle(port: TreeViewPort, m: WebviewToHostMessage): Promise<void> {
    const model = this.model;
    const ids = this.ids;
    const current = (id: string): boolean => this.isCurrent(id);
    switch (m.type) {
      case "ready":
      case "viewport":
        return;
      case "log":
        if (m.level !== "info") {
          this.webviewProblems.push(m.message);
          if (this.webviewProblems.length > 50) this.webviewProblems.shift();
        }
        return this.actions.log(m.level, `webview: ${m.message}`);
      case "select":
        if (!current(m.sessionId) || !model.select(ids.in(m.id), m.add)) return;
        this.untouched = false;
        return this.broadcast({ target: "focus", align: "nearest", only: port });
      case "navigate":
        if (!current(m.sessionId)) return;
        this.untouched = false;
        this.navigate(m.move, m.pageSize);
        return this.broadcast({ target: "focus", align: "nearest", only: port });
      case "toggleFold": {
        if (!current(m.sessionId)) return;
        const id = ids.in(m.id);
        const i = model.index.positionOf(id);
        if (i === undefined || !model.setFolded(id, !model.rows.isFolded(i))) return;
        model.select(id);
        this.untouched = false;
        return this.broadcast({ target: "focus", align: "nearest", only: port });
      }
      case "setFilter":
        return this.setFilter(m.filter);
      case "setQuery":
        if (m.query === model.query) return;
        this.untouched = false;
        model.setQuery(m.query);
        return this.broadcast({ target: "focus", align: "center" });
      case "requestDetails":
        if (!current(m.sessionId)) return;
        return port.post(await this.detailsAnswer(m.requestId, m.entryId));
      case "openFileChange":
        if (!current(m.sessionId)) return;
        return this.actions.openFileChange?.(ids.in(m.entryId), m.path);
      case "forkSession":
        if (current(m.sessionId)) await this.actions.forkReadOnly();
        return;
      default:
        if (!current(m.sessionId)) {
          this.actions.log("warn", `dropped ${m.type} for a session that is no longer open`);
          return;
        }
        if (m.type === "checkout") return this.actions.checkout(ids.in(m.id));
        if (m.type === "fork") return this.actions.fork(ids.in(m.id));
        if (m.type === "label") return this.actions.label(ids.in(m.id));
        return this.actions.copyText(ids.in(m.id));
    }
  }

  /** @internal */
  reportFailure(type: string, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.actions.log("error", `tree action ${type} failed: ${message}`);
    this.actions.fail?.(message);
  }

  /** @internal */
  log(level: LogLevel, message: string): void {
    this.actions.log(level, message);
  }

  /** @internal Whether a session id from a webview names the session shown. */
  isCurrent(sessionId: string): boolean {
    return this.model.sessionId !== null && this.ids.out(this.model.sessionId) === sessionId;
  }

  // ------------------------------------------------------------ internals

  /**
   * The answer to a details request, always: a malformed entry (or one that cannot be read) gets an
   * error the pane shows, never silence that would leave it "Loading…".
   */
  private async detailsAnswer(requestId: string, safeId: string): Promise<EntryDetailsMessage> {
    const base = { type: "entryDetails" as const, requestId, entryId: safeId };
    let answer: EntryDetailsMessage;
    try {
      const id = this.ids.in(safeId);
      const found = this.actions.details(id, this.ids);
      // The files of a checkpoint there (git counts the lines); the details go without them if that fails.
      const files = found?.ok && this.actions.files ? await this.actions.files(id).catch((err: Error) => (this.actions.log("warn", `files of ${safeId}: ${err.message}`), undefined)) : undefined;
      answer = found ? { ...base, ...found, ...(files ? { files } : {}) } : { ...base, ok: false, error: `No entry with id ${safeId} in this session` };
    } catch (err) {
      answer = { ...base, ok: false, error: clampText(`Could not read this entry: ${(err as Error).message}`, LIMITS.messageLength) };
    }
    if (isHostToWebviewMessage(answer)) return answer;
    this.actions.log("error", `details of ${safeId} fell outside the protocol's limits`);
    return { ...base, ok: false, error: "This entry cannot be shown (its fields are outside the limits the view accepts)." };
  }

  private rowAt(r: number, e: EntrySummary): TreeRow {
    const model = this.model;
    const rows = model.rows;
    const i = rows.nodeAt(r);
    const lanes = rows.lanes(i, LANES_SENT);
    const leaf = model.leafRow();
    return {
      entry: clampSummary(e, this.ids),
      level: rows.level(i),
      posInSet: rows.posInSet(i),
      setSize: rows.setSize(i),
      lanes: lanes.columns,
      hiddenLanes: lanes.hidden,
      branches: rows.isBranchPoint(i) ? rows.drawnChildCount(i) : 0,
      folded: rows.isFolded(i),
      segmentStart: rows.isSegmentStart(i),
      top: rows.drawnParent(i) === NONE,
      orphan: model.index.isOrphan(i),
      onPath: model.isOnPath(i),
      leaf: leaf && leaf.row === r ? (leaf.exact ? "exact" : "inside") : null,
      label: clampLabel(model.labels.get(e.id)),
      span: model.spanState(i) ?? null,
      checkpoint: hasCheckpoint(model.index, i),
    };
  }

  private navigate(move: NavigationMove, pageSize: number): void {
    const model = this.model;
    const count = model.rows.count;
    if (count === 0) return;
    const row = model.focusRow();
    if (row < 0) {
      model.select(model.idAt(0));
      return;
    }
    const i = model.rows.nodeAt(row);
    const branch = model.rows.isBranchPoint(i);
    const page = Math.max(1, pageSize);
    let to = row;
    switch (move) {
      case "up":
        to = row - 1;
        break;
      case "down":
        to = row + 1;
        break;
      case "pageUp":
        to = row - page;
        break;
      case "pageDown":
        to = row + page;
        break;
      case "home":
        to = 0;
        break;
      case "end":
        to = count - 1;
        break;
      case "left":
        if (branch && !model.rows.isFolded(i)) {
          model.setFolded(model.idAt(row), true);
          return;
        }
        to = model.rows.visualParentRow(row);
        break;
      case "right":
        if (branch && model.rows.isFolded(i)) {
          model.setFolded(model.idAt(row), false);
          return;
        }
        to = model.rows.firstChildRow(row);
        break;
    }
    if ((move === "left" || move === "right") && to < 0) return;
    model.select(model.idAt(Math.max(0, Math.min(count - 1, to))));
  }

  /** Sends every port its window; a policy that names a port scrolls that one only. */
  private broadcast(policy: ScrollPolicy, reset = false): void {
    this.versionValue++;
    for (const port of this.ports) {
      const applies = policy.only === undefined || policy.only === port;
      port.update(applies ? policy : { target: "none", align: "nearest" }, reset);
    }
  }
}

/** One webview's connection to the hub. */
export class TreeViewPort {
  private ready = false;

  /** Whether the webview has said it is ready (and its page has not been dropped since). */
  get isReady(): boolean {
    return this.ready;
  }

  /**
   * The webview was hidden and VS Code dropped its page (a view without retainContextWhenHidden):
   * nothing posted reaches it until the page, loaded again, says it is ready.
   */
  pageDropped(): void {
    this.ready = false;
  }
  private from = 0;
  private to = 0;
  private visibleFrom = 0;
  private visibleTo = DEFAULT_VISIBLE;
  private disposed = false;

  constructor(
    private readonly hub: TreeHub,
    private readonly postFn: (message: HostToWebviewMessage) => void,
  ) {}

  /** Takes a message from the webview: validated, then applied. */
  receive(raw: unknown): void {
    if (this.disposed) return;
    if (!isWebviewToHostMessage(raw)) {
      this.hub.rejectedMessages++;
      this.hubLog("warn", `dropped an invalid message from the tree webview: ${describeInvalidMessage(raw)}`);
      return;
    }
    if (raw.type === "ready") return this.onReady(raw.saved);
    if (raw.type === "viewport") return this.onViewport(raw.sessionId, raw.from, raw.to, raw.visibleFrom, raw.visibleTo, raw.seq);
    void this.hub.handle(this, raw).catch((err: unknown) => this.hub.reportFailure(raw.type, err));
  }

  /** Whether the webview shows a row now (as far as the host knows). */
  showsRow(row: number): boolean {
    return row >= this.visibleFrom && row < this.visibleTo;
  }

  /** @internal Sends the current window, scrolled as the policy says. */
  update(policy: ScrollPolicy, reset = false): void {
    if (!this.ready) return;
    const target = this.hub.targetRow(policy);
    let scroll: ScrollRequest | null = null;
    if (target >= 0 && !(policy.ifHidden && this.showsRow(target))) {
      scroll = { row: target, align: policy.align };
      this.centreOn(target);
    }
    this.sendWindow(reset, scroll);
  }

  /** @internal */
  sendReadOnly(): void {
    if (this.ready) this.post(this.hub.readOnlyMessage());
  }

  /** @internal */
  post(message: HostToWebviewMessage): void {
    if (!this.disposed) this.postFn(message);
  }

  dispose(): void {
    this.disposed = true;
    this.hub.disconnect(this);
  }

  private onReady(saved: SavedTreeState | undefined): void {
    this.ready = true;
    this.hub.adopt(saved);
    const model = this.hub.model;
    let scroll: ScrollRequest | null = null;
    const revealed = this.hub.takeRevealOnReady() ? model.focusRow() : -1;
    if (revealed >= 0) {
      scroll = { row: revealed, align: "center" };
    } else if (saved && saved.sessionId !== null && this.hub.isCurrent(saved.sessionId) && saved.topRow < model.rows.count) {
      // Shown again after being hidden: where it was.
      this.visibleFrom = saved.topRow;
      this.visibleTo = saved.topRow + DEFAULT_VISIBLE;
      scroll = { row: saved.topRow, align: "start" };
    } else {
      const target = model.focusRow() >= 0 ? model.focusRow() : (model.leafRow()?.row ?? -1);
      if (target >= 0) scroll = { row: target, align: "center" };
    }
    if (scroll) this.centreOn(scroll.row);
    this.sendWindow(true, scroll);
    this.sendReadOnly();
  }

  private onViewport(sessionId: string, from: number, to: number, visibleFrom: number, visibleTo: number, seq: number): void {
    if (!this.ready || !this.hub.isCurrent(sessionId)) return;
    this.visibleFrom = visibleFrom;
    this.visibleTo = visibleTo;
    this.from = from;
    this.to = Math.min(to, from + LIMITS.rowsPerWindow);
    this.sendWindow(false, null, seq);
  }

  /** Moves the window to hold a row with a screen and a margin on each side. */
  private centreOn(row: number): void {
    const visible = Math.max(1, this.visibleTo - this.visibleFrom);
    this.visibleFrom = Math.max(0, row - Math.floor(visible / 2));
    this.visibleTo = this.visibleFrom + visible;
    this.from = Math.max(0, row - visible - MARGIN_ROWS);
    this.to = row + visible + MARGIN_ROWS;
  }

  private sendWindow(reset: boolean, scroll: ScrollRequest | null, seq?: number): void {
    const count = this.hub.model.rows.count;
    let from = Math.min(this.from, count);
    let to = Math.min(Math.max(this.to, from), count);
    if (to - from === 0 && count > 0) {
      // The window fell past the end (rows went away): hold the last screenfuls instead.
      const size = Math.max(this.to - this.from, DEFAULT_VISIBLE + MARGIN_ROWS);
      from = Math.max(0, count - size);
      to = count;
    }
    to = Math.min(to, from + LIMITS.rowsPerWindow);
    this.post(this.hub.messageFor(reset, scroll, from, to, seq));
  }

  private hubLog(level: LogLevel, message: string): void {
    this.hub.log(level, message);
  }
}

/** Whether a file checkpoint was recorded at node `i`: it is one, or one hangs right under it. */
function hasCheckpoint(index: TreeModel["index"], i: number): boolean {
  const isCheckpoint = (n: number): boolean => index.typeAt(n) === "custom" && index.summary(n).customType === CHECKPOINT_CUSTOM_TYPE;
  if (isCheckpoint(i)) return true;
  for (let c = index.firstChild(i); c !== NONE; c = index.nextSibling(c)) if (isCheckpoint(c)) return true;
  return false;
}
