import type { EntryDetails, TurnFiles } from "../../src/protocol/messages";
import { codicon, el } from "../shared/dom";
import { renderMarkdown } from "../shared/markdown";

/** What the panel shows about the selected compaction or branch summary. */
export interface DetailsHeader {
  icon: string;
  title: string;
  /** Short facts: tokens before, how many entries were replaced, ... */
  facts: string[];
}

export type DetailsBody = { state: "loading" } | { state: "ready"; details: EntryDetails; files?: TurnFiles } | { state: "error"; error: string };

const CHANGE_ICONS = { added: "diff-added", modified: "diff-modified", deleted: "diff-removed" } as const;

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
  /** A file of the turn was clicked (null: "Show All"). */
  onOpenFile: ((path: string | null) => void) | undefined;

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
    if (body.files) this.appendTurnFiles(body.files);
  }

  /** The files recorded at the entry, each one click from its diff. */
  private appendTurnFiles(files: TurnFiles): void {
    const block = el("div", "details-files turn-files");
    const head = el("div", "details-files-title");
    if (files.first) {
      head.textContent = `Files recorded here: the workspace as the session first saw it (${files.total} ${files.total === 1 ? "file" : "files"})`;
      block.appendChild(head);
      this.body.appendChild(block);
      return;
    }
    head.textContent = `Files this turn changed (${files.total})`;
    if (files.total > 0) {
      const all = el("button", "link-button", "Show All");
      all.type = "button";
      all.title = "Open every change in one diff view";
      all.addEventListener("click", () => this.onOpenFile?.(null));
      head.append(" ", all);
    }
    block.appendChild(head);
    const list = el("ul");
    for (const change of files.changes) {
      const item = el("li", `turn-file ${change.kind}`);
      const open = el("button", "link-button turn-file-path");
      open.type = "button";
      open.title = `${change.kind === "added" ? "Added" : change.kind === "deleted" ? "Deleted" : "Changed"}: open the diff`;
      open.append(codicon(CHANGE_ICONS[change.kind]), el("span", undefined, change.path));
      open.addEventListener("click", () => this.onOpenFile?.(change.path));
      item.appendChild(open);
      if (change.linesAdded !== null || change.linesDeleted !== null) {
        item.append(" ", el("span", "lines-added", `+${change.linesAdded ?? 0}`), " ", el("span", "lines-deleted", `\u2212${change.linesDeleted ?? 0}`));
      } else {
        item.append(" ", el("span", "muted", "binary"));
      }
      list.appendChild(item);
    }
    if (files.total > files.changes.length) list.appendChild(el("li", "more", `… ${files.total - files.changes.length} more`));
    block.appendChild(list);
    this.body.appendChild(block);
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
