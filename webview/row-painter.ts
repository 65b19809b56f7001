import { accessibleNameOf, describeEntry } from "../src/core/tree/entry-view";
import { isFoldable, type Row } from "../src/core/tree/layout";
import { findMatchRanges } from "../src/core/tree/search";
import { codicon, el } from "./dom";

/** Indent columns drawn at most; deeper rows show their last columns behind an ellipsis. */
const MAX_COLUMNS = 16;

/** What a row needs besides the row itself, read at paint time so that changes never relayout. */
export interface PaintContext {
  label(id: string): string | undefined;
  onActivePath(id: string): boolean;
  /** "exact" on the leaf's row; "inside" on the nearest shown ancestor of a hidden leaf. */
  leafState(row: Row): "exact" | "inside" | undefined;
  isSelected(row: Row): boolean;
  /** Row state relative to the selected compaction. */
  spanState(id: string): "replaced" | "kept" | undefined;
  searchTokens: readonly string[];
}

/** The parts of a pooled row element, made once and refilled on every paint. */
export interface RowParts {
  root: HTMLDivElement;
  guides: HTMLSpanElement;
  twisty: HTMLSpanElement;
  marker: HTMLSpanElement;
  icon: HTMLSpanElement;
  tag: HTMLSpanElement;
  text: HTMLSpanElement;
  badges: HTMLSpanElement;
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
    text: el("span", "text"),
    badges: el("span", "badges"),
  };
  for (const part of [parts.guides, parts.twisty, parts.marker, parts.icon]) part.setAttribute("aria-hidden", "true");
  root.append(parts.guides, parts.twisty, parts.marker, parts.icon, parts.tag, parts.text, parts.badges);
  return parts;
}

function paintGuides(target: HTMLElement, row: Row): void {
  target.textContent = "";
  const columns = row.level - 1;
  const first = Math.max(0, columns - MAX_COLUMNS);
  if (first > 0) {
    const more = el("span", "guide more", "…");
    more.title = `${first} more levels`;
    target.appendChild(more);
  }
  for (let k = first; k < columns; k++) {
    const own = k === columns - 1;
    let kind: string;
    if (own && row.segmentStart) kind = row.guides[k] ? "tee" : "elbow";
    else kind = row.guides[k] ? "line" : "blank";
    target.appendChild(el("span", `guide ${kind}`));
  }
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

/** Fills a pooled row element for one row. Text only ever goes in as text. */
export function paintRow(parts: RowParts, row: Row, ctx: PaintContext): void {
  const summary = row.node.summary;
  const id = summary.id;
  const view = describeEntry(summary);
  const label = ctx.label(id);
  const onPath = ctx.onActivePath(id);
  const leaf = ctx.leafState(row);
  const selected = ctx.isSelected(row);
  const span = ctx.spanState(id);
  const foldable = isFoldable(row);
  const root = parts.root;

  root.className = `row kind-${view.kind}`;
  const toggles: [string, boolean][] = [
    ["on-path", onPath],
    ["leaf", leaf === "exact"],
    ["leaf-inside", leaf === "inside"],
    ["selected", selected],
    ["error", view.isError],
    ["replaced", span === "replaced"],
    ["kept", span === "kept"],
    ["segment-start", row.segmentStart],
    ["top", row.level === 1 && row.parentRow === null],
    ["orphan", row.node.orphan],
  ];
  for (const [name, on] of toggles) if (on) root.classList.add(name);

  root.setAttribute("aria-level", String(row.level));
  root.setAttribute("aria-selected", String(selected));
  if (foldable) root.setAttribute("aria-expanded", String(!row.folded));
  else root.removeAttribute("aria-expanded");
  if (leaf === "exact") root.setAttribute("aria-current", "true");
  else root.removeAttribute("aria-current");
  root.setAttribute("aria-label", accessibleNameOf(view, { label, isLeaf: leaf === "exact", onActivePath: onPath }));
  root.dataset.index = String(row.index);
  root.dataset.vscodeContext = JSON.stringify({
    webviewSection: "entry",
    entryId: id,
    entryType: summary.type,
    role: summary.role ?? "",
    hasLabel: label !== undefined,
    isLeaf: leaf === "exact",
    preventDefaultContextMenuItems: true,
  });
  root.title = summary.timestamp ? `${view.tag} · ${summary.timestamp}${row.node.orphan ? " · parent missing" : ""}` : view.tag;

  paintGuides(parts.guides, row);
  parts.twisty.className = foldable ? `twisty codicon codicon-${row.folded ? "chevron-right" : "chevron-down"}` : "twisty";
  parts.marker.className = leaf === "exact" ? "marker codicon codicon-circle-filled" : leaf === "inside" ? "marker codicon codicon-circle-outline" : onPath ? "marker codicon codicon-primitive-dot" : "marker";
  parts.icon.className = `icon codicon codicon-${view.icon}`;
  parts.tag.textContent = view.tag;
  paintText(parts.text, view.text, ctx.searchTokens);

  parts.badges.textContent = "";
  if (label !== undefined) {
    const badge = el("span", "badge label");
    badge.appendChild(codicon("tag"));
    const labelText = el("span", "badge-text");
    paintText(labelText, label, ctx.searchTokens);
    badge.appendChild(labelText);
    parts.badges.appendChild(badge);
  }
  if (view.detail) parts.badges.appendChild(el("span", "badge detail", view.detail));
  if (span === "kept") parts.badges.appendChild(el("span", "badge kept", "kept from here"));
  if (row.folded) parts.badges.appendChild(el("span", "badge folded", `${row.childCount} branches`));
  if (row.node.orphan) parts.badges.appendChild(el("span", "badge orphan", "orphan"));
}
