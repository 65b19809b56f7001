import { formatCount } from "../../src/core/tree/entry-view";
import { FILTER_MODE_NAMES } from "../../src/core/tree/filters";
import type { TreeViewModel } from "../../src/core/tree/tree-view-model";

/** What the list area says when it has no rows. */
export function emptyText(hasState: boolean, model: TreeViewModel): string {
  if (!hasState) return "Loading…";
  if (model.sessionId === null) return "No session is open. Start or resume one from the Sessions view.";
  if (model.entryCount === 0) return "This session has no entries yet.";
  return "No entries match the filter or search.";
}

/** The status line: how many entries are drawn, the filter, and whether the leaf is hidden. */
export function statusText(model: TreeViewModel): string {
  if (model.sessionId === null) return "";
  const leaf = model.leafRow();
  const hiddenLeaf = leaf && !leaf.exact ? " · leaf hidden by filter" : "";
  return `${formatCount(model.rows.length)} of ${formatCount(model.projection.nodes.size)} entries · ${FILTER_MODE_NAMES[model.filter]}${hiddenLeaf}`;
}
