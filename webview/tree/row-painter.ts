import { accessibleNameOf, describeEntry } from "../../src/core/tree/entry-view";
import { findMatchRanges } from "../../src/core/tree/search";
import type { TreeRow } from "../../src/protocol/messages";
import { codicon, el } from "../shared/dom";

/** Width of one indent column (px); media/tree.css draws the guides in it. */
export const LANE_WIDTH = 10;
/** Width of the depth marker with its margin (px), as media/tree.css draws it. */
const DEPTH_MARKER_WIDTH = 26;

/** What a row's look depends on besides the row itself. */
export interface PaintState {
  selected: boolean;
  focused: boolean;
  searchTokens: readonly string[];
  /** Indent columns this view draws at most (the rest go into the depth marker). */
  maxLanes: number;
}

/** The parts of a pooled row element, made once and refilled on every paint. */
export interface RowParts {
  root: HTMLDivElement;
  guides: HTMLSpanElement;
  twisty: HTMLSpanElement;
  marker: HTMLSpanElement;
  icon: HTMLSpanElement;
  tag: HTMLSpanElement;
  badges: HTMLSpanElement;
  text: HTMLSpanElement;
  /** What the parts were last filled from: unchanged parts are not rebuilt (fewer nodes, less garbage while scrolling). */
  guidesKey: string;
  textKey: string;
  badgesKey: string;
}

export function createRowParts(slotId: string): RowParts {
  const root = el("div", "row");
  root.id = slotId;
  root.setAttribute("role", "treeitem");
  const parts: RowParts = {
    root,
    guides: el("span", "guides"),
    twisty: el("span", "twisty codicon"),
    marker: el("span", "marker codicon"),
    icon: el("span", "icon codicon"),
    tag: el("span", "tag"),
    badges: el("span", "badges"),
    text: el("span", "text"),
    guidesKey: "",
    textKey: "",
    badgesKey: "",
  };
  for (const part of [parts.guides, parts.twisty, parts.marker, parts.icon]) part.setAttribute("aria-hidden", "true");
  // Badges come before the text so that, when rows wrap in a narrow view, a label stays on the
  // first line; in a wide view the stylesheet moves them after the text.
  // Everything but the guides sits in one body: in a wide view it lays out as if it were not there
  // (display: contents); in a narrow one it is the block that wraps, with a hanging indent, and that
  // the row centres when its text takes one line.
  const body = el("span", "body");
  body.append(parts.twisty, parts.marker, parts.icon, parts.tag, parts.badges, parts.text);
  root.append(parts.guides, body);
  return parts;
}

/** The drawn columns: the row's nearest lanes that fit, and how many outer levels the depth marker stands for. */
export function visibleLanes(row: TreeRow, maxLanes: number): { columns: string; hidden: number } {
  const keep = Math.max(0, Math.min(maxLanes, row.lanes.length));
  return { columns: row.lanes.slice(row.lanes.length - keep), hidden: row.hiddenLanes + row.lanes.length - keep };
}

const GUIDE_CLASS: Readonly<Record<string, string>> = { l: "guide line", b: "guide blank", t: "guide tee", e: "guide elbow" };

function paintGuides(parts: RowParts, row: TreeRow, maxLanes: number): void {
  const { columns, hidden } = visibleLanes(row, maxLanes);
  const key = `${hidden}:${columns}`;
  if (key === parts.guidesKey) return;
  parts.guidesKey = key;
  const target = parts.guides;
  target.textContent = "";
  if (hidden > 0) {
    const depth = el("span", "guide depth", hidden < 1000 ? `+${hidden}` : `+${Math.floor(hidden / 1000)}k`);
    depth.title = `${hidden} outer ${hidden === 1 ? "level" : "levels"} not drawn (depth ${row.level})`;
    target.appendChild(depth);
  }
  for (const kind of columns) target.appendChild(el("span", GUIDE_CLASS[kind]));
  parts.root.style.setProperty("--indent", `${target.childElementCount === 0 ? 0 : columns.length * LANE_WIDTH + (hidden > 0 ? DEPTH_MARKER_WIDTH : 0)}px`);
}

function paintText(target: HTMLElement, text: string, tokens: readonly string[]): void {
  target.textContent = "";
  const ranges = findMatchRanges(text, tokens);
  if (ranges.length === 0) {
    target.textContent = text;
    return;
  }
  let at = 0;
  for (const [start, end] of ranges) {
    if (start > at) target.appendChild(document.createTextNode(text.slice(at, start)));
    target.appendChild(el("mark", "match", text.slice(start, end)));
    at = end;
  }
  if (at < text.length) target.appendChild(document.createTextNode(text.slice(at)));
}

function setIfChanged(target: HTMLElement, name: string, value: string): void {
  if (target.getAttribute(name) !== value) target.setAttribute(name, value);
}

/** Fills a pooled row element for the row at `index`. Text only ever goes in as text. */
export function paintRow(parts: RowParts, row: TreeRow, index: number, state: PaintState): void {
  const summary = row.entry;
  const id = summary.id;
  const view = describeEntry(summary);
  const label = row.label ?? undefined;
  const foldable = row.branches > 1;
  const root = parts.root;

  let classes = `row kind-${view.kind}`;
  if (row.onPath) classes += " on-path";
  if (row.leaf === "exact") classes += " leaf";
  if (row.leaf === "inside") classes += " leaf-inside";
  if (state.selected) classes += " selected";
  if (state.focused) classes += " focused";
  if (view.isError) classes += " error";
  if (row.span) classes += ` ${row.span}`;
  if (row.segmentStart) classes += " segment-start";
  if (row.top) classes += " top";
  if (row.orphan) classes += " orphan";
  if (summary.unsaved) classes += " unsaved";
  if (root.className !== classes) root.className = classes;

  root.setAttribute("aria-level", String(row.level));
  root.setAttribute("aria-posinset", String(row.posInSet));
  root.setAttribute("aria-setsize", String(row.setSize));
  root.setAttribute("aria-selected", String(state.selected));
  root.removeAttribute("aria-busy");
  if (foldable) root.setAttribute("aria-expanded", String(!row.folded));
  else root.removeAttribute("aria-expanded");
  if (row.leaf === "exact") root.setAttribute("aria-current", "true");
  else root.removeAttribute("aria-current");
  setIfChanged(root, "aria-label", accessibleNameOf(view, { label, isLeaf: row.leaf === "exact", onActivePath: row.onPath }));
  root.dataset.index = String(index);
  setIfChanged(root, "data-vscode-context", JSON.stringify({
    webviewSection: "entry",
    entryId: id,
    entryType: summary.type,
    role: summary.role ?? "",
    hasLabel: label !== undefined,
    isLeaf: row.leaf === "exact",
    preventDefaultContextMenuItems: true,
  }));
  const notes = `${summary.unsaved ? " · not saved: the write to the session file failed; kept in this window" : ""}${row.orphan ? " · parent missing" : ""}${summary.clamped ? " · some fields were too long or invalid and are shortened here (the file is unchanged)" : ""}`;
  root.title = summary.timestamp ? `${view.tag} · ${summary.timestamp}${notes}` : `${view.tag}${notes}`;

  paintGuides(parts, row, state.maxLanes);
  parts.twisty.className = foldable ? `twisty codicon codicon-${row.folded ? "chevron-right" : "chevron-down"}` : "twisty";
  parts.marker.className = row.leaf === "exact" ? "marker codicon codicon-circle-filled" : row.leaf === "inside" ? "marker codicon codicon-circle-outline" : row.onPath ? "marker codicon codicon-primitive-dot" : "marker";
  parts.icon.className = `icon codicon codicon-${view.icon}`;
  if (parts.tag.textContent !== view.tag) parts.tag.textContent = view.tag;
  const textKey = `${state.searchTokens.join(" ")}\n${view.text}`;
  if (textKey !== parts.textKey) {
    parts.textKey = textKey;
    paintText(parts.text, view.text, state.searchTokens);
  }

  const badgesKey = `${label ?? "\u0000"}|${view.detail ?? ""}|${row.span === "kept"}|${row.folded ? row.branches : 0}|${row.orphan}|${summary.unsaved === true}|${row.checkpoint}|${state.searchTokens.join(" ")}`;
  if (badgesKey === parts.badgesKey) return;
  parts.badgesKey = badgesKey;
  parts.badges.textContent = "";
  if (label !== undefined) {
    const badge = el("span", "badge label");
    badge.appendChild(codicon("tag"));
    const labelText = el("span", "badge-text");
    paintText(labelText, label, state.searchTokens);
    badge.appendChild(labelText);
    parts.badges.appendChild(badge);
  }
  if (view.detail) parts.badges.appendChild(el("span", "badge detail", view.detail));
  if (row.span === "kept") parts.badges.appendChild(el("span", "badge kept", "kept from here"));
  if (row.folded) parts.badges.appendChild(el("span", "badge folded", `${row.branches} branches`));
  if (row.orphan) parts.badges.appendChild(el("span", "badge orphan", "orphan"));
  if (row.checkpoint) {
    const badge = el("span", "badge checkpoint");
    badge.title = "The workspace's files were recorded here: a checkout can take them back";
    badge.setAttribute("aria-label", "files recorded");
    badge.appendChild(codicon("history"));
    parts.badges.appendChild(badge);
  }
  if (summary.unsaved) {
    const badge = el("span", "badge unsaved");
    badge.appendChild(codicon("warning"));
    badge.appendChild(el("span", "badge-text", "not saved"));
    parts.badges.appendChild(badge);
  }
}

/** A row the host has not sent yet: blank, busy, and without an entry (no context menu, no actions). */
export function paintPlaceholder(parts: RowParts, index: number): void {
  const root = parts.root;
  root.className = "row placeholder";
  root.setAttribute("aria-busy", "true");
  root.setAttribute("aria-label", "Loading…");
  for (const name of ["aria-level", "aria-posinset", "aria-setsize", "aria-selected", "aria-expanded", "aria-current", "data-vscode-context", "title"]) root.removeAttribute(name);
  root.dataset.index = String(index);
  parts.guides.textContent = "";
  parts.guidesKey = "";
  parts.twisty.className = "twisty";
  parts.marker.className = "marker";
  parts.icon.className = "icon";
  parts.tag.textContent = "";
  parts.text.textContent = "";
  parts.textKey = "";
  parts.badges.textContent = "";
  parts.badgesKey = "";
  root.style.setProperty("--indent", "0px");
}
