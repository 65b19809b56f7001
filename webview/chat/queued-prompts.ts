/**
 * The prompts typed while the agent worked, shown above the input until they are delivered, as
 * Pi lists them ("Steering: …", "Follow-up: …"). Each has a button that takes it back into the
 * input; Alt+Up (in the input) takes them all back.
 */
import type { QueuedPrompt } from "../../src/protocol/chat-messages";
import { codicon, el } from "../shared/dom";

export class QueuedPromptsView {
  readonly element = el("div", "queued-prompts");
  private count = 0;

  constructor(private readonly takeBack: (id: string) => void) {
    this.element.setAttribute("role", "list");
    this.element.setAttribute("aria-label", "Queued messages");
    this.element.hidden = true;
  }

  /** How many prompts wait now. */
  get size(): number {
    return this.count;
  }

  set(queued: readonly QueuedPrompt[]): void {
    this.count = queued.length;
    this.element.hidden = queued.length === 0;
    this.element.replaceChildren(
      ...queued.map((prompt) => {
        const row = el("div", `queued-prompt ${prompt.kind === "steer" ? "steer" : "follow-up"}`);
        row.setAttribute("role", "listitem");
        row.dataset.queuedId = prompt.id;
        const label = prompt.kind === "steer" ? "Steering" : "Follow-up";
        const text = el("span", "queued-text", prompt.text);
        text.title = prompt.text;
        row.append(codicon(prompt.kind === "steer" ? "arrow-right" : "clock"), el("span", "queued-kind", `${label}:`), text);
        if (prompt.imageCount > 0) row.append(el("span", "queued-images", prompt.imageCount === 1 ? "1 image" : `${prompt.imageCount} images`));
        const back = el("button", "queued-take-back");
        back.type = "button";
        back.title = "Take back into the input";
        back.setAttribute("aria-label", `Take back into the input: ${prompt.text.slice(0, 80)}`);
        back.append(codicon("edit"));
        back.addEventListener("click", () => this.takeBack(prompt.id));
        row.append(back);
        return row;
      }),
    );
    if (queued.length > 0) this.element.append(el("div", "queued-hint", "Alt+Up takes them all back into the input; Stop or Escape too."));
  }
}
