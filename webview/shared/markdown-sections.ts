/**
 * Cuts a markdown text into sections that are each cheap to parse, so that no text from a session
 * can make the markdown parser overflow its stack or run for seconds (its inline pass is quadratic on
 * crafted paragraphs, and deep nesting recurses once per level).
 *
 * A text that is short and tame is one section, parsed whole, so its markdown means exactly what it
 * says. Otherwise it is cut at block boundaries (blank lines outside code fences): small blocks are
 * grouped back together up to the size limit, a fence longer than the limit becomes a code section
 * (drawn and highlighted by us in slices), a longer block is cut at line breaks, and a single line
 * longer than the limit, or a block nested deeper than the depth limit, is plain text. Pure: no DOM.
 */

/** One piece of a text, drawn on its own. */
export type MarkdownSection =
  | { readonly kind: "markdown"; readonly text: string }
  /** A fenced code block: its content without the fence lines, and the fence's info string. */
  | { readonly kind: "code"; readonly text: string; readonly info: string }
  /** Text shown as it is (too long a line, or nested too deep to parse safely). */
  | { readonly kind: "plain"; readonly text: string };

/** The largest section given to the markdown parser, in characters. */
export const SECTION_CHARS = 4096;
/** The deepest nesting of quotes and lists parsed as markdown. */
export const MAX_DEPTH = 24;

interface Block {
  start: number;
  end: number;
  fence?: { info: string; bodyStart: number; bodyEnd: number };
  /** Deeper than MAX_DEPTH somewhere. */
  deep: boolean;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** How deep a line nests: each `>` and list marker of its prefix counts once, other indentation once per four columns. */
export function nestingDepth(line: string): number {
  let depth = 0;
  let spaces = 0;
  for (let i = 0; i < line.length; i++) {
    const ch = line.charCodeAt(i);
    if (ch === 32) spaces++;
    else if (ch === 9) spaces += 4;
    else if (ch === 62 /* > */) {
      depth++;
      if (line.charCodeAt(i + 1) === 32) i++; // the space a marker takes is not indentation
    } else if ((ch === 45 || ch === 42 || ch === 43) /* - * + */ && (line.charCodeAt(i + 1) === 32 || line.charCodeAt(i + 1) === 9)) {
      depth++;
      i++;
    }
    else if (ch >= 48 && ch <= 57) {
      let j = i;
      while (j < line.length && j - i < 9 && line.charCodeAt(j) >= 48 && line.charCodeAt(j) <= 57) j++;
      const mark = line.charCodeAt(j);
      if ((mark === 46 || mark === 41) && (line.charCodeAt(j + 1) === 32 || line.charCodeAt(j + 1) === 9)) {
        depth++;
        i = j + 1;
      } else break;
    } else break;
  }
  return depth + Math.floor(spaces / 4);
}

/** The text's blocks: runs of non-blank lines, and fenced code blocks (to the end when unclosed). */
function blocksOf(text: string): Block[] {
  const blocks: Block[] = [];
  let current: Block | undefined;
  let fence: { char: string; length: number; block: Block } | undefined;
  let pos = 0;
  while (pos <= text.length) {
    const nl = text.indexOf("\n", pos);
    const lineEnd = nl < 0 ? text.length : nl;
    const next = nl < 0 ? text.length + 1 : nl + 1;
    const line = text.slice(pos, lineEnd);
    if (fence) {
      const close = line.match(/^ {0,3}(`{3,}|~{3,})\s*$/);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) {
        fence.block.fence!.bodyEnd = pos;
        fence.block.end = lineEnd;
        blocks.push(fence.block);
        fence = undefined;
      } else {
        fence.block.end = lineEnd;
        fence.block.fence!.bodyEnd = lineEnd;
      }
    } else if (line.trim() === "") {
      if (current) blocks.push(current);
      current = undefined;
    } else {
      const open = line.match(FENCE_OPEN);
      if (open && !(open[1]![0] === "`" && open[2]!.includes("`"))) {
        if (current) blocks.push(current);
        current = undefined;
        const block: Block = { start: pos, end: lineEnd, deep: false, fence: { info: open[2]!.trim(), bodyStart: next, bodyEnd: next } };
        fence = { char: open[1]![0]!, length: open[1]!.length, block };
      } else {
        current ??= { start: pos, end: lineEnd, deep: false };
        current.end = lineEnd;
        // Only a line's start can nest, so a long line costs nothing here beyond its prefix.
        if (!current.deep && nestingDepth(line.length > 512 ? line.slice(0, 512) : line) > MAX_DEPTH) current.deep = true;
      }
    }
    pos = next;
  }
  if (fence) {
    fence.block.fence!.bodyEnd = Math.max(fence.block.fence!.bodyStart, Math.min(fence.block.fence!.bodyEnd, text.length));
    blocks.push(fence.block);
  }
  if (current) blocks.push(current);
  return blocks;
}

/** Cuts a long block at line breaks into pieces of at most `limit`; a longer line is plain text. */
function cutLines(text: string, limit: number, out: MarkdownSection[]): void {
  let start = 0;
  while (start < text.length) {
    if (text.length - start <= limit) {
      out.push({ kind: "markdown", text: text.slice(start) });
      return;
    }
    const cut = text.lastIndexOf("\n", start + limit);
    if (cut > start) {
      out.push({ kind: "markdown", text: text.slice(start, cut) });
      start = cut + 1;
      continue;
    }
    // One line longer than the limit: shown as it is, up to its end.
    const nl = text.indexOf("\n", start);
    const end = nl < 0 ? text.length : nl;
    out.push({ kind: "plain", text: text.slice(start, end) });
    start = end + 1;
  }
}

/** The sections of a markdown text, in order. */
export function markdownSections(text: string, limit = SECTION_CHARS): MarkdownSection[] {
  const blocks = blocksOf(text);
  const tame = (b: Block): boolean => !b.deep && (b.fence ? b.fence.bodyEnd - b.fence.bodyStart <= limit : b.end - b.start <= limit);
  if (text.length <= limit && blocks.every(tame)) return text ? [{ kind: "markdown", text }] : [];
  const out: MarkdownSection[] = [];
  let group: { start: number; end: number } | undefined;
  const flush = (): void => {
    if (group) out.push({ kind: "markdown", text: text.slice(group.start, group.end) });
    group = undefined;
  };
  for (const block of blocks) {
    if (tame(block)) {
      if (group && block.end - group.start <= limit) group.end = block.end;
      else {
        flush();
        group = { start: block.start, end: block.end };
      }
      continue;
    }
    flush();
    if (block.deep) out.push({ kind: "plain", text: text.slice(block.start, block.end) });
    else if (block.fence) out.push({ kind: "code", text: text.slice(block.fence.bodyStart, block.fence.bodyEnd).replace(/\n$/, ""), info: block.fence.info });
    else cutLines(text.slice(block.start, block.end), limit, out);
  }
  flush();
  return out;
}

/**
 * Where the settled part of a growing text ends: after the last blank line outside a code fence, at
 * or after `from` (which must itself be such a place). What lies before it cannot change meaning as
 * more text arrives, short of reference definitions, so a streaming reply draws it once.
 */
export function settledEnd(text: string, from: number): number {
  let settled = from;
  let fence: { char: string; length: number } | undefined;
  let pos = from;
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    if (nl < 0) break; // the last line is still growing
    const line = text.slice(pos, nl);
    if (fence) {
      const close = line.match(/^ {0,3}(`{3,}|~{3,})\s*$/);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) fence = undefined;
    } else if (line.trim() === "") settled = nl + 1;
    else {
      const open = line.match(FENCE_OPEN);
      if (open && !(open[1]![0] === "`" && open[2]!.includes("`"))) fence = { char: open[1]![0]!, length: open[1]!.length };
    }
    pos = nl + 1;
  }
  return settled;
}
