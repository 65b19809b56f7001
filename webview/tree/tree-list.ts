import { el, listen, type Disposable } from "../shared/dom";
import { createRowParts, type RowParts } from "./row-painter";

/** Row height (px) of one-line rows: what makes virtualisation a division. Matches VS Code's lists. */
export const ROW_HEIGHT = 22;
/** Row height (px) of rows whose text wraps onto a second line (narrow views). */
export const WRAPPED_ROW_HEIGHT = 40;
/** Rows drawn above and below the viewport so fast scrolling does not show blanks. */
export const OVERSCAN = 12;
/**
 * The tallest scroll canvas (px). Browsers cap an element's height (Chromium near 33.5 million
 * px): a longer list scrolls a canvas of this height, mapped proportionally onto its rows.
 */
const MAX_CANVAS = 8_000_000;

export interface TreeListCallbacks {
  /** Called once per render pass, before any row is asked about. */
  beginPaint(): void;
  /** The row object at an index: a different object means a repaint. */
  rowAt(index: number): object | undefined;
  /** Everything else a row's look depends on (selection, lanes drawn...): a different key means a repaint. */
  stateKey(index: number): string;
  paint(parts: RowParts, index: number): void;
  /** `additive`: Ctrl (Cmd on macOS) was held, to add the row to the selection. */
  onRowClick(index: number, onTwisty: boolean, additive: boolean): void;
  onRowContextMenu(index: number): void;
  onKeyDown(event: KeyboardEvent): void;
  /** The list's size changed (before it renders again). */
  onResize(width: number, height: number): void;
  /** After every render: the rows in view, [first, last). */
  onRendered(first: number, last: number): void;
}

interface Slot {
  parts: RowParts;
  /** Row index last painted into this slot (-1: none). */
  index: number;
  /** The row object and state key of that paint. */
  row: object | undefined;
  key: string;
  /** Where the slot was last placed (px). */
  top: number;
  /** The render pass that last used this slot. */
  pass: number;
}

/**
 * A virtualised list: a scroll container whose only children are a sized canvas and a small pool
 * of absolutely positioned row elements, reused as the view scrolls. Row i always lives in slot
 * i mod pool size, so a one-row scroll repaints one row; and a slot whose row and state key are
 * unchanged is not repainted, so a checkout repaints only the rows whose state changed.
 */
export class TreeList implements Disposable {
  readonly element: HTMLDivElement;
  private readonly canvas: HTMLDivElement;
  private readonly slots: Slot[] = [];
  private readonly disposables: Disposable[] = [];
  private rowCount = 0;
  private pass = 0;
  private activeIndex = -1;
  private viewportHeight = 0;
  private rowHeightValue = ROW_HEIGHT;

  constructor(private readonly callbacks: TreeListCallbacks) {
    this.element = el("div", "tree");
    this.element.setAttribute("role", "tree");
    this.element.setAttribute("aria-label", "Conversation tree");
    this.element.tabIndex = 0;
    this.element.dataset.rowHeight = String(ROW_HEIGHT);
    this.canvas = el("div", "tree-canvas");
    this.element.appendChild(this.canvas);
    this.disposables.push(
      // Scroll events are dispatched inside the frame's rendering steps: drawing right away shows
      // the new rows in the same frame, where a requestAnimationFrame would be one frame late.
      listen(this.element, "scroll", () => this.render(), { passive: true }),
      listen(this.element, "click", (e) => this.handleClick(e)),
      listen(this.element, "contextmenu", (e) => {
        const index = this.indexAt(e.target);
        if (index >= 0) this.callbacks.onRowContextMenu(index);
      }),
      listen(this.element, "keydown", (e) => this.callbacks.onKeyDown(e)),
    );
    // A banner or the details pane appearing shrinks the list: keep the active row in view if it was.
    const resize = new ResizeObserver(() => {
      const wasVisible = this.isFullyVisible(this.activeIndex);
      this.viewportHeight = this.element.clientHeight;
      this.callbacks.onResize(this.element.clientWidth, this.viewportHeight);
      this.sizeCanvas();
      this.render();
      if (wasVisible) this.scrollToIndex(this.activeIndex);
    });
    resize.observe(this.element);
    this.disposables.push({ dispose: () => resize.disconnect() });
  }

  /** The number of rows; call `render` after it. */
  setRowCount(count: number): void {
    if (count === this.rowCount) return;
    this.rowCount = count;
    this.sizeCanvas();
  }

  get rowHeight(): number {
    return this.rowHeightValue;
  }

  /** Changes the row height, keeping the first row in view; repaints every row. */
  setRowHeight(height: number): void {
    if (height === this.rowHeightValue) return;
    const top = Math.floor(this.topRow());
    this.rowHeightValue = height;
    this.element.dataset.rowHeight = String(height);
    this.sizeCanvas();
    this.invalidate();
    this.element.scrollTop = this.scrollTopFor(top);
  }

  /** Rows that fit in the viewport. */
  pageSize(): number {
    return Math.max(1, Math.floor(this.height() / this.rowHeightValue));
  }

  /** The rows in view now: [first, last). */
  visibleRange(): { first: number; last: number } {
    return this.rangeAt(this.topRow());
  }

  private rangeAt(top: number): { first: number; last: number } {
    const first = Math.min(this.rowCount, Math.max(0, Math.floor(top)));
    const last = Math.min(this.rowCount, Math.ceil(top + this.height() / this.rowHeightValue));
    return { first, last: Math.max(first, last) };
  }

  /** Forgets what each slot shows, so the next render repaints every row. */
  invalidate(): void {
    for (const slot of this.slots) slot.index = -1;
  }

  get scrollTop(): number {
    return this.element.scrollTop;
  }

  set scrollTop(value: number) {
    this.element.scrollTop = value;
    this.render();
  }

  /** Scrolls the least needed to show a row ("nearest"), puts it in the middle ("center") or at the top ("start"). */
  scrollToIndex(index: number, align: "nearest" | "center" | "start" = "nearest"): void {
    if (index < 0 || index >= this.rowCount) return;
    const rows = this.height() / this.rowHeightValue;
    const current = this.topRow();
    let next = current;
    // In the middle at a whole row: a fractional top would cut the first and the last row in half.
    if (align === "center") next = Math.max(0, Math.round(index - (Math.floor(rows) - 1) / 2));
    else if (align === "start") next = index;
    else if (index < current) next = index;
    else if (index + 1 > current + rows) next = index + 1 - rows;
    if (next !== current) this.scrollTop = this.scrollTopFor(Math.max(0, next));
  }

  /** Points aria-activedescendant at a row (when it is drawn). */
  setActiveIndex(index: number): void {
    this.activeIndex = index;
    this.updateActiveDescendant();
  }

  /**
   * Paints the rows in view (plus overscan) whose row or state changed, now. The scroll position
   * is read once, before anything is written: a read after a write would make the browser lay
   * the page out in the middle of the script (and once per row on a scaled canvas), where the
   * frame lays it out once anyway.
   */
  render(): void {
    const height = this.height();
    const rowHeight = this.rowHeightValue;
    const scrollTop = this.element.scrollTop;
    const top = this.topRowAt(scrollTop);
    const first = Math.max(0, Math.floor(top) - OVERSCAN);
    const last = Math.min(this.rowCount - 1, Math.ceil(top + height / rowHeight) + OVERSCAN);
    this.ensureSlots(Math.ceil(height / rowHeight) + 2 * OVERSCAN + 2);
    const n = this.slots.length;
    const pass = ++this.pass;
    this.callbacks.beginPaint();
    for (let i = first; i <= last; i++) {
      const slot = this.slots[i % n];
      slot.pass = pass;
      const row = this.callbacks.rowAt(i);
      const key = this.callbacks.stateKey(i);
      if (slot.index !== i || slot.row !== row || slot.key !== key) {
        slot.index = i;
        slot.row = row;
        slot.key = key;
        this.callbacks.paint(slot.parts, i);
        slot.parts.root.hidden = false;
      }
      const y = this.rowTop(i, scrollTop, top);
      if (slot.top !== y) {
        slot.top = y;
        slot.parts.root.style.transform = `translateY(${y}px)`;
      }
    }
    for (const slot of this.slots) {
      if (slot.pass === pass || slot.index < 0) continue;
      slot.parts.root.hidden = true;
      slot.index = -1;
      slot.row = undefined;
    }
    this.updateActiveDescendant();
    const visible = this.rangeAt(top);
    this.callbacks.onRendered(visible.first, visible.last);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.disposables.length = 0;
  }

  // -- geometry -------------------------------------------------------------------
  // Up to MAX_CANVAS a row sits at index × row height. Beyond, the canvas is capped and the
  // scroll position maps proportionally onto the first row in view, and rows are placed
  // relative to the viewport.

  private fullHeight(): number {
    return this.rowCount * this.rowHeightValue;
  }

  private scaled(): boolean {
    return this.fullHeight() > MAX_CANVAS;
  }

  private sizeCanvas(): void {
    this.canvas.style.height = `${Math.min(this.fullHeight(), MAX_CANVAS)}px`;
  }

  /** The (fractional) row at the top of the viewport. */
  private topRow(): number {
    return this.topRowAt(this.element.scrollTop);
  }

  private topRowAt(scrollTop: number): number {
    if (!this.scaled()) return scrollTop / this.rowHeightValue;
    const maxScroll = MAX_CANVAS - this.height();
    const maxTop = this.rowCount - this.height() / this.rowHeightValue;
    return maxScroll > 0 ? (Math.min(scrollTop, maxScroll) / maxScroll) * maxTop : 0;
  }

  private scrollTopFor(row: number): number {
    if (!this.scaled()) return row * this.rowHeightValue;
    const maxScroll = MAX_CANVAS - this.height();
    const maxTop = this.rowCount - this.height() / this.rowHeightValue;
    return maxTop > 0 ? (Math.min(row, maxTop) / maxTop) * maxScroll : 0;
  }

  /** Where a row is placed, given the scroll position and the row at the top it gives. */
  private rowTop(index: number, scrollTop: number, top: number): number {
    if (!this.scaled()) return index * this.rowHeightValue;
    return Math.round(scrollTop + (index - top) * this.rowHeightValue);
  }

  private isFullyVisible(index: number): boolean {
    if (index < 0 || index >= this.rowCount) return false;
    const top = this.topRow();
    return index >= top && index + 1 <= top + this.height() / this.rowHeightValue;
  }

  private height(): number {
    if (this.viewportHeight === 0) this.viewportHeight = this.element.clientHeight;
    return this.viewportHeight || this.rowHeightValue * 20;
  }

  private ensureSlots(count: number): void {
    if (this.slots.length >= count) return;
    // Growing the pool changes i mod n for every row: repaint all.
    while (this.slots.length < count) {
      const parts = createRowParts(`tree-row-${this.slots.length}`);
      parts.root.hidden = true;
      this.canvas.appendChild(parts.root);
      this.slots.push({ parts, index: -1, row: undefined, key: "", top: -1, pass: 0 });
    }
    this.invalidate();
  }

  private updateActiveDescendant(): void {
    const slot = this.activeIndex >= 0 && this.slots.length > 0 ? this.slots[this.activeIndex % this.slots.length] : undefined;
    if (slot && slot.index === this.activeIndex) this.element.setAttribute("aria-activedescendant", slot.parts.root.id);
    else this.element.removeAttribute("aria-activedescendant");
  }

  private indexAt(target: EventTarget | null): number {
    if (!(target instanceof Element)) return -1;
    const row = target.closest(".row");
    if (!(row instanceof HTMLElement) || row.dataset.index === undefined || row.classList.contains("placeholder")) return -1;
    const index = Number(row.dataset.index);
    return Number.isInteger(index) && index >= 0 && index < this.rowCount ? index : -1;
  }

  private handleClick(e: MouseEvent): void {
    const index = this.indexAt(e.target);
    if (index < 0) return;
    const onTwisty = e.target instanceof Element && e.target.classList.contains("twisty") && e.target.classList.contains("codicon");
    this.callbacks.onRowClick(index, onTwisty, e.ctrlKey || e.metaKey);
  }
}
