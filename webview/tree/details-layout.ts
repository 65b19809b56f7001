import { codicon, el, listen, type Disposable } from "../shared/dom";

/** From this page width on, the details sit beside the rows (they take no row's height). */
export const BESIDE_FROM_PX = 640;
/** Rows the list keeps in view below the details when it can (the details give up height first). */
const KEEP_ROWS = 8;
const MIN_DETAILS_PX = 60;

/** What the side view remembers of the details pane. */
export interface DetailsPrefs {
  /** Shown under the rows in a narrow view (off by default: the rows keep the height). */
  details?: boolean;
  /** Its height there, in CSS pixels, as the user dragged it. */
  detailsHeight?: number;
}

/** Where the details pane is, for a page of this width and the user's choice. */
export function detailsPlacement(width: number, prefs: DetailsPrefs): "beside" | "below" | "off" {
  if (width >= BESIDE_FROM_PX) return "beside";
  return prefs.details === true ? "below" : "off";
}

/**
 * The height the details get under the rows: what the user chose (a third of the page before),
 * less what would leave fewer than KEEP_ROWS rows in view, never under a few lines.
 */
export function detailsHeight(prefs: DetailsPrefs, paneHeight: number, rowHeight: number, chrome: number): number {
  const wanted = prefs.detailsHeight ?? Math.round(paneHeight / 3);
  // One row more than kept: a scroll position between rows shows two of them in part.
  const most = paneHeight - chrome - (KEEP_ROWS + 1) * rowHeight;
  return Math.max(MIN_DETAILS_PX, Math.min(wanted, most));
}

/**
 * The side view's details pane: beside the rows when the view is wide, else under them only when
 * the toggle in the toolbar asks for it, at a height the sash above it sets. The editor tab lays
 * its details out itself (always beside).
 */
export class DetailsLayout implements Disposable {
  readonly toggle: HTMLButtonElement;
  readonly sash = el("div", "details-sash");
  private readonly disposables: Disposable[] = [];
  private placement: "beside" | "below" | "off" = "off";

  constructor(
    private readonly page: HTMLElement,
    private readonly treePane: HTMLElement,
    private readonly panel: HTMLElement,
    private readonly prefs: DetailsPrefs,
    private readonly metrics: () => { rowHeight: number; chrome: number },
    private readonly changed: () => void,
  ) {
    this.toggle = el("button", "details-toggle");
    this.toggle.type = "button";
    this.toggle.append(codicon("info"));
    this.toggle.setAttribute("aria-label", "Show details here");
    this.sash.setAttribute("role", "separator");
    this.sash.setAttribute("aria-orientation", "horizontal");
    this.sash.setAttribute("aria-label", "Details height");
    this.disposables.push(
      listen(this.toggle, "click", () => {
        this.prefs.details = !(this.prefs.details === true);
        this.layout();
        this.changed();
      }),
      listen(this.sash, "pointerdown", (e) => this.drag(e)),
    );
  }

  /** Places the pane for the page's width now. */
  layout(): void {
    const width = this.page.clientWidth;
    const placement = detailsPlacement(width, this.prefs);
    this.placement = placement;
    const below = placement === "below";
    this.toggle.hidden = placement === "beside";
    this.toggle.setAttribute("aria-pressed", String(below));
    this.toggle.title = below ? "Hide the details of the selected summary" : "Show the details of the selected summary here (Arbor: Open Conversation Tree in Editor shows them beside the rows)";
    this.panel.classList.toggle("beside", placement === "beside");
    this.panel.classList.toggle("details-off", placement === "off");
    this.sash.hidden = !below;
    if (placement === "beside") {
      if (this.panel.parentElement !== this.page) this.page.append(this.panel);
      this.panel.style.height = "";
    } else {
      const status = this.treePane.querySelector(":scope > .status");
      if (this.sash.parentElement !== this.treePane) this.treePane.insertBefore(this.sash, status);
      if (this.panel.parentElement !== this.treePane) this.treePane.insertBefore(this.panel, status);
      if (below) this.sizePanel();
    }
  }

  private sizePanel(): void {
    const { rowHeight, chrome } = this.metrics();
    this.panel.style.height = `${detailsHeight(this.prefs, this.treePane.clientHeight, rowHeight, chrome)}px`;
  }

  private drag(start: PointerEvent): void {
    if (this.placement !== "below") return;
    start.preventDefault();
    const startY = start.clientY;
    const startHeight = this.panel.getBoundingClientRect().height;
    this.sash.setPointerCapture(start.pointerId);
    const move = (e: PointerEvent): void => {
      this.prefs.detailsHeight = Math.round(startHeight + (startY - e.clientY));
      this.sizePanel();
    };
    const up = (): void => {
      this.sash.removeEventListener("pointermove", move);
      this.sash.removeEventListener("pointerup", up);
      this.sash.removeEventListener("pointercancel", up);
      // What was drawn is what is kept (the clamp included).
      this.prefs.detailsHeight = Math.round(this.panel.getBoundingClientRect().height);
      this.changed();
    };
    this.sash.addEventListener("pointermove", move);
    this.sash.addEventListener("pointerup", up);
    this.sash.addEventListener("pointercancel", up);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
