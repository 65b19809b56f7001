import { el, listen, type Disposable } from "../shared/dom";
import { createRowParts, type RowParts } from "./row-painter";

/** Fixed row height (px): what makes virtualisation a division. Matches VS Code's lists. */
export const ROW_HEIGHT = 22;
/** Rows drawn above and below the viewport so fast scrolling does not show blanks. */
const OVERSCAN = 12;

export interface TreeListCallbacks {
  /** Called once per render pass, before any row is asked about. */
  beginPaint(): void;
  /** The row object at an index: a different object means a repaint. */
  rowAt(index: number): object | undefined;
  /** Everything else a row's look depends on (path, leaf, selection, label...): a different key means a repaint. */
  stateKey(index: number): string;
  paint(parts: RowParts, index: number): void;
  onRowClick(index: number, onTwisty: boolean): void;
  onRowContextMenu(index: number): void;
  onKeyDown(event: KeyboardEvent): void;
  onScroll(scrollTop: number): void;
}

interface Slot {
  parts: RowParts;
  /** Row index last painted into this slot (-1: none). */
  index: number;
  /** The row object and state key of that paint. */
  row: object | undefined;
  key: string;
  /** The render pass that last used this slot. */
  pass: number;
}

/**
 * A virtualised list: a scroll container whose only children are a sized canvas and a small pool
 * of absolutely positioned row elements, reused as the view scrolls. Row i always lives in slot
 * i mod pool size, so a one-row scroll repaints one row; and a slot whose row and state key are
 * unchanged is not repainted, so a checkout repaints only the rows whose path state changed.
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

  constructor(private readonly callbacks: TreeListCallbacks) {
    this.element = el("div", "tree");
    this.element.setAttribute("role", "tree");
    this.element.setAttribute("aria-label", "Conversation tree");
    this.element.tabIndex = 0;
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
    this.canvas.style.height = `${count * ROW_HEIGHT}px`;
  }

  /** Rows that fit in the viewport. */
  pageSize(): number {
    return Math.max(1, Math.floor(this.height() / ROW_HEIGHT));
  }

  get scrollTop(): number {
    return this.element.scrollTop;
  }

  set scrollTop(value: number) {
    this.element.scrollTop = value;
    this.render();
  }

  /** Scrolls the least needed to show a row ("nearest"), or puts it in the middle ("center"). */
  scrollToIndex(index: number, align: "nearest" | "center" = "nearest"): void {
    if (index < 0 || index >= this.rowCount) return;
    const top = index * ROW_HEIGHT;
    const height = this.height();
    const current = this.element.scrollTop;
    let next = current;
    if (align === "center") next = top - (height - ROW_HEIGHT) / 2;
    else if (top < current) next = top;
    else if (top + ROW_HEIGHT > current + height) next = top + ROW_HEIGHT - height;
    if (next !== current) this.scrollTop = Math.max(0, next);
  }

  /** Points aria-activedescendant at a row (when it is drawn). */
  setActiveIndex(index: number): void {
    this.activeIndex = index;
    this.updateActiveDescendant();
  }

  /** Paints the rows in view (plus overscan) whose row or state changed, now. */
  render(): void {
    const height = this.height();
    const scrollTop = this.element.scrollTop;
    const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.rowCount - 1, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
    this.ensureSlots(Math.ceil(height / ROW_HEIGHT) + 2 * OVERSCAN + 2);
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
        slot.parts.root.style.transform = `translateY(${i * ROW_HEIGHT}px)`;
        slot.parts.root.hidden = false;
      }
    }
    for (const slot of this.slots) {
      if (slot.pass === pass || slot.index < 0) continue;
      slot.parts.root.hidden = true;
      slot.index = -1;
      slot.row = undefined;
    }
    this.updateActiveDescendant();
    this.callbacks.onScroll(scrollTop);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.disposables.length = 0;
  }

  private isFullyVisible(index: number): boolean {
    if (index < 0 || index >= this.rowCount) return false;
    const top = index * ROW_HEIGHT;
    const scrollTop = this.element.scrollTop;
    return top >= scrollTop && top + ROW_HEIGHT <= scrollTop + this.height();
  }

  private height(): number {
    if (this.viewportHeight === 0) this.viewportHeight = this.element.clientHeight;
    return this.viewportHeight || ROW_HEIGHT * 20;
  }

  private ensureSlots(count: number): void {
    if (this.slots.length >= count) return;
    // Growing the pool changes i mod n for every row: repaint all.
    while (this.slots.length < count) {
      const parts = createRowParts(`tree-row-${this.slots.length}`);
      parts.root.hidden = true;
      this.canvas.appendChild(parts.root);
      this.slots.push({ parts, index: -1, row: undefined, key: "", pass: 0 });
    }
    for (const slot of this.slots) slot.index = -1;
  }

  private updateActiveDescendant(): void {
    const slot = this.activeIndex >= 0 && this.slots.length > 0 ? this.slots[this.activeIndex % this.slots.length] : undefined;
    if (slot && slot.index === this.activeIndex) this.element.setAttribute("aria-activedescendant", slot.parts.root.id);
    else this.element.removeAttribute("aria-activedescendant");
  }

  private indexAt(target: EventTarget | null): number {
    if (!(target instanceof Element)) return -1;
    const row = target.closest(".row");
    if (!(row instanceof HTMLElement) || row.dataset.index === undefined) return -1;
    const index = Number(row.dataset.index);
    return Number.isInteger(index) && index >= 0 && index < this.rowCount ? index : -1;
  }

  private handleClick(e: MouseEvent): void {
    const index = this.indexAt(e.target);
    if (index < 0) return;
    const onTwisty = e.target instanceof Element && e.target.classList.contains("twisty") && e.target.classList.contains("codicon");
    this.callbacks.onRowClick(index, onTwisty);
  }
}
