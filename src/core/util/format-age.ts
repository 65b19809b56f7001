/** How long ago a time was, in the short form lists use: "just now", "5m ago", "3h ago", "2d ago", or the date. */
export function formatAge(date: Date, now = Date.now()): string {
  const s = Math.max(0, (now - date.getTime()) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  if (s < 86400 * 30) return `${Math.floor(s / 86400)}d ago`;
  return date.toISOString().slice(0, 10);
}
