import type { ReadOnlyNotice } from "../../src/protocol/messages";
import { codicon, el, type Disposable } from "../shared/dom";
import { createButton } from "../toolkit";

/** The read-only notice (another window holds the session), with an offer to fork. */
export class ReadOnlyBanner implements Disposable {
  readonly element: HTMLElement;
  private readonly text: HTMLElement;
  private readonly fork: HTMLElement;
  private readonly subscription: Disposable;

  constructor(onFork: () => void) {
    this.element = el("div", "banner");
    this.element.setAttribute("role", "status");
    this.element.hidden = true;
    this.text = el("span", "banner-text");
    const button = createButton({ text: "Fork", appearance: "primary" });
    this.fork = button.element;
    this.fork.setAttribute("title", "Fork this session into a new file you can write to");
    this.subscription = button.onClick(onFork);
    this.element.append(codicon("lock", "banner-icon"), this.text, this.fork);
  }

  show(notice: ReadOnlyNotice | null): void {
    this.element.hidden = notice === null;
    if (!notice) return;
    this.text.textContent = notice.message;
    this.fork.hidden = !notice.canFork;
    const label = notice.actionLabel ?? "Fork";
    if (this.fork.textContent !== label) this.fork.textContent = label;
    this.fork.setAttribute("title", notice.actionLabel ? notice.actionLabel : "Fork this session into a new file you can write to");
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
