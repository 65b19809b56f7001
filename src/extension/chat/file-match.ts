/**
 * Ranking of workspace files for the chat's `@` search. Pi's order comes first: the file name equal
 * to the query, then starting with it, then containing it, then the path containing it; then, so that
 * "chctl" still finds chat-controller.ts, the letters of the query in order in the path (the closer
 * together, the better). Pure: no vscode.
 */

/** Files one answer lists (Pi shows 20). */
export const MENTION_RESULTS = 20;

const basename = (path: string): string => path.slice(path.lastIndexOf("/") + 1);

/** Letters of `query` in order in `text`: a score from 1 (spread out) to 19 (together), or 0. */
function subsequenceScore(text: string, query: string): number {
  let at = -1;
  let first = -1;
  for (const ch of query) {
    at = text.indexOf(ch, at + 1);
    if (at === -1) return 0;
    if (first === -1) first = at;
  }
  const span = at - first + 1;
  return 1 + Math.floor((18 * query.length) / span);
}

/** How well a path (posix, relative) matches the query; 0 when it does not. An empty query matches all. */
export function scoreFile(path: string, query: string): number {
  const q = query.toLowerCase().replace(/^\.\//, "");
  if (q === "") return 1;
  const lowerPath = path.toLowerCase();
  const name = basename(lowerPath);
  if (name === q) return 100;
  if (name.startsWith(q)) return 80;
  if (name.includes(q)) return 50;
  if (lowerPath.includes(q)) return 30;
  return subsequenceScore(lowerPath, q.replace(/\s+/g, ""));
}

/** The best matches, best first; ties go to the shorter path, then in alphabetical order. */
export function rankFiles(paths: readonly string[], query: string, limit = MENTION_RESULTS): string[] {
  const scored: { path: string; score: number }[] = [];
  for (const path of paths) {
    const score = scoreFile(path, query);
    if (score > 0) scored.push({ path, score });
  }
  scored.sort((a, b) => b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return scored.slice(0, limit).map((s) => s.path);
}
