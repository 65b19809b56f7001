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

/** The first character of a line after at most three spaces, as a code (or -1). */
function leadChar(text: string, pos: number, end: number): number {
  for (let i = pos; i < end && i < pos + 4; i++) if (text.charCodeAt(i) !== 32) return text.charCodeAt(i);
  return -1;
}

const BACKTICK = 96;
const TILDE = 126;

/** Whether text[pos, end) holds only white space. */
function blank(text: string, pos: number, end: number): boolean {
  for (let i = pos; i < end; i++) {
    const ch = text.charCodeAt(i);
    if (ch !== 32 && ch !== 9 && ch !== 13) return false;
  }
  return true;
}

/** The text's blocks, in order: runs of non-blank lines, and fenced code blocks (to the end when unclosed). */
function* blocksOf(text: string): Generator<Block> {
  let current: Block | undefined;
  let fence: { char: string; length: number; block: Block } | undefined;
  let pos = 0;
  while (pos <= text.length) {
    const nl = text.indexOf("\n", pos);
    const lineEnd = nl < 0 ? text.length : nl;
    const next = nl < 0 ? text.length + 1 : nl + 1;
    const lead = leadChar(text, pos, lineEnd);
    if (fence) {
      const close = lead === fence.char.charCodeAt(0) ? text.slice(pos, lineEnd).match(/^ {0,3}(`{3,}|~{3,})\s*$/) : null;
      if (close && close[1]!.length >= fence.length) {
        fence.block.fence!.bodyEnd = pos;
        fence.block.end = lineEnd;
        yield fence.block;
        fence = undefined;
      } else {
        fence.block.end = lineEnd;
        fence.block.fence!.bodyEnd = lineEnd;
      }
    } else if (blank(text, pos, lineEnd)) {
      if (current) yield current;
      current = undefined;
    } else {
      const open = lead === BACKTICK || lead === TILDE ? text.slice(pos, Math.min(lineEnd, pos + 1024)).match(FENCE_OPEN) : null;
      if (open && !(open[1]![0] === "`" && open[2]!.includes("`"))) {
        if (current) yield current;
        current = undefined;
        const block: Block = { start: pos, end: lineEnd, deep: false, fence: { info: open[2]!.trim(), bodyStart: next, bodyEnd: next } };
        fence = { char: open[1]![0]!, length: open[1]!.length, block };
      } else {
        current ??= { start: pos, end: lineEnd, deep: false };
        current.end = lineEnd;
        // Only a line's start can nest, so a long line costs nothing here beyond its prefix.
        if (!current.deep && nestingDepth(text.slice(pos, Math.min(lineEnd, pos + 512))) > MAX_DEPTH) current.deep = true;
      }
    }
    pos = next;
  }
  if (fence) {
    fence.block.fence!.bodyEnd = Math.max(fence.block.fence!.bodyStart, Math.min(fence.block.fence!.bodyEnd, text.length));
    yield fence.block;
  }
  if (current) yield current;
}

/** Plain text is drawn in pieces of at most this many characters (a huge text node lays out slowly). */
export const PLAIN_CHARS = 2048;

function* plainPieces(text: string): Generator<MarkdownSection> {
  for (let i = 0; i < text.length; i += PLAIN_CHARS) yield { kind: "plain", text: text.slice(i, i + PLAIN_CHARS) };
}

/**
 * Markup characters per character above which a piece is dense: its parse, sanitising and layout
 * cost by the elements it makes (emphasis runs, table cells), so it is cut four times smaller.
 */
const DENSE_MARKUP = 0.12;
const MARKUP = /[*_`[\]|<>~]/g;

function isDense(text: string): boolean {
  return (text.match(MARKUP)?.length ?? 0) > text.length * DENSE_MARKUP;
}

/** Blocks grouped into one section at most (many short blocks cost by their count). */
export const SECTION_BLOCKS = 48;

/** Cuts a long block at line breaks into pieces of at most `limit` (a quarter of it where dense); a longer line is plain text. */
function* cutLines(text: string, wide: number): Generator<MarkdownSection> {
  let start = 0;
  while (start < text.length) {
    const limit = isDense(text.slice(start, start + wide)) ? wide >> 2 : wide;
    if (text.length - start <= limit) {
      yield { kind: "markdown", text: text.slice(start) };
      return;
    }
    const cut = text.lastIndexOf("\n", start + limit);
    if (cut > start) {
      yield { kind: "markdown", text: text.slice(start, cut) };
      start = cut + 1;
      continue;
    }
    // One line longer than the limit: shown as it is, up to its end.
    const nl = text.indexOf("\n", start);
    const end = nl < 0 ? text.length : nl;
    yield* plainPieces(text.slice(start, end));
    start = end + 1;
  }
}

/**
 * The sections of a markdown text, in order, made as they are asked for (cutting a megabyte takes
 * longer than a task should).
 */
export function* sectionsOf(text: string, limit = SECTION_CHARS): Generator<MarkdownSection> {
  const tame = (b: Block): boolean => !b.deep && (b.fence ? b.fence.bodyEnd - b.fence.bodyStart <= limit : b.end - b.start <= limit);
  if (text.length <= limit) {
    if (!text) return;
    const blocks = [...blocksOf(text)];
    if (blocks.every(tame)) {
      yield { kind: "markdown", text };
      return;
    }
  }
  let group: { start: number; end: number; blocks: number } | undefined;
  for (const block of blocksOf(text)) {
    if (tame(block)) {
      if (group && block.end - group.start <= limit && group.blocks < SECTION_BLOCKS) {
        group.end = block.end;
        group.blocks++;
      } else {
        if (group) yield { kind: "markdown", text: text.slice(group.start, group.end) };
        group = { start: block.start, end: block.end, blocks: 1 };
      }
      continue;
    }
    if (group) yield { kind: "markdown", text: text.slice(group.start, group.end) };
    group = undefined;
    if (block.deep) yield* plainPieces(text.slice(block.start, block.end));
    else if (block.fence) yield { kind: "code", text: text.slice(block.fence.bodyStart, block.fence.bodyEnd).replace(/\n$/, ""), info: block.fence.info };
    else yield* cutLines(text.slice(block.start, block.end), limit);
  }
  if (group) yield { kind: "markdown", text: text.slice(group.start, group.end) };
}

/** The sections of a markdown text, all at once. */
export function markdownSections(text: string, limit = SECTION_CHARS): MarkdownSection[] {
  return [...sectionsOf(text, limit)];
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
    const lead = leadChar(text, pos, nl);
    if (fence) {
      const close = lead === fence.char.charCodeAt(0) ? text.slice(pos, nl).match(/^ {0,3}(`{3,}|~{3,})\s*$/) : null;
      if (close && close[1]!.length >= fence.length) fence = undefined;
    } else if (blank(text, pos, nl)) settled = nl + 1;
    else if (lead === BACKTICK || lead === TILDE) {
      const open = text.slice(pos, Math.min(nl, pos + 1024)).match(FENCE_OPEN);
      if (open && !(open[1]![0] === "`" && open[2]!.includes("`"))) fence = { char: open[1]![0]!, length: open[1]!.length };
    }
    pos = nl + 1;
  }
  return settled;
}
