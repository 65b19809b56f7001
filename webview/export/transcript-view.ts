/**
 * The transcript half of an exported page: the items of one path (the shared transcript model, as
 * the chat shows them), drawn with `textContent` and the shared markdown sanitiser only. Thinking
 * and tool runs are folded; long transcripts are drawn in chunks as the reader scrolls.
 */
import { fence } from "../../src/core/export/page-model";
import type { SessionEntry } from "../../src/core/session/types";
import { formatTokens } from "../../src/core/tree/entry-view";
import { buildTranscript, toolResultText, type AssistantItem, type AssistantPart, type ToolResultView, type TranscriptItem } from "../../src/core/transcript";
import { el, listen, type Disposable } from "../shared/dom";
import { imageElement, renderMarkdown, type MarkdownOptions } from "../shared/markdown";

/** Items drawn at once; the next chunk comes when the reader nears the end. */
const CHUNK = 40;
/** How near the end (px) the reader gets before the next chunk is drawn. */
const AHEAD = 1200;
/** Tool-call arguments shown in the folded line, at most. */
const SUMMARY_LIMIT = 120;

function markdown(className: string, text: string, options?: MarkdownOptions): HTMLElement {
  const div = el("div", `markdown ${className}`);
  renderMarkdown(div, text, options);
  return div;
}

function timeText(ms: number): string {
  return ms > 0 ? new Date(ms).toLocaleString() : "";
}

function images(list: readonly { data: string; mimeType: string }[]): HTMLElement[] {
  const out: HTMLElement[] = [];
  for (const image of list) {
    const img = imageElement(image);
    out.push(img ?? el("p", "note", `[an image of type ${image.mimeType} is not shown]`));
  }
  return out;
}

/** One line of what a tool call was asked to do: the command or path for the usual tools, else the arguments. */
export function toolCallSummary(args: Record<string, unknown>): string {
  const pick = ["command", "path", "file_path", "pattern", "url", "query"].find((k) => typeof args[k] === "string");
  const text = pick ? String(args[pick]) : JSON.stringify(args);
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat.length > SUMMARY_LIMIT ? `${flat.slice(0, SUMMARY_LIMIT - 1)}…` : flat;
}

function card(kind: string, title: string, entryId: string, timestamp: number): { root: HTMLElement; body: HTMLElement } {
  const root = el("article", `item item-${kind}`);
  root.dataset.entryId = entryId;
  const head = el("header", "item-head");
  head.append(el("span", "role", title));
  const time = timeText(timestamp);
  if (time) head.append(el("span", "time", time));
  const body = el("div", "item-body");
  root.append(head, body);
  return { root, body };
}

function folded(className: string, summary: (HTMLElement | string)[], ...content: HTMLElement[]): HTMLDetailsElement {
  const details = el("details", className);
  const s = el("summary");
  s.append(...summary);
  details.append(s, ...content);
  return details;
}

function toolResult(result: ToolResultView): HTMLElement[] {
  const out: HTMLElement[] = [];
  const text = toolResultText(result);
  if (text) out.push(el("pre", `tool-output${result.isError ? " error" : ""}`, text));
  out.push(...images(result.content.filter((b) => b.type === "image")));
  const diff = (result.details as { diff?: unknown } | undefined)?.diff;
  if (typeof diff === "string" && diff) out.push(markdown("tool-diff", fence(diff, "diff")));
  if (out.length === 0) out.push(el("p", "note", "(no output)"));
  return out;
}

function toolCall(part: Extract<AssistantPart, { type: "toolCall" }>): HTMLElement {
  const status = part.result === undefined ? "no result" : part.result.isError ? "error" : "";
  const summary: (HTMLElement | string)[] = [el("span", "tool-name", part.name), el("span", "tool-args", toolCallSummary(part.arguments))];
  if (status) summary.push(el("span", `badge${part.result?.isError ? " error" : ""}`, status));
  const content = [markdown("tool-arguments", fence(JSON.stringify(part.arguments, null, 2) ?? "{}", "json"))];
  if (part.result) content.push(...toolResult(part.result));
  return folded(`tool${part.result?.isError ? " error" : ""}`, summary, ...content);
}

function assistant(item: AssistantItem): HTMLElement {
  const { root, body } = card("assistant", "assistant", item.entryId, item.timestamp);
  for (const part of item.parts) {
    if (part.type === "text") body.appendChild(markdown("text", part.text));
    else if (part.type === "thinking") {
      body.appendChild(part.redacted ? el("p", "note", "(thinking redacted by the provider)") : folded("thinking", ["Thinking"], el("div", "thinking-text", part.text)));
    } else body.appendChild(toolCall(part));
  }
  if (item.stopReason === "error" || item.stopReason === "aborted") {
    const what = item.stopReason === "aborted" ? "Stopped" : "Failed";
    body.appendChild(el("p", "reply-error", item.errorMessage ? `${what}: ${item.errorMessage}` : `${what}.`));
  } else if (item.stopReason === "length") {
    body.appendChild(el("p", "note", "(the reply hit the output limit)"));
  }
  const meta = [item.provider && item.model ? `${item.provider}/${item.model}` : item.model];
  if (item.usage) meta.push(`${formatTokens(item.usage.input)} in · ${formatTokens(item.usage.output)} out`);
  root.querySelector(".item-head")?.appendChild(el("span", "model", meta.filter(Boolean).join(" · ")));
  return root;
}

/** The element of one transcript item. */
export function renderItem(item: TranscriptItem, labels: ReadonlyMap<string, string>): HTMLElement {
  let root: HTMLElement;
  switch (item.kind) {
    case "user": {
      const c = card("user", "user", item.entryId, item.timestamp);
      if (item.text) c.body.appendChild(markdown("text", item.text, { lineBreaks: true }));
      c.body.append(...images(item.images));
      root = c.root;
      break;
    }
    case "assistant":
      root = assistant(item);
      break;
    case "toolResult": {
      const c = card("tool-result", `tool result: ${item.toolName}`, item.entryId, item.timestamp);
      c.body.append(...toolResult(item.result));
      root = c.root;
      break;
    }
    case "bash": {
      const c = card("bash", item.excludeFromContext ? "shell (not sent to the model)" : "shell", item.entryId, item.timestamp);
      c.body.appendChild(el("pre", "bash-command", `$ ${item.command}`));
      if (item.output) c.body.appendChild(el("pre", "tool-output", item.output));
      const notes: string[] = [];
      if (item.cancelled) notes.push("cancelled");
      else if (item.exitCode !== undefined && item.exitCode !== 0) notes.push(`exit code ${item.exitCode}`);
      if (item.truncated) notes.push(item.fullOutputPath ? `output truncated; full output in ${item.fullOutputPath}` : "output truncated");
      if (notes.length) c.body.appendChild(el("p", item.cancelled || item.exitCode ? "reply-error" : "note", notes.join(" · ")));
      root = c.root;
      break;
    }
    case "custom": {
      const c = card("custom", item.customType, item.entryId, item.timestamp);
      if (item.text) c.body.appendChild(markdown("text", item.text, { lineBreaks: true }));
      c.body.append(...images(item.images));
      root = c.root;
      break;
    }
    case "compaction": {
      const c = card("compaction", `compaction · ${formatTokens(item.tokensBefore)} tokens summarized`, item.entryId, item.timestamp);
      c.body.appendChild(folded("summary", ["Summary of the earlier conversation"], markdown("text", item.summary)));
      root = c.root;
      break;
    }
    case "branchSummary": {
      const c = card("branch-summary", "branch summary", item.entryId, item.timestamp);
      c.body.appendChild(folded("summary", ["Summary of the branch left behind"], markdown("text", item.summary)));
      root = c.root;
      break;
    }
  }
  const label = labels.get(item.entryId);
  if (label) root.querySelector(".item-head")?.appendChild(el("span", "badge label", label));
  return root;
}

/** The element of one item, or a note that it could not be shown: one item must not stop the page's loop. */
function renderItemSafely(item: TranscriptItem, labels: ReadonlyMap<string, string>): HTMLElement {
  try {
    return renderItem(item, labels);
  } catch {
    const root = el("article", "item item-broken");
    root.append(el("p", "note", "This entry could not be shown."));
    return root;
  }
}

export class TranscriptView implements Disposable {
  readonly element: HTMLElement;
  private readonly heading: HTMLElement;
  private readonly list: HTMLElement;
  private readonly more: HTMLButtonElement;
  private readonly disposables: Disposable[] = [];
  private items: TranscriptItem[] = [];
  private drawn = 0;

  constructor(private readonly labels: ReadonlyMap<string, string>) {
    this.element = el("main", "transcript");
    this.element.setAttribute("aria-label", "Transcript");
    this.heading = el("p", "path-info");
    this.heading.setAttribute("aria-live", "polite");
    this.list = el("div", "items");
    this.more = el("button", "more");
    this.more.type = "button";
    this.element.append(this.heading, this.list, this.more);
    this.disposables.push(
      listen(this.element, "scroll", () => this.fill(), { passive: true }),
      listen(this.more, "click", () => this.drawChunk()),
    );
  }

  /** Shows the transcript of a path (root first). */
  show(path: readonly SessionEntry[], state: { leafId: string | null; exported: boolean }): void {
    this.items = buildTranscript(path);
    this.drawn = 0;
    this.list.replaceChildren();
    const where = state.leafId === null ? "No entry chosen" : state.exported ? "The path the session was exported at" : "Another path (picked in the tree)";
    this.heading.textContent = `${where}: ${path.length} entr${path.length === 1 ? "y" : "ies"}, ${this.items.length} item${this.items.length === 1 ? "" : "s"}`;
    this.element.scrollTop = 0;
    this.drawChunk();
    this.fill();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.disposables.length = 0;
  }

  /** Draws chunks until the drawn part reaches AHEAD pixels past the viewport (or all is drawn). */
  private fill(): void {
    const e = this.element;
    while (this.drawn < this.items.length && e.scrollTop + e.clientHeight + AHEAD > e.scrollHeight) this.drawChunk();
  }

  private drawChunk(): void {
    const end = Math.min(this.items.length, this.drawn + CHUNK);
    const fragment = document.createDocumentFragment();
    for (let i = this.drawn; i < end; i++) fragment.appendChild(renderItemSafely(this.items[i]!, this.labels));
    this.list.appendChild(fragment);
    this.drawn = end;
    const left = this.items.length - end;
    this.more.hidden = left === 0;
    this.more.textContent = `Show ${Math.min(left, CHUNK)} more of ${left}`;
  }
}
