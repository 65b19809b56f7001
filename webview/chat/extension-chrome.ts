/**
 * What Pi extensions show in the chat's chrome: text widgets above and below the input, a title
 * beside the session's, the run indicator's message and frames while a reply runs, and the label
 * of folded thinking blocks. All of it is plain text from the host (escapes already removed) and is
 * drawn with `textContent` only.
 */
import { EMPTY_EXTENSION_UI, type ExtensionUiState } from "../../src/core/pi-extensions/chrome";
import type { RunState } from "../../src/protocol/chat-messages";
import { codicon, el } from "../shared/dom";
import { setThinkingLabel } from "./item-view";

export class ExtensionChromeView {
  readonly title = el("span", "ext-title");
  readonly above = el("div", "ext-widgets above");
  readonly below = el("div", "ext-widgets below");
  private ui: ExtensionUiState = EMPTY_EXTENSION_UI;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly indicator: HTMLElement) {
    this.title.hidden = true;
    this.above.hidden = true;
    this.below.hidden = true;
    indicator.hidden = true;
  }

  set(ui: ExtensionUiState): void {
    this.ui = ui;
    this.title.hidden = ui.title === null;
    this.title.textContent = ui.title ?? "";
    this.title.title = ui.title ?? "";
    for (const [box, placement] of [[this.above, "above"], [this.below, "below"]] as const) {
      const widgets = ui.widgets.filter((w) => w.placement === placement);
      box.hidden = widgets.length === 0;
      box.replaceChildren(
        ...widgets.map((w) => {
          const node = el("div", "ext-widget", w.lines.join("\n"));
          node.dataset.widget = `${w.extension}/${w.key}`;
          node.title = w.extension;
          return node;
        }),
      );
    }
    const root = this.indicator.ownerDocument.body;
    setThinkingLabel(ui.thinkingLabel, root);
  }

  /** Draws the run indicator for `run`, with the extensions' message, visibility and frames while a reply runs. */
  showRun(run: RunState | null): void {
    clearInterval(this.timer);
    this.timer = undefined;
    const reply = run?.kind === "reply";
    this.indicator.hidden = run === null || (reply && !this.ui.workingVisible);
    if (!run) {
      this.indicator.replaceChildren();
      return;
    }
    const label = el("span", "run-label", reply && this.ui.workingMessage !== null ? this.ui.workingMessage : run.label);
    const indicator = reply ? this.ui.workingIndicator : null;
    if (!indicator) {
      this.indicator.replaceChildren(codicon("loading", "codicon-modifier-spin"), label);
      return;
    }
    const frame = el("span", "run-frame", indicator.frames[0] ?? "");
    frame.hidden = indicator.frames.length === 0;
    frame.setAttribute("aria-hidden", "true");
    this.indicator.replaceChildren(frame, label);
    if (indicator.frames.length > 1) {
      let i = 0;
      this.timer = setInterval(() => {
        i = (i + 1) % indicator.frames.length;
        frame.textContent = indicator.frames[i]!;
      }, indicator.intervalMs);
    }
  }
}
