/**
 * The front matter of skill and prompt-template files: a leading `---` block of YAML, read as Pi
 * reads it (the block ends at the first line starting with `---`, the body after it is trimmed).
 * Arbor parses the part of YAML such blocks use: `key: value` scalars (plain, quoted, numbers,
 * booleans, null), `|` and `>` block scalars, plain values continued on indented lines, flow lists
 * `[a, b]`, `- item` lists and one level of nested mappings. Anything else is reported, never thrown.
 */

export type FrontmatterValue = string | number | boolean | null | FrontmatterValue[] | { [key: string]: FrontmatterValue };

export interface ParsedFrontmatter {
  frontmatter: Record<string, FrontmatterValue>;
  body: string;
  /** Why the block could not be read (the file is then treated as having no front matter values). */
  error?: string;
}

/** Splits the front matter block from the body, with Pi's boundaries. */
function split(content: string): { yaml: string | undefined; body: string } {
  const text = content.replace(/\r\n?/g, "\n");
  if (!text.startsWith("---")) return { yaml: undefined, body: text };
  const end = text.indexOf("\n---", 3);
  if (end === -1) return { yaml: undefined, body: text };
  return { yaml: text.slice(4, end), body: text.slice(end + 4).trim() };
}

export function parseFrontmatter(content: string): ParsedFrontmatter {
  const { yaml, body } = split(content);
  if (yaml === undefined) return { frontmatter: {}, body };
  try {
    return { frontmatter: parseBlock(yaml.split("\n")), body };
  } catch (error) {
    return { frontmatter: {}, body, error: error instanceof Error ? error.message : String(error) };
  }
}

/** The body without its front matter (trimmed when there was a block, as Pi does). */
export function stripFrontmatter(content: string): string {
  return split(content).body;
}

const indentOf = (line: string): number => line.length - line.trimStart().length;
const isBlank = (line: string): boolean => line.trim() === "" || line.trimStart().startsWith("#");

function parseBlock(lines: string[]): Record<string, FrontmatterValue> {
  const result: Record<string, FrontmatterValue> = {};
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line)) {
      i++;
      continue;
    }
    if (indentOf(line) > 0) throw new Error(`line ${i + 1}: unexpected indentation`);
    const pair = /^([^:#][^:]*?)\s*:(?:\s+(.*))?$/.exec(line.trimEnd());
    if (!pair) throw new Error(`line ${i + 1}: expected "key: value"`);
    const key = unquoteKey(pair[1]!);
    const rest = (pair[2] ?? "").trim();
    const { value, next } = parseValue(rest, lines, i + 1);
    result[key] = value;
    i = next;
  }
  return result;
}

function unquoteKey(key: string): string {
  return /^".*"$|^'.*'$/.test(key) ? key.slice(1, -1) : key;
}

/** The indented lines after `start` (blank lines inside are kept), and where they end. */
function indentedLines(lines: string[], start: number): { block: string[]; next: number } {
  let end = start;
  let lastContent = start;
  while (end < lines.length && (lines[end]!.trim() === "" || indentOf(lines[end]!) > 0)) {
    if (lines[end]!.trim() !== "") lastContent = end + 1;
    end++;
  }
  return { block: lines.slice(start, lastContent), next: lastContent };
}

function parseValue(rest: string, lines: string[], start: number): { value: FrontmatterValue; next: number } {
  const block = /^([|>])([+-]?)\s*(#.*)?$/.exec(rest);
  if (block) {
    const { block: body, next } = indentedLines(lines, start);
    return { value: blockScalar(body, block[1] === ">", block[2] ?? ""), next };
  }
  if (rest === "" || rest.startsWith("#")) {
    const { block: body, next } = indentedLines(lines, start);
    const content = body.filter((l) => !isBlank(l));
    if (content.length === 0) return { value: null, next };
    const base = Math.min(...content.map(indentOf));
    const dedented = body.map((l) => l.slice(Math.min(base, indentOf(l))));
    if (content[0]!.trimStart().startsWith("- ") || content[0]!.trim() === "-") return { value: parseList(dedented), next };
    return { value: parseBlock(dedented), next };
  }
  // A plain or quoted scalar, possibly continued on more-indented lines (folded with spaces).
  const { block: continuation, next } = indentedLines(lines, start);
  const parts = [rest, ...continuation.map((l) => l.trim())];
  const joined = parts.reduce((text, part) => (part === "" ? `${text}\n` : text.endsWith("\n") || text === "" ? text + part : `${text} ${part}`), "");
  return { value: scalar(joined.trim()), next };
}

function parseList(lines: string[]): FrontmatterValue[] {
  const items: FrontmatterValue[] = [];
  for (const line of lines) {
    if (isBlank(line)) continue;
    const item = /^-(?:\s+(.*))?$/.exec(line.trimEnd());
    if (!item) throw new Error(`expected "- item" in a list, found "${line.trim()}"`);
    items.push(scalar((item[1] ?? "").trim()));
  }
  return items;
}

function blockScalar(body: string[], folded: boolean, chomp: string): string {
  const content = body.filter((l) => l.trim() !== "");
  const base = content.length > 0 ? Math.min(...content.map(indentOf)) : 0;
  const rows = body.map((l) => l.slice(Math.min(base, indentOf(l))));
  let text: string;
  if (!folded) text = rows.join("\n");
  else {
    text = "";
    for (const [index, row] of rows.entries()) {
      if (index === 0) text = row;
      else if (row === "") text += "\n";
      else if (text.endsWith("\n") || row.startsWith(" ") || rows[index - 1]!.startsWith(" ")) text += (text.endsWith("\n") ? "" : "\n") + row;
      else text += ` ${row}`;
    }
  }
  if (chomp === "-") return text.replace(/\n+$/, "");
  return text.length > 0 ? `${text.replace(/\n+$/, "")}\n` : "";
}

function scalar(text: string): FrontmatterValue {
  const withoutComment = /^["']/.test(text) ? text : text.replace(/\s+#.*$/, "");
  const t = withoutComment.trim();
  if (t.startsWith('"')) {
    if (!/^"(?:[^"\\]|\\.)*"$/.test(t)) throw new Error(`unterminated string ${t}`);
    return JSON.parse(t.replace(/\\'/g, "'")) as string;
  }
  if (t.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(t)) throw new Error(`unterminated string ${t}`);
    return t.slice(1, -1).replace(/''/g, "'");
  }
  if (t.startsWith("[") && t.endsWith("]")) {
    const inner = t.slice(1, -1).trim();
    return inner === "" ? [] : inner.split(",").map((part) => scalar(part.trim()));
  }
  if (t === "" || t === "~" || t === "null") return null;
  if (t === "true" || t === "false") return t === "true";
  if (/^[-+]?\d+$/.test(t) || /^[-+]?\d*\.\d+(?:[eE][-+]?\d+)?$/.test(t)) return Number(t);
  if (/^[&*!%@`]/.test(t)) throw new Error(`YAML feature not supported here: ${t}`);
  if (/:\s/.test(t)) throw new Error(`a plain value may not contain ": " (quote it): ${t}`);
  return t;
}
