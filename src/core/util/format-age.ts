/** How long ago a time was, in the short form lists use: "just now", "5m ago", "3h ago", "2d ago", or the date. */
export function formatAge(date: Date, now = Date.now()): string {
  const s = Math.max(0, (now - date.getTime()) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  if (s < 86400 * 30) return `${Math.floor(s / 86400)}d ago`;
  return date.toISOString().slice(0, 10);
}

/**
 * The times line of a session's tooltip. `modified` is the last message's time (as Pi lists
 * sessions) and `created` the header's: a fork or an imported session carries messages older than
 * its file, so there the last message comes before the creation and is named as such, never as a
 * modification that precedes the creation.
 */
export function sessionTimesText(created: Date, modified: Date, format: (date: Date) => string = (d) => d.toLocaleString()): string {
  if (Number.isNaN(created.getTime())) return `modified ${format(modified)}`;
  if (modified.getTime() < created.getTime()) return `created ${format(created)} · last message ${format(modified)} (copied from an earlier session)`;
  return `modified ${format(modified)} · created ${format(created)}`;
}
