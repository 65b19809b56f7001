/**
 * The tree half of an exported page: every entry in tree order (the same projection, layout and
 * filters as the Conversation Tree), the path of the shown leaf highlighted, a click or Enter on a
 * row shows the transcript up to that entry. Rows are virtual (only those in view exist), so a
 * 100,000-entry session draws as fast as a short one. All text goes in through `textContent`.
 */
import { describeEntry, accessibleNameOf } from "../../src/core/tree/entry-view";
import { FILTER_MODES, FILTER_MODE_NAMES, type FilterMode } from "../../src/core/tree/filters";
import { layoutTree, type Row, type TreeLayout } from "../../src/core/tree/layout";
import { resolveEntryNode, type TreeProjection } from "../../src/core/tree/projection";
import { el, listen, type Disposable } from "../shared/dom";

/** Fixed row height (px): keeps virtualisation a division. */
const ROW_HEIGHT = 24;
/** Rows drawn beyond the viewport, so fast scrolling shows no blanks. */
const OVERSCAN = 10;
/** Indent per level (px), and the deepest level indented (deeper rows stay readable). */
const INDENT = 14;
const MAX_INDENT_LEVEL = 24;

export interface TreePanelOptions {
  projection: TreeProjection;
  labels: ReadonlyMap<string, string>;
  /** The leaf the session was exported at. */
  exportedLeafId: string | null;
  /** Called with the entry the reader picked. */
  onPick(id: string): void;
}

export class TreePanel implements Disposable {
  readonly element: HTMLElement;
  private readonly list: HTMLDivElement;
  private readonly canvas: HTMLDivElement;
  private readonly disposables: Disposable[] = [];
  private layout: TreeLayout;
  private filter: FilterMode = "default";
  private pathIds: ReadonlySet<string> = new Set();
  private shownLeafId: string | null = null;
  /** The row of the shown leaf (or of its nearest shown ancestor), -1 when none. */
  private leafIndex = -1;
  /** The keyboard cursor (aria-activedescendant). */
  private cursor = -1;
  /** The row of the exported leaf (or of its nearest shown ancestor). */
  private exportedIndex = -1;

  constructor(private readonly options: TreePanelOptions) {
    this.element = el("nav", "tree-panel");
    this.element.setAttribute("aria-label", "Conversation tree");
    const toolbar = el("div", "tree-toolbar");
    const filterLabel = el("label", "tree-filter", "Show ");
    const select = el("select");
    select.setAttribute("aria-label", "Tree filter");
    for (const mode of FILTER_MODES) {
      const option = el("option", undefined, FILTER_MODE_NAMES[mode]);
      option.value = mode;
      select.appendChild(option);
    }
    filterLabel.appendChild(select);
    const back = el("button", "tree-back", "Exported leaf");
    back.type = "button";
    back.title = "Show the path the session was exported at";
    toolbar.append(filterLabel, back);

    this.list = el("div", "tree");
    this.list.setAttribute("role", "tree");
    this.list.setAttribute("aria-label", "Entries");
    this.list.tabIndex = 0;
    this.canvas = el("div", "tree-canvas");
    this.list.appendChild(this.canvas);
    this.element.append(toolbar, this.list);

    this.layout = this.relayout();
    this.disposables.push(
      listen(this.list, "scroll", () => this.render(), { passive: true }),
      listen(this.list, "click", (e) => {
        const index = this.indexAt(e.target);
        if (index >= 0) this.pickIndex(index);
      }),
      listen(this.list, "keydown", (e) => this.onKey(e)),
      listen(select, "change", () => {
        this.filter = (FILTER_MODES as readonly string[]).includes(select.value) ? (select.value as FilterMode) : "default";
        this.layout = this.relayout();
        this.cursor = this.leafIndex = this.indexOfLeaf();
        this.render();
        this.scrollTo(this.leafIndex, "center");
      }),
      listen(back, "click", () => {
        if (options.exportedLeafId !== null) options.onPick(options.exportedLeafId);
      }),
    );
    const resize = new ResizeObserver(() => this.render());
    resize.observe(this.list);
    this.disposables.push({ dispose: () => resize.disconnect() });
  }

  /** Marks the path of the leaf the transcript shows, and scrolls its row into view. */
  showPath(leafId: string | null, pathIds: ReadonlySet<string>): void {
    this.shownLeafId = leafId;
    this.pathIds = pathIds;
    this.cursor = this.leafIndex = this.indexOfLeaf();
    this.render();
    this.scrollTo(this.leafIndex, "nearest");
  }

  /** The number of rows the current filter shows (for tests and the status line). */
  get rowCount(): number {
    return this.layout.rows.length;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.disposables.length = 0;
  }

  private relayout(): TreeLayout {
    const leaf = this.options.exportedLeafId === null ? null : resolveEntryNode(this.options.projection, this.options.exportedLeafId);
    const leafId = leaf ? leaf.summary.id : null;
    const layout = layoutTree(this.options.projection, { filter: this.filter, searchTokens: [], folded: new Set(), labels: this.options.labels, leafId });
    this.canvas.style.height = `${layout.rows.length * ROW_HEIGHT}px`;
    this.layout = layout;
    this.exportedIndex = this.rowIndexFor(this.options.exportedLeafId);
    return layout;
  }

  /** The row standing for an entry: its own, or its nearest shown ancestor's when the filter hides it. */
  private rowIndexFor(id: string | null): number {
    for (let n = id === null ? null : (resolveEntryNode(this.options.projection, id) ?? null); n; n = n.parent) {
      const row = this.layout.rowById.get(n.summary.id);
      if (row && row.index >= 0) return row.index;
    }
    return -1;
  }

  private indexOfLeaf(): number {
    return this.rowIndexFor(this.shownLeafId);
  }

  private render(): void {
    const height = this.list.clientHeight || ROW_HEIGHT * 20;
    const top = this.list.scrollTop;
    const rows = this.layout.rows;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(rows.length - 1, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
    const drawn: HTMLElement[] = [];
    for (let i = first; i <= last; i++) drawn.push(this.drawRow(rows[i]!, i));
    this.canvas.replaceChildren(...drawn);
    if (this.cursor >= first && this.cursor <= last) this.list.setAttribute("aria-activedescendant", `tree-row-${this.cursor}`);
    else this.list.removeAttribute("aria-activedescendant");
  }

  private drawRow(row: Row, index: number): HTMLElement {
    const s = row.node.summary;
    const view = describeEntry(s);
    const label = this.options.labels.get(s.id);
    const onPath = this.pathIds.has(s.id);
    const isShownLeaf = index === this.leafIndex;
    const isExportedLeaf = index === this.exportedIndex;
    const div = el("div", `row kind-${view.kind}${onPath ? " on-path" : ""}${isShownLeaf ? " shown-leaf" : ""}${index === this.cursor ? " cursor" : ""}${view.isError ? " error" : ""}`);
    div.id = `tree-row-${index}`;
    div.dataset.index = String(index);
    div.dataset.entryId = s.id;
    div.setAttribute("role", "treeitem");
    div.setAttribute("aria-level", String(row.level));
    div.setAttribute("aria-posinset", String(row.posInSet));
    div.setAttribute("aria-setsize", String(row.siblings.size));
    div.setAttribute("aria-selected", String(isShownLeaf));
    div.setAttribute("aria-label", accessibleNameOf(view, { label, isLeaf: isExportedLeaf, onActivePath: onPath }));
    div.style.setProperty("--indent", `${Math.min(row.level - 1, MAX_INDENT_LEVEL) * INDENT}px`);
    div.style.transform = `translateY(${index * ROW_HEIGHT}px)`;
    if (row.segmentStart) div.classList.add("segment-start");
    div.append(el("span", "marker", isShownLeaf ? "●" : onPath ? "•" : ""), el("span", "tag", view.tag), el("span", "text", view.text));
    if (view.detail) div.appendChild(el("span", "badge detail", view.detail));
    if (label) div.appendChild(el("span", "badge label", label));
    if (isExportedLeaf) div.appendChild(el("span", "badge leaf", "exported leaf"));
    if (row.node.orphan) div.appendChild(el("span", "badge orphan", "orphan"));
    return div;
  }

  private scrollTo(index: number, align: "nearest" | "center"): void {
    if (index < 0) return;
    const top = index * ROW_HEIGHT;
    const height = this.list.clientHeight;
    const current = this.list.scrollTop;
    let next = current;
    if (align === "center") next = top - (height - ROW_HEIGHT) / 2;
    else if (top < current) next = top;
    else if (top + ROW_HEIGHT > current + height) next = top + ROW_HEIGHT - height;
    if (next !== current) {
      this.list.scrollTop = Math.max(0, next);
      this.render();
    }
  }

  private pickIndex(index: number): void {
    const row = this.layout.rows[index];
    if (!row) return;
    this.cursor = index;
    this.options.onPick(row.node.summary.id);
  }

  private onKey(e: KeyboardEvent): void {
    const count = this.layout.rows.length;
    if (count === 0 || e.altKey || e.ctrlKey || e.metaKey) return;
    const page = Math.max(1, Math.floor(this.list.clientHeight / ROW_HEIGHT) - 1);
    const from = this.cursor < 0 ? 0 : this.cursor;
    const moves: Record<string, number> = { ArrowUp: from - 1, ArrowDown: from + 1, PageUp: from - page, PageDown: from + page, Home: 0, End: count - 1 };
    if (e.key in moves) {
      e.preventDefault();
      this.cursor = Math.max(0, Math.min(count - 1, moves[e.key]!));
      this.render();
      this.scrollTo(this.cursor, "nearest");
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      if (this.cursor >= 0) this.pickIndex(this.cursor);
    }
  }

  private indexAt(target: EventTarget | null): number {
    if (!(target instanceof Element)) return -1;
    const row = target.closest(".row");
    if (!(row instanceof HTMLElement) || row.dataset.index === undefined) return -1;
    const index = Number(row.dataset.index);
    return Number.isInteger(index) && index >= 0 && index < this.layout.rows.length ? index : -1;
  }
}
