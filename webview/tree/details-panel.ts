import type { EntryDetails } from "../../src/protocol/messages";
import { codicon, el } from "../shared/dom";
import { renderMarkdown } from "../shared/markdown";

/** What the panel shows about the selected compaction or branch summary. */
export interface DetailsHeader {
  icon: string;
  title: string;
  /** Short facts: tokens before, how many entries were replaced, ... */
  facts: string[];
}

export type DetailsBody = { state: "loading" } | { state: "ready"; details: EntryDetails } | { state: "error"; error: string };

/**
 * The pane under the tree that shows a compaction's or branch summary's full text, fetched from
 * the host on demand. The text is markdown (what a model wrote), rendered sanitised as the chat
 * renders it; file lists are text.
 */
export class DetailsPanel {
  readonly element: HTMLElement;
  private readonly title: HTMLElement;
  private readonly facts: HTMLElement;
  private readonly body: HTMLElement;
  private readonly icon: HTMLElement;

  constructor() {
    this.element = el("section", "details");
    this.element.setAttribute("aria-live", "polite");
    this.element.hidden = true;
    const head = el("div", "details-head");
    this.icon = codicon("fold");
    this.title = el("span", "details-title");
    head.append(this.icon, this.title);
    this.facts = el("div", "details-facts");
    this.body = el("div", "details-body");
    this.body.tabIndex = 0;
    this.element.append(head, this.facts, this.body);
  }

  /** What the pane shows now: the same again is not rebuilt (that would re-announce it and lose its scroll position). */
  private shown: { header: string; body: DetailsBody } | undefined;

  show(header: DetailsHeader, body: DetailsBody): void {
    const key = JSON.stringify(header);
    if (!this.element.hidden && this.shown && this.shown.header === key && this.shown.body === body) return;
    this.shown = { header: key, body };
    this.element.hidden = false;
    this.icon.className = `codicon codicon-${header.icon}`;
    this.title.textContent = header.title;
    this.element.setAttribute("aria-label", header.title);
    this.facts.textContent = header.facts.join(" · ");
    this.body.textContent = "";
    this.body.classList.toggle("error", body.state === "error");
    if (body.state === "loading") {
      this.body.textContent = "Loading…";
      return;
    }
    if (body.state === "error") {
      this.body.textContent = body.error;
      return;
    }
    const d = body.details;
    const text = d.kind === "text" ? d.text : d.summary;
    const textBlock = el("div", "details-text md");
    if (text) renderMarkdown(textBlock, text);
    else textBlock.textContent = "(empty summary)";
    this.body.appendChild(textBlock);
    if (d.kind === "compaction") {
      this.appendFiles("Read", d.readFiles);
      this.appendFiles("Modified", d.modifiedFiles);
    }
  }

  hide(): void {
    this.element.hidden = true;
    this.shown = undefined;
  }

  /** An empty pane with a hint (the editor tab, before anything is selected). */
  showEmpty(hint: string): void {
    this.shown = undefined;
    this.element.hidden = false;
    this.icon.className = "codicon codicon-info";
    this.title.textContent = "Details";
    this.element.setAttribute("aria-label", "Details");
    this.facts.textContent = "";
    this.body.classList.remove("error");
    this.body.textContent = hint;
  }

  private appendFiles(title: string, files: readonly string[]): void {
    if (files.length === 0) return;
    const block = el("div", "details-files");
    block.appendChild(el("div", "details-files-title", `${title} (${files.length})`));
    const list = el("ul");
    for (const f of files.slice(0, 200)) list.appendChild(el("li", undefined, f));
    if (files.length > 200) list.appendChild(el("li", "more", `… ${files.length - 200} more`));
    block.appendChild(list);
    this.body.appendChild(block);
  }
}
