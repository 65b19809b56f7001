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

/** The status line: how many entries are drawn, the filter, and whether the leaf is hidden. */
export function statusText(session: TreeSessionInfo | null, status: TreeStatus, filter: FilterMode): string {
  if (session === null) return "";
  const hiddenLeaf = status.leafHidden ? " · leaf hidden by filter" : "";
  return `${formatCount(status.shown)} of ${formatCount(status.total)} entries · ${FILTER_MODE_NAMES[filter]}${hiddenLeaf}`;
}
