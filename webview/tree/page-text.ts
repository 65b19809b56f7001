import { formatCount } from "../../src/core/tree/entry-view";
import { FILTER_MODE_NAMES, type FilterMode } from "../../src/core/tree/filters";
import type { TreeSessionInfo, TreeStatus } from "../../src/protocol/messages";

/** What the list area says when it has no rows. */
export function emptyText(hasState: boolean, session: TreeSessionInfo | null): string {
  if (!hasState) return "Loading…";
  if (session === null) return "No session is open. Start or resume one from the Sessions view.";
  if (session.entryCount === 0) return "This session has no entries yet.";
  return "No entries match the filter or search.";
}

/**
 * The status line: how many entries are drawn, the search they match (a search that matches
 * every row still says it is on), the filter, and whether the leaf is hidden.
 */
export function statusText(session: TreeSessionInfo | null, status: TreeStatus, filter: FilterMode, query = ""): string {
  if (session === null) return "";
  const hiddenLeaf = status.leafHidden ? " · current entry hidden by the filter" : "";
  const search = query.trim();
  const shown = search === ""
    ? `${formatCount(status.shown)} of ${formatCount(status.total)} entries`
    : `${formatCount(status.shown)} of ${formatCount(status.total)} entries match “${search.length > 40 ? `${search.slice(0, 40)}…` : search}”`;
  return `${shown} · ${FILTER_MODE_NAMES[filter]}${hiddenLeaf}`;
}
