/**
 * Pi's `parseFrontmatter` / `stripFrontmatter` for extensions: a leading `---` block of
 * `key: value` lines (strings, numbers, booleans, `[a, b]` lists), then the body.
 */
export function parseFrontmatter<T extends Record<string, unknown> = Record<string, unknown>>(content: string): { frontmatter: T; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(content);
  if (!match) return { frontmatter: {} as T, body: content };
  const frontmatter: Record<string, unknown> = {};
  for (const line of match[1]!.split(/\r?\n/)) {
    const pair = /^([A-Za-z0-9_-]+)\s*:\s*(.*)$/.exec(line);
    if (!pair) continue;
    frontmatter[pair[1]!] = scalar(pair[2]!.trim());
  }
  return { frontmatter: frontmatter as T, body: content.slice(match[0].length) };
}

export function stripFrontmatter(content: string): string {
  return parseFrontmatter(content).body;
}

function scalar(text: string): unknown {
  if (/^".*"$|^'.*'$/.test(text)) return text.slice(1, -1);
  if (text === "true" || text === "false") return text === "true";
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (/^\[.*\]$/.test(text)) return text.slice(1, -1).split(",").map((s) => scalar(s.trim())).filter((s) => s !== "");
  return text;
}
