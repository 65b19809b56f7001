/**
 * Following the leaf as entries are appended (by the chat or another process), the way a terminal
 * or VS Code's Output view follows new output: a view that showed the leaf's row, or was scrolled to
 * the end, brings the new leaf into view; a view the user scrolled elsewhere stays where it is.
 * The page decides (it knows exactly what is on screen; the host learns it only once scrolling settles).
 */

/** What the list showed just before an update. */
export interface ShownBefore {
  /** The rows in view, [first, last). */
  readonly first: number;
  readonly last: number;
  readonly rowCount: number;
  /** The row carrying the leaf mark, if any. */
  readonly leafRow: number | undefined;
  readonly sessionId: string | null;
  readonly entryCount: number;
}

/** What the update brings. */
export interface Update {
  readonly sessionId: string | null;
  readonly entryCount: number;
  readonly leafRow: number | undefined;
}

/** The row to bring into view ("nearest"), or undefined to leave the scroll position alone. */
export function followLeafRow(before: ShownBefore, after: Update): number | undefined {
  if (after.sessionId === null || after.sessionId !== before.sessionId) return undefined;
  // Only entries appended move the view: a checkout or a new label leaves it where the user put it.
  if (after.entryCount <= before.entryCount) return undefined;
  if (after.leafRow === undefined || after.leafRow === before.leafRow) return undefined;
  if (before.last <= before.first) return undefined; // nothing was on screen (a collapsed view)
  const leafShown = before.leafRow !== undefined && before.leafRow >= before.first && before.leafRow < before.last;
  const atEnd = before.last >= before.rowCount;
  return leafShown || atEnd ? after.leafRow : undefined;
}
