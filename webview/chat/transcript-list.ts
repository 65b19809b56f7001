/**
 * The transcript as a virtual list of items of different heights: only the items near the viewport
 * are in the DOM; the rest are held by two spacers whose heights come from measured heights (or an
 * estimate for items never drawn). The webview holds only the items it was sent: a window at the
 * end, and whatever it asked for while the reader scrolled up.
 *
 * Scrolling stays put while heights change: the first visible item is the anchor, and the scroll
 * position follows it. When the reader is at the bottom, new content keeps the view at the bottom.
 */
import type { TranscriptSlot } from "../../src/protocol/chat-messages";
import { el } from "../shared/dom";
import { placeholder, renderItemSafely, type FoldState, type LiveTools } from "./item-view";

/** Drawn beyond the viewport on both sides, in pixels. */
const MARGIN = 800;
const DEFAULT_ESTIMATE = 96;
/** How close to the bottom counts as "at the bottom". */
const STICKY = 24;

export interface TranscriptListOptions {
  /** Asks the host for items `[start, end)` of the current generation. */
  request(start: number, end: number): void;
  folds: FoldState;
  tools: LiveTools;
}

export class TranscriptList {
  readonly element: HTMLElement;
  private readonly top = el("div", "spacer");
  private readonly itemsBox = el("div", "items");
  private readonly bottom = el("div", "spacer");
  /** Content after the last item (the streaming reply, a running command). */
  readonly tail = el("div", "tail");

  private total = 0;
  /** By path position: an item, null (the entry shows nothing), or undefined (not loaded yet). */
  private items: (TranscriptSlot | undefined)[] = [];
  private heights: number[] = [];
  private measured: boolean[] = [];
  private offsets: number[] = [0];
  private offsetsDirty = true;
  private estimate = DEFAULT_ESTIMATE;
  private drawn = new Map<number, HTMLElement>();
  private first = 0;
  private last = 0;
  private requested = new Set<number>();
  private stuck = true;
  /** Where this list last scrolled the view itself. */
  private ownScrollTop = -1;
  /** Frames since the last reset: the first one draws the viewport only, the margin follows. */
  private framesSinceReset = 0;
  private frame = 0;
  private readonly resize: ResizeObserver;

  constructor(private readonly options: TranscriptListOptions) {
    this.element = el("div", "transcript");
    this.element.setAttribute("role", "log");
    this.element.setAttribute("aria-label", "Transcript");
    this.element.tabIndex = 0;
    this.element.append(this.top, this.itemsBox, this.bottom, this.tail);
    this.element.addEventListener("scroll", () => {
      // A scroll this list made itself says nothing of where the reader wants to be: an item that
      // grew since (one drawn over several tasks) must not unstick the view from the bottom.
      if (Math.abs(this.element.scrollTop - this.ownScrollTop) >= 1) this.stuck = this.atBottom();
      this.schedule();
    });
    // Item heights change when folds open, images load or the view is resized.
    this.resize = new ResizeObserver(() => this.schedule());
    this.resize.observe(this.element);
    this.resize.observe(this.itemsBox);
    this.resize.observe(this.tail);
  }

  private atBottom(): boolean {
    const e = this.element;
    return e.scrollHeight - e.scrollTop - e.clientHeight <= STICKY;
  }

  /** Replaces everything: a new generation with `total` items, of which `items` start at `start`. */
  reset(total: number, start: number, items: readonly TranscriptSlot[]): void {
    this.total = total;
    this.items = new Array<TranscriptSlot | undefined>(total);
    this.heights = new Array<number>(total).fill(this.estimate);
    this.measured = new Array<boolean>(total).fill(false);
    this.requested.clear();
    items.forEach((item, i) => this.set(start + i, item));
    this.clearDrawn();
    this.offsetsDirty = true;
    this.stuck = true;
    this.framesSinceReset = 0;
    this.render();
  }

  /** Items appended at the end (or earlier items received). */
  /** Stores a slot; an empty one takes no room. */
  private set(index: number, item: TranscriptSlot): void {
    this.items[index] = item;
    if (item === null) {
      this.heights[index] = 0;
      this.measured[index] = true;
      this.offsetsDirty = true;
    }
  }

  put(start: number, items: readonly TranscriptSlot[], total = this.total): void {
    if (total > this.total) {
      for (let i = this.total; i < total; i++) {
        this.items.push(undefined);
        this.heights.push(this.estimate);
        this.measured.push(false);
      }
      this.total = total;
      this.offsetsDirty = true;
    }
    items.forEach((item, i) => {
      const index = start + i;
      if (index >= this.total) return;
      this.set(index, item);
      this.requested.delete(index);
      this.drop(index);
    });
    this.schedule();
  }

  /** One item changed in place. */
  update(index: number, item: TranscriptSlot): void {
    if (index >= this.total) return;
    this.set(index, item);
    this.drop(index);
    this.schedule();
  }

  /** Redraws the drawn items that hold a tool call (its live state changed). */
  refreshTool(toolCallId: string): void {
    for (const [index, node] of this.drawn) {
      if (node.querySelector(`[data-tool-call-id="${CSS.escape(toolCallId)}"]`)) this.drop(index);
    }
    this.schedule();
  }

  get itemCount(): number {
    return this.total;
  }

  /** The loaded item at an index. */
  itemAt(index: number): TranscriptSlot | undefined {
    return this.items[index];
  }

  /** Keeps the view at the bottom if the reader was there (after the tail grew). */
  tailChanged(): void {
    this.schedule();
  }

  scrollToBottom(): void {
    this.stuck = true;
    this.schedule();
  }

  private drop(index: number): void {
    const node = this.drawn.get(index);
    if (node) {
      node.remove();
      this.drawn.delete(index);
    }
  }

  private clearDrawn(): void {
    for (const node of this.drawn.values()) node.remove();
    this.drawn.clear();
    this.first = this.last = 0;
  }

  /**
   * The margin of a new transcript is drawn in the frame after its first one: a callback in the first
   * frame would run before that frame's paint and delay it.
   */
  private scheduleAfterPaint(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.render();
      });
    });
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  private offsetOf(index: number): number {
    if (this.offsetsDirty) {
      const offsets = new Array<number>(this.total + 1);
      offsets[0] = 0;
      for (let i = 0; i < this.total; i++) offsets[i + 1] = offsets[i]! + this.heights[i]!;
      this.offsets = offsets;
      this.offsetsDirty = false;
    }
    return this.offsets[Math.min(index, this.total)]!;
  }

  /** The first index whose bottom is below `y`. */
  private indexAt(y: number): number {
    let lo = 0;
    let hi = this.total;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.offsetOf(mid + 1) <= y) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Draws the items near the viewport, measures them, and keeps the anchor (or the bottom) in place. */
  render(): void {
    if (this.frame) {
      cancelAnimationFrame(this.frame);
      this.frame = 0;
    }
    const view = this.element;
    const stick = this.stuck;
    const height = view.clientHeight || 600;
    // The first frame of a new transcript draws what is visible; the margin comes a frame later.
    const margin = this.framesSinceReset++ === 0 ? 0 : MARGIN;
    if (margin === 0) this.scheduleAfterPaint();
    // The anchor: the first item visible now, and where it sits in the viewport.
    const anchor = this.indexAt(view.scrollTop);
    const anchorDelta = this.offsetOf(anchor) - view.scrollTop;

    let first: number;
    let last: number;
    if (stick) {
      // At the bottom: draw upwards from the end until the viewport and the margin are covered.
      last = this.total;
      first = last;
      let covered = 0;
      while (first > 0 && covered < height + margin) covered += this.heights[--first]!;
    } else {
      first = this.indexAt(Math.max(0, view.scrollTop - margin));
      last = Math.min(this.total, this.indexAt(view.scrollTop + height + margin) + 1);
    }
    this.draw(first, last);
    this.measure();
    this.top.style.height = `${this.offsetOf(first)}px`;
    this.bottom.style.height = `${this.offsetOf(this.total) - this.offsetOf(last)}px`;
    if (stick) view.scrollTop = view.scrollHeight;
    else {
      const target = this.offsetOf(anchor) - anchorDelta;
      if (Math.abs(view.scrollTop - target) >= 1) view.scrollTop = target;
    }
    this.ownScrollTop = view.scrollTop;
    this.requestMissing(first, last);
  }

  private draw(first: number, last: number): void {
    for (const [index, node] of this.drawn) {
      if (index < first || index >= last) {
        node.remove();
        this.drawn.delete(index);
      }
    }
    let before: HTMLElement | null = null;
    for (let i = last - 1; i >= first; i--) {
      if (this.items[i] === null) continue;
      let node = this.drawn.get(i);
      if (!node) {
        const item = this.items[i];
        node = item ? renderItemSafely(item, i, this.options.folds, this.options.tools) : placeholder(i, this.heights[i]!);
        if (!item) node.dataset.placeholder = "1";
        this.drawn.set(i, node);
        this.itemsBox.insertBefore(node, before);
      } else if (node.nextSibling !== before) {
        this.itemsBox.insertBefore(node, before);
      }
      before = node;
    }
    this.first = first;
    this.last = last;
  }

  private measure(): void {
    let changed = false;
    let sum = 0;
    let count = 0;
    for (const [index, node] of this.drawn) {
      if (node.dataset.placeholder) continue;
      const h = node.offsetHeight;
      if (h > 0 && h !== this.heights[index]) {
        this.heights[index] = h;
        changed = true;
      }
      this.measured[index] = true;
      sum += h;
      count++;
    }
    if (count > 0) {
      // An unknown position is an item or an empty slot (a tool result shown in its reply, a label):
      // weigh the drawn items' average by the share of empty slots among those loaded.
      let loaded = 0;
      let empty = 0;
      for (const item of this.items) {
        if (item === undefined) continue;
        loaded++;
        if (item === null) empty++;
      }
      const share = loaded > 0 ? 1 - empty / loaded : 1;
      const estimate = Math.max(8, Math.round((sum / count) * share));
      if (Math.abs(estimate - this.estimate) > this.estimate * 0.25) {
        // Items never drawn take the new average, so the scroll bar stays honest.
        this.estimate = estimate;
        for (let i = 0; i < this.total; i++) if (!this.measured[i]) this.heights[i] = estimate;
        changed = true;
      }
    }
    if (changed) this.offsetsDirty = true;
  }

  private requestMissing(first: number, last: number): void {
    let start = -1;
    for (let i = first; i <= last; i++) {
      const missing = i < last && this.items[i] === undefined && !this.requested.has(i);
      if (missing && start < 0) start = i;
      if (!missing && start >= 0) {
        // Ask for a page around the gap, so scrolling on does not ask again at once.
        const from = Math.max(0, Math.min(start, i - 100));
        const to = Math.min(this.total, Math.max(i, from + 100));
        for (let j = from; j < to; j++) if (this.items[j] === undefined) this.requested.add(j);
        this.options.request(from, to);
        start = -1;
      }
    }
  }

  /** Indexes drawn now (for tests and the keyboard). */
  drawnRange(): [number, number] {
    return [this.first, this.last];
  }

  dispose(): void {
    this.resize.disconnect();
    if (this.frame) cancelAnimationFrame(this.frame);
  }
}
