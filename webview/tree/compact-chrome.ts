import { el, type Disposable } from "../shared/dom";

/** Below this page height (the panel's default at 1280x800 is about 240 px) the chrome takes one line... */
export const COMPACT_BELOW_PX = 360;
/** ...if the page is this wide: in a narrow view (the side bar) the toolbar's line has no room for them. */
export const COMPACT_FROM_WIDTH_PX = 560;

/**
 * The side view's lines around the rows (the toolbar, the session's name above the rows, the status
 * line under them) take about 80 px. In a short view (the panel, where the Conversation Tree lives by
 * default) that is four rows: there the name and the status join the toolbar's line, after the
 * search and the filter, and the rows get the height. The page's size alone decides, so moving
 * them never changes the answer.
 */
export class CompactChrome implements Disposable {
  private readonly meta = el("div", "toolbar-meta");
  private readonly observer: ResizeObserver;
  private compact = false;

  constructor(
    private readonly page: HTMLElement,
    private readonly treePane: HTMLElement,
    private readonly toolbar: HTMLElement,
    private readonly nameLine: HTMLElement,
    private readonly status: HTMLElement,
    private readonly changed: () => void,
  ) {
    this.observer = new ResizeObserver(() => this.layout());
    this.observer.observe(page);
    this.layout();
  }

  get isCompact(): boolean {
    return this.compact;
  }

  /** Places the name and the status for the page's size now. */
  layout(): void {
    const height = this.page.clientHeight;
    const compact = height > 0 && height < COMPACT_BELOW_PX && this.page.clientWidth >= COMPACT_FROM_WIDTH_PX;
    if (compact === this.compact) return;
    this.compact = compact;
    document.body.classList.toggle("compact", compact);
    if (compact) {
      this.meta.append(this.nameLine, this.status);
      this.toolbar.insertBefore(this.meta, this.toolbar.querySelector(":scope > .details-toggle"));
    } else {
      // Back where they belong: the name under the toolbar, the status last in the pane.
      this.toolbar.after(this.nameLine);
      this.treePane.append(this.status);
      this.meta.remove();
    }
    this.changed();
  }

  dispose(): void {
    this.observer.disconnect();
  }
}
