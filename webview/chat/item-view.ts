/**
 * One transcript item as DOM: messages with sanitised markdown, thinking and tool runs folded by
 * default, bash runs with their exit codes, summary cards that expand. Session text reaches the DOM
 * only through `textContent` or the sanitising markdown renderer.
 */
import type { AssistantPart, ToolResultView, TranscriptItem } from "../../src/core/transcript/transcript";
import { imageElement, renderMarkdown, type MarkdownOptions } from "../shared/markdown";
import { codicon, el } from "../shared/dom";
import type { Usage } from "../../src/core/session/types";
import { tokensOf } from "../../src/core/session/usage-totals";
import { usageBreakdown, usageLine } from "../../src/core/session/usage-format";

/** Which folds are open, by key, so a re-rendered item keeps what the reader opened. */
export type FoldState = Set<string>;

/** Live state of tool calls that are running now (by tool call id). */
export interface LiveTools {
  running: Set<string>;
  output: Map<string, string>;
}

const TIME = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });

function timeText(ms: number): string {
  return ms > 0 ? TIME.format(new Date(ms)) : "";
}

function countTokens(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/**
 * The muted line under a reply: its tokens and, when known, its cost (recorded, or from the
 * model's prices, which the host filled in); the breakdown in full on hover. None for a reply
 * that used nothing (a stopped one).
 */
function replyUsageLine(usage: Usage): HTMLElement | undefined {
  const tokens = tokensOf(usage);
  const cost = usage.cost?.total;
  const text = usageLine(tokens, cost);
  if (!text) return undefined;
  const line = el("div", "reply-usage", text);
  line.title = usageBreakdown(tokens, cost);
  return line;
}

/** A fold (details/summary) whose open state survives re-rendering. */
export function fold(key: string, folds: FoldState, className: string, summary: (HTMLElement | string)[], body: () => HTMLElement[]): HTMLDetailsElement {
  const details = el("details", className);
  details.dataset.fold = key;
  const head = el("summary");
  for (const part of summary) head.append(part);
  details.append(head);
  let filled = false;
  const fill = (): void => {
    if (filled) return;
    filled = true;
    details.append(...body());
  };
  // Bodies are built when first opened: a folded 50 KB tool output costs nothing until read.
  if (folds.has(key)) {
    details.open = true;
    fill();
  }
  // The body is built as the summary is clicked (or pressed), before the details opens: the toggle
  // event comes a task later, and the open fold would otherwise paint empty for a frame.
  head.addEventListener("click", () => {
    if (!details.open) fill();
  });
  details.addEventListener("toggle", () => {
    if (details.open) {
      folds.add(key);
      fill();
    } else folds.delete(key);
  });
  return details;
}

function markdownBlock(text: string, className = "md", options?: MarkdownOptions): HTMLElement {
  const block = el("div", className);
  renderMarkdown(block, text, options);
  return block;
}

function preBlock(text: string, className = "output"): HTMLElement {
  return el("pre", className, text);
}

function images(list: readonly { data: string; mimeType: string }[]): HTMLElement[] {
  const out: HTMLElement[] = [];
  for (const image of list) {
    const img = imageElement(image);
    if (img) out.push(img);
    else out.push(el("div", "muted", `[${image.mimeType} attachment not shown]`));
  }
  return out;
}

function header(icon: string, who: string, time: number): HTMLElement {
  const head = el("div", "item-head");
  head.append(codicon(icon), el("span", "who", who));
  const t = timeText(time);
  if (t) head.append(el("span", "time", t));
  return head;
}

/** A short line that says what a tool call does (its path, its command). */
export function toolSummary(args: Record<string, unknown>): string {
  const pick = (key: string): string | undefined => (typeof args[key] === "string" ? (args[key] as string) : undefined);
  const first = pick("path") ?? pick("file_path") ?? pick("command") ?? pick("pattern") ?? pick("query") ?? pick("url");
  if (first) return first.split("\n")[0]!.slice(0, 200);
  const json = JSON.stringify(args);
  return json.length > 120 ? `${json.slice(0, 119)}…` : json;
}

function resultText(result: ToolResultView): string {
  return result.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
}

/** The edits of an edit-tool call as (old, new) pairs, when its arguments have that shape. */
function editsOf(args: Record<string, unknown>): { oldText: string; newText: string }[] | undefined {
  const one = (x: unknown): { oldText: string; newText: string } | undefined => {
    const r = x as Record<string, unknown> | null;
    return r && typeof r.oldText === "string" && typeof r.newText === "string" ? { oldText: r.oldText, newText: r.newText } : undefined;
  };
  if (Array.isArray(args.edits)) {
    const edits = args.edits.map(one);
    return edits.every((e) => e) ? (edits as { oldText: string; newText: string }[]) : undefined;
  }
  const single = one(args);
  return single ? [single] : undefined;
}

/** An edit shown as removed and added lines. */
function diffView(edits: { oldText: string; newText: string }[]): HTMLElement {
  const pre = el("pre", "diff");
  edits.forEach((edit, i) => {
    if (i > 0) pre.append(el("span", "diff-sep", "⋯\n"));
    for (const line of edit.oldText.split("\n")) pre.append(el("span", "diff-del", `- ${line}\n`));
    for (const line of edit.newText.split("\n")) pre.append(el("span", "diff-add", `+ ${line}\n`));
  });
  return pre;
}

/** A diff a tool recorded in its result details (as Pi's edit tool does), if any. */
function recordedDiff(result: ToolResultView | undefined): string | undefined {
  const details = result?.details as { diff?: unknown } | undefined;
  return details && typeof details.diff === "string" ? details.diff : undefined;
}

function recordedDiffView(diff: string): HTMLElement {
  const pre = el("pre", "diff");
  for (const line of diff.split("\n")) {
    const cls = line.startsWith("+") ? "diff-add" : line.startsWith("-") ? "diff-del" : "diff-ctx";
    pre.append(el("span", cls, `${line}\n`));
  }
  return pre;
}

function toolBody(name: string, args: Record<string, unknown>, result: ToolResultView | undefined, live: string | undefined): HTMLElement[] {
  const body: HTMLElement[] = [];
  const diff = recordedDiff(result);
  const edits = name === "edit" ? editsOf(args) : undefined;
  if (diff) body.push(recordedDiffView(diff));
  else if (edits) body.push(diffView(edits));
  else if (name === "bash" && typeof args.command === "string") body.push(preBlock(`$ ${args.command}`, "command"));
  else if (name === "write" && typeof args.content === "string") body.push(preBlock(args.content, "output"));
  else body.push(preBlock(JSON.stringify(args, null, 2), "args"));
  if (result) {
    const text = resultText(result);
    if (text) body.push(preBlock(text, result.isError ? "output error" : "output"));
    body.push(...images(result.content.filter((b): b is { type: "image"; data: string; mimeType: string } => b.type === "image")));
  } else if (live !== undefined) {
    body.push(preBlock(live, "output live"));
  }
  return body;
}

/** What a tool call whose result is not on the current path says. */
export const NO_RESULT_ON_PATH = "no result on this path";

function toolRun(key: string, folds: FoldState, part: Extract<AssistantPart, { type: "toolCall" }>, tools: LiveTools | undefined): HTMLElement {
  const running = tools?.running.has(part.id) === true && !part.result;
  // Not running and no result: the result is on another branch, or was never written (a checkout
  // of the reply itself, a stopped run). Said so, so that it does not read as still running.
  const unanswered = !part.result && !running;
  const status = part.result ? (part.result.isError ? codicon("error", "status-error") : codicon("check", "status-ok")) : running ? codicon("loading", "codicon-modifier-spin") : codicon("circle-slash", "muted");
  const head = [status, el("span", "tool-name", part.name), el("span", "tool-summary", toolSummary(part.arguments))];
  if (unanswered) head.push(el("span", "tool-note muted", NO_RESULT_ON_PATH));
  const details = fold(key, folds, "tool", head, () => {
    const body = toolBody(part.name, part.arguments, part.result, tools?.output.get(part.id));
    if (unanswered) body.push(el("div", "muted", `${NO_RESULT_ON_PATH}: its result, if any, is on another branch.`));
    return body;
  });
  details.dataset.toolCallId = part.id;
  return details;
}

/** The label of a folded thinking block: "Thinking", or what a Pi extension set (`ctx.ui.setHiddenThinkingLabel`). */
let thinkingLabel: string | null = null;

function labelText(node: HTMLElement): string {
  const label = thinkingLabel ?? "Thinking";
  if (node.dataset.redacted === "true") return `${label} (redacted)`;
  return node.dataset.live === "true" && thinkingLabel === null ? `${label}…` : label;
}

/** The label element of a thinking block; `live` for one still streaming. */
export function thinkingLabelElement(redacted: boolean, live = false): HTMLElement {
  const node = el("span", "thinking-label");
  node.dataset.redacted = String(redacted);
  node.dataset.live = String(live);
  node.textContent = labelText(node);
  return node;
}

/** Sets the label of folded thinking blocks, for those drawn from now on and those under `root`. */
export function setThinkingLabel(label: string | null, root: ParentNode): void {
  if (label === thinkingLabel) return;
  thinkingLabel = label;
  for (const node of root.querySelectorAll<HTMLElement>(".thinking-label")) node.textContent = labelText(node);
}

function thinkingFold(key: string, folds: FoldState, text: string, redacted: boolean): HTMLElement {
  return fold(key, folds, "thinking", [codicon("lightbulb"), thinkingLabelElement(redacted)], () => [markdownBlock(text, "md thinking-text")]);
}

function assistantBody(item: Extract<TranscriptItem, { kind: "assistant" }>, folds: FoldState, tools: LiveTools | undefined): HTMLElement[] {
  const out: HTMLElement[] = [];
  item.parts.forEach((part, i) => {
    const key = `${item.entryId}:${i}`;
    if (part.type === "text") out.push(markdownBlock(part.text));
    else if (part.type === "thinking") out.push(thinkingFold(key, folds, part.text, part.redacted));
    else out.push(toolRun(key, folds, part, tools));
  });
  if (item.stopReason === "error") out.push(el("div", "reply-error", item.errorMessage || "The reply failed."));
  else if (item.stopReason === "aborted") out.push(el("div", "reply-stopped", "Stopped."));
  else if (item.stopReason === "length") out.push(el("div", "reply-stopped", "The reply hit the model's output limit."));
  return out;
}

function summaryCard(key: string, folds: FoldState, icon: string, title: string, summary: string): HTMLElement {
  return fold(key, folds, "card", [codicon(icon), el("span", "", title)], () => [markdownBlock(summary)]);
}

/** The element for one item. `index` is its place in the transcript (for keyboard and tests). */
export function renderItem(item: TranscriptItem, index: number, folds: FoldState, tools?: LiveTools): HTMLElement {
  const node = el("div", `item item-${item.kind}`);
  node.dataset.index = String(index);
  node.dataset.entryId = item.entryId;
  switch (item.kind) {
    case "user":
      node.append(header("account", "You", item.timestamp), markdownBlock(item.text, "md", { lineBreaks: true }), ...images(item.images));
      break;
    case "assistant":
      node.append(header("sparkle", item.model || "assistant", item.timestamp), ...assistantBody(item, folds, tools));
      if (item.usage) {
        const line = replyUsageLine(item.usage);
        if (line) node.append(line);
      }
      break;
    case "toolResult":
      node.append(
        fold(`${item.entryId}:r`, folds, "tool", [item.result.isError ? codicon("error", "status-error") : codicon("check", "status-ok"), el("span", "tool-name", item.toolName), el("span", "tool-summary", "result")], () =>
          toolBody(item.toolName, {}, item.result, undefined),
        ),
      );
      break;
    case "bash": {
      const code = item.cancelled ? "stopped" : item.exitCode === undefined || item.exitCode === null ? "" : `exit ${item.exitCode}`;
      const badge = el("span", `exit ${item.cancelled || (item.exitCode ?? 0) !== 0 ? "exit-bad" : "exit-ok"}`, code);
      const head: (HTMLElement | string)[] = [codicon("terminal"), el("span", "bash-command", `$ ${item.command}`), badge];
      if (item.excludeFromContext) head.push(el("span", "muted", "(not sent to the model)"));
      node.append(
        fold(`${item.entryId}:b`, folds, "bash", head, () => {
          const body = [preBlock(item.output || "(no output)", "output")];
          if (item.truncated) body.push(el("div", "muted", `Output truncated${item.fullOutputPath ? `; full output in ${item.fullOutputPath}` : ""}.`));
          return body;
        }),
      );
      break;
    }
    case "custom":
      node.append(header("extensions", item.customType, item.timestamp), markdownBlock(item.text), ...images(item.images));
      break;
    case "compaction":
      node.append(summaryCard(`${item.entryId}:c`, folds, "fold", `Compacted ${countTokens(item.tokensBefore)} tokens of history into a summary`, item.summary));
      break;
    case "branchSummary":
      node.append(summaryCard(`${item.entryId}:s`, folds, "git-merge", "Summary of the branch you left", item.summary || "(empty summary)"));
      break;
  }
  return node;
}

/**
 * The element for one item, or a line saying it could not be shown: one item whose drawing fails
 * (an odd field the guards let through, a browser limit) must not stop the items after it.
 */
export function renderItemSafely(item: TranscriptItem, index: number, folds: FoldState, tools?: LiveTools): HTMLElement {
  try {
    return renderItem(item, index, folds, tools);
  } catch {
    const node = el("div", "item item-broken muted", "This entry could not be shown.");
    node.dataset.index = String(index);
    node.dataset.entryId = typeof item.entryId === "string" ? item.entryId : "";
    return node;
  }
}

/** An item not loaded yet: holds its estimated place. */
export function placeholder(index: number, height: number): HTMLElement {
  const node = el("div", "item item-placeholder");
  node.dataset.index = String(index);
  node.style.height = `${height}px`;
  return node;
}
