/**
 * The `@` file search of the chat input: typing `@` at the start of a word asks the host for the
 * workspace's files that match what follows (VS Code's file search, run in the host); they show in
 * a list above the input drawn as the `/` command list is. Up and Down move, Tab or Enter put the
 * path in as Pi does (`@path `), Escape closes it. Its keys are caught before the composer's, so
 * Enter chooses a file instead of sending while the list is open.
 */
import type { FileMatch, FileResultsMessage } from "../../src/protocol/chat-attachments";
import type { ChatToHostMessage } from "../../src/protocol/chat-messages";
import { el } from "../shared/dom";
import { applyMention, mentionAt, type MentionQuery } from "./mention-query";

/** The tallest the list gets (as the command list). */
const POPUP_MAX_HEIGHT = 260;

export class FileMention {
  private readonly popup = el("div", "mention-popup");
  private mention: MentionQuery | undefined;
  private matches: FileMatch[] = [];
  private selected = 0;
  private requestId = 0;

  constructor(
    private readonly container: HTMLElement,
    private readonly input: HTMLTextAreaElement,
    private readonly post: (message: ChatToHostMessage) => void,
  ) {
    this.popup.setAttribute("role", "listbox");
    this.popup.setAttribute("aria-label", "Files");
    this.popup.hidden = true;
    container.prepend(this.popup);
    input.addEventListener("input", () => this.update());
    input.addEventListener("blur", () => this.close());
    // Capture on the container: runs before the input's own key handler (the composer's).
    container.addEventListener("keydown", (e) => this.onKey(e), true);
    this.popup.addEventListener("mousedown", (e) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>("[data-index]");
      if (!row) return;
      e.preventDefault();
      this.choose(Number(row.dataset.index));
    });
  }

  /** Whether the list is showing. */
  get open(): boolean {
    return !this.popup.hidden;
  }

  /** The host's files for a query; answers to older queries are dropped. */
  receive(m: FileResultsMessage): void {
    if (m.requestId !== this.requestId || !this.mention) return;
    this.matches = m.files;
    this.selected = 0;
    this.popup.hidden = m.unavailable || this.matches.length === 0;
    this.paint();
  }

  private update(): void {
    const caret = this.input.selectionStart ?? 0;
    const mention = caret === this.input.selectionEnd ? mentionAt(this.input.value, caret) : undefined;
    this.mention = mention;
    if (!mention) {
      this.close();
      return;
    }
    this.requestId++;
    this.post({ type: "searchFiles", requestId: this.requestId, query: mention.query.slice(0, 1_000) });
  }

  private close(): void {
    this.popup.hidden = true;
    this.matches = [];
  }

  private onKey(e: KeyboardEvent): void {
    if (e.target !== this.input || this.popup.hidden || this.matches.length === 0) return;
    const take = (): void => {
      e.preventDefault();
      e.stopImmediatePropagation();
    };
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      take();
      this.selected = (this.selected + (e.key === "ArrowDown" ? 1 : this.matches.length - 1)) % this.matches.length;
      this.paint();
    } else if (e.key === "Tab" || (e.key === "Enter" && !e.shiftKey && !e.isComposing)) {
      take();
      this.choose(this.selected);
    } else if (e.key === "Escape") {
      take();
      this.mention = undefined;
      this.close();
    }
  }

  private choose(index: number): void {
    const file = this.matches[index];
    const mention = this.mention;
    if (!file || !mention) return;
    const caret = this.input.selectionStart ?? this.input.value.length;
    const next = applyMention(this.input.value, caret, mention, file.path);
    this.mention = undefined;
    this.close();
    this.input.value = next.text;
    this.input.focus();
    this.input.setSelectionRange(next.caret, next.caret);
    this.input.dispatchEvent(new Event("input", { bubbles: true }));
  }

  private paint(): void {
    const room = Math.floor(this.container.getBoundingClientRect().top) - 4;
    this.popup.style.maxHeight = `${Math.max(48, Math.min(POPUP_MAX_HEIGHT, room))}px`;
    this.popup.replaceChildren(
      ...this.matches.map((file, i) => {
        const row = el("div", `slash-row${i === this.selected ? " selected" : ""}`);
        row.dataset.index = String(i);
        row.dataset.path = file.path;
        row.setAttribute("role", "option");
        row.setAttribute("aria-selected", String(i === this.selected));
        row.append(el("span", "slash-name", file.name), el("span", "slash-desc", file.path));
        return row;
      }),
    );
    this.popup.querySelector(".selected")?.scrollIntoView({ block: "nearest" });
  }
}
