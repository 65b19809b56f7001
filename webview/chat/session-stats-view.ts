/**
 * `/session` in the chat: Pi's Session Info (name, file, id, messages by kind, tokens, cost) as a
 * small table with a column for the current path and one for the whole file. Shown above the
 * input until closed or the next send. Session text reaches the DOM only through textContent.
 */
import type { SessionStats } from "../../src/protocol/chat-messages";
import type { UsageTotals } from "../../src/core/session/usage-totals";
import { codicon, el } from "../shared/dom";

type Row = [label: string, value: (t: UsageTotals) => number, show: "always" | "nonzero"];

const MESSAGE_ROWS: Row[] = [
  ["User", (t) => t.messages.user, "always"],
  ["Assistant", (t) => t.messages.assistant, "always"],
  ["Tool Calls", (t) => t.messages.toolCalls, "always"],
  ["Tool Results", (t) => t.messages.toolResults, "always"],
  ["Shell", (t) => t.messages.bash, "nonzero"],
  ["Extension", (t) => t.messages.custom, "nonzero"],
  ["Branch Summaries", (t) => t.messages.branchSummaries, "nonzero"],
  ["Compactions", (t) => t.messages.compactions, "nonzero"],
  ["Total", (t) => t.messages.total, "always"],
];

const TOKEN_ROWS: Row[] = [
  ["Input", (t) => t.tokens.input, "always"],
  ["Output", (t) => t.tokens.output, "always"],
  // As in Pi: the cache rows only when there was caching.
  ["Cache Read", (t) => t.tokens.cacheRead, "nonzero"],
  ["Cache Write", (t) => t.tokens.cacheWrite, "nonzero"],
  ["Total", (t) => t.tokens.total, "always"],
];

const number = (n: number): string => Math.round(n).toLocaleString("en-US");

function section(title: string, rows: Row[], stats: SessionStats, format: (n: number) => string): HTMLTableSectionElement {
  const body = el("tbody");
  const head = el("tr", "stats-section");
  head.append(el("th", "", title), el("th", "", ""), el("th", "", ""));
  body.append(head);
  for (const [label, value, show] of rows) {
    const path = value(stats.path);
    const file = value(stats.wholeFile);
    if (show === "nonzero" && path === 0 && file === 0) continue;
    const row = el("tr");
    row.dataset.row = `${title}:${label}`;
    row.append(el("td", "stats-label", label), el("td", "stats-value", format(path)), el("td", "stats-value", format(file)));
    body.append(row);
  }
  return body;
}

/** Fills `node` with the report (its content replaced). */
export function renderSessionStats(node: HTMLElement, stats: SessionStats, close: () => void): void {
  node.replaceChildren();
  const head = el("div", "stats-head");
  const closeButton = el("button", "stats-close");
  closeButton.type = "button";
  closeButton.title = "Close";
  closeButton.setAttribute("aria-label", "Close session info");
  closeButton.append(codicon("close"));
  closeButton.addEventListener("click", close);
  head.append(codicon("info"), el("strong", "", "Session Info"), closeButton);
  const facts = el("dl", "stats-facts");
  const fact = (label: string, value: string): void => {
    facts.append(el("dt", "muted", label), el("dd", "", value));
  };
  if (stats.name) fact("Name:", stats.name);
  fact("File:", stats.file ?? "Not saved yet");
  fact("ID:", stats.id);
  const table = el("table", "stats-table");
  const columns = el("thead");
  const titles = el("tr");
  titles.append(el("th", "", ""), el("th", "stats-value", "Current path"), el("th", "stats-value", "Whole file"));
  columns.append(titles);
  table.append(columns, section("Messages", MESSAGE_ROWS, stats, number), section("Tokens", TOKEN_ROWS, stats, number));
  if (stats.path.cost > 0 || stats.wholeFile.cost > 0) {
    table.append(section("Cost", [["Total", (t) => t.cost, "always"]], stats, (n) => `$${n.toFixed(4)}`));
  }
  node.append(head, facts, table);
  const unpriced = Math.max(stats.path.unpriced, stats.wholeFile.unpriced);
  if (unpriced > 0) node.append(el("div", "muted stats-note", unpriced === 1 ? "1 reply came from a model without prices: only its tokens count." : `${unpriced} replies came from models without prices: only their tokens count.`));
}
