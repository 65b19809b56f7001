import { accessibleNameOf, describeEntry } from "../../src/core/tree/entry-view";
import { isFoldable, type Row } from "../../src/core/tree/layout";
import { findMatchRanges } from "../../src/core/tree/search";
import { codicon, el } from "../shared/dom";

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
    text: el("span", "text"),
    badges: el("span", "badges"),
    guidesKey: "",
    textKey: "",
    badgesKey: "",
  };
  for (const part of [parts.guides, parts.twisty, parts.marker, parts.icon]) part.setAttribute("aria-hidden", "true");
  root.append(parts.guides, parts.twisty, parts.marker, parts.icon, parts.tag, parts.text, parts.badges);
  return parts;
}

/** One character per indent column: l(ine), b(lank), t(ee), e(lbow), after an optional "+N" prefix. */
function guidesKeyOf(row: Row): string {
  const columns = row.level - 1;
  const first = Math.max(0, columns - MAX_COLUMNS);
  let key = first > 0 ? `+${first}:` : "";
  for (let k = first; k < columns; k++) {
    const own = k === columns - 1;
    if (own && row.segmentStart) key += row.guides[k] ? "t" : "e";
    else key += row.guides[k] ? "l" : "b";
  }
  return key;
}

const GUIDE_CLASS: Readonly<Record<string, string>> = { l: "guide line", b: "guide blank", t: "guide tee", e: "guide elbow" };

function paintGuides(parts: RowParts, row: Row): void {
  const key = guidesKeyOf(row);
  if (key === parts.guidesKey) return;
  parts.guidesKey = key;
  const target = parts.guides;
  target.textContent = "";
  let kinds = key;
  const colon = key.indexOf(":");
  if (colon >= 0) {
    const more = el("span", "guide more", "…");
    more.title = `${key.slice(1, colon)} more levels`;
    target.appendChild(more);
    kinds = key.slice(colon + 1);
  }
  for (const kind of kinds) target.appendChild(el("span", GUIDE_CLASS[kind]));
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

  let classes = `row kind-${view.kind}`;
  if (onPath) classes += " on-path";
  if (leaf === "exact") classes += " leaf";
  if (leaf === "inside") classes += " leaf-inside";
  if (selected) classes += " selected";
  if (view.isError) classes += " error";
  if (span) classes += ` ${span}`;
  if (row.segmentStart) classes += " segment-start";
  if (row.level === 1 && row.parentRow === null) classes += " top";
  if (row.node.orphan) classes += " orphan";
  if (summary.unsaved) classes += " unsaved";
  if (root.className !== classes) root.className = classes;

  root.setAttribute("aria-level", String(row.level));
  root.setAttribute("aria-posinset", String(row.posInSet));
  root.setAttribute("aria-setsize", String(row.siblings.size));
  root.setAttribute("aria-selected", String(selected));
  if (foldable) root.setAttribute("aria-expanded", String(!row.folded));
  else root.removeAttribute("aria-expanded");
  if (leaf === "exact") root.setAttribute("aria-current", "true");
  else root.removeAttribute("aria-current");
  setIfChanged(root, "aria-label", accessibleNameOf(view, { label, isLeaf: leaf === "exact", onActivePath: onPath }));
  root.dataset.index = String(row.index);
  setIfChanged(root, "data-vscode-context", JSON.stringify({
    webviewSection: "entry",
    entryId: id,
    entryType: summary.type,
    role: summary.role ?? "",
    hasLabel: label !== undefined,
    isLeaf: leaf === "exact",
    preventDefaultContextMenuItems: true,
  }));
  const notes = `${summary.unsaved ? " · not saved: the write to the session file failed; kept in this window" : ""}${row.node.orphan ? " · parent missing" : ""}${summary.clamped ? " · some fields were too long or invalid and are shortened here (the file is unchanged)" : ""}`;
  root.title = summary.timestamp ? `${view.tag} · ${summary.timestamp}${notes}` : `${view.tag}${notes}`;

  paintGuides(parts, row);
  parts.twisty.className = foldable ? `twisty codicon codicon-${row.folded ? "chevron-right" : "chevron-down"}` : "twisty";
  parts.marker.className = leaf === "exact" ? "marker codicon codicon-circle-filled" : leaf === "inside" ? "marker codicon codicon-circle-outline" : onPath ? "marker codicon codicon-primitive-dot" : "marker";
  parts.icon.className = `icon codicon codicon-${view.icon}`;
  if (parts.tag.textContent !== view.tag) parts.tag.textContent = view.tag;
  const textKey = `${ctx.searchTokens.join(" ")}\n${view.text}`;
  if (textKey !== parts.textKey) {
    parts.textKey = textKey;
    paintText(parts.text, view.text, ctx.searchTokens);
  }

  const badgesKey = `${label ?? "\u0000"}|${view.detail ?? ""}|${span === "kept"}|${row.folded ? row.childCount : 0}|${row.node.orphan}|${summary.unsaved === true}|${ctx.searchTokens.join(" ")}`;
  if (badgesKey === parts.badgesKey) return;
  parts.badgesKey = badgesKey;
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
  if (summary.unsaved) {
    const badge = el("span", "badge unsaved");
    badge.appendChild(codicon("warning"));
    badge.appendChild(el("span", "badge-text", "not saved"));
    parts.badges.appendChild(badge);
  }
}
