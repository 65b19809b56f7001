/**
 * How the edit tool finds the text to replace, as Pi's edit tool does, so that a model's edit lands
 * (or fails) alike in both: exact first, then a lenient match that forgives what models get wrong
 * when they copy text (trailing spaces, typographic quotes and dashes, odd spaces, Unicode forms).
 * The file's BOM and line endings are set aside for the matching and put back afterwards.
 */

/** One replacement: `oldText` must occur exactly once in the file (after the lenient normalisation, if it was needed). */
export interface TextEdit {
  oldText: string;
  newText: string;
}

/** A text file split into what the edits see and what is put back around them. */
export interface EditableText {
  /** "\uFEFF" when the file starts with a byte order mark. */
  bom: string;
  /** The line ending the file uses (its first one decides). */
  ending: "\n" | "\r\n";
  /** The content without the BOM, every line ending a "\n". */
  text: string;
}

/** Splits a file's content for editing. */
export function toEditable(content: string): EditableText {
  const bom = content.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = bom ? content.slice(1) : content;
  const firstLf = body.indexOf("\n");
  const ending = firstLf > 0 && body[firstLf - 1] === "\r" ? "\r\n" : "\n";
  return { bom, ending, text: toLf(body) };
}

/** The file's content again: its BOM, its line ending on every line. */
export function fromEditable(file: EditableText, text: string): string {
  return file.bom + (file.ending === "\r\n" ? text.replace(/\n/g, "\r\n") : text);
}

/** Every line ending ("\r\n", a lone "\r") made "\n". */
export function toLf(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/**
 * The lenient form of a text: Unicode compatibility composition (NFKC), no trailing whitespace on any
 * line, typographic single and double quotes made ASCII, the Unicode hyphens, dashes and minus made
 * "-", and the special spaces (no-break, en to hair, narrow, ideographic) made " ".
 */
export function lenientForm(text: string): string {
  return text
    .normalize("NFKC")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/[\u2018\u2019\u201a\u201b]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/[\u00a0\u2002-\u200a\u202f\u205f\u3000]/g, " ");
}

/** Where `needle` is in `haystack`: exactly, else in both texts' lenient forms. */
function locate(haystack: string, needle: string): { at: number; length: number; lenient: boolean } | undefined {
  const at = haystack.indexOf(needle);
  if (at >= 0) return { at, length: needle.length, lenient: false };
  const lenientNeedle = lenientForm(needle);
  const lenientAt = lenientForm(haystack).indexOf(lenientNeedle);
  return lenientAt >= 0 ? { at: lenientAt, length: lenientNeedle.length, lenient: true } : undefined;
}

/** How often `needle` occurs in `haystack` without overlapping, both in their lenient forms. */
function occurrences(haystack: string, needle: string): number {
  // split counts as Pi counts, also for a needle that is empty in its lenient form (only spaces).
  return lenientForm(haystack).split(lenientForm(needle)).length - 1;
}

/** The edit's name in messages: "the text to replace" for a single edit, "edits[i]" among several. */
function nameOf(index: number, total: number): string {
  return total === 1 ? "The text to replace" : `edits[${index}]`;
}

/**
 * Applies `edits` to `text` (LF line endings). Every edit is matched against the same original; if
 * any needs the lenient match, all are matched in, and the result is built from, the lenient form
 * of the file (so its trailing spaces and typographic marks are normalised as well: Pi's trade).
 * Throws, changing nothing, when an edit is empty, missing, not unique, overlaps another, or when
 * the whole leaves the text as it was. Returns the text the edits were matched in and the result.
 */
export function applyEditsToText(text: string, edits: readonly TextEdit[], path: string): { before: string; after: string } {
  const normalized = edits.map((e) => ({ oldText: toLf(e.oldText), newText: toLf(e.newText) }));
  normalized.forEach((edit, i) => {
    if (edit.oldText === "") throw new Error(`${nameOf(i, edits.length)} is empty in the edit of ${path}; give the exact text to replace.`);
  });
  const anyLenient = normalized.some((edit) => locate(text, edit.oldText)?.lenient === true);
  const before = anyLenient ? lenientForm(text) : text;
  const spans = normalized.map((edit, i) => {
    const found = locate(before, edit.oldText);
    if (!found) {
      throw new Error(
        `${nameOf(i, edits.length)} was not found in ${path}. It must match the file's text, whitespace and line breaks included; read the file again and copy the text exactly.`,
      );
    }
    const count = occurrences(before, edit.oldText);
    if (count > 1) {
      throw new Error(`${nameOf(i, edits.length)} occurs ${count} times in ${path}; it must occur once. Include more of the surrounding lines to make it unique.`);
    }
    return { start: found.at, end: found.at + found.length, newText: edit.newText, index: i };
  });
  spans.sort((a, b) => a.start - b.start);
  for (let i = 1; i < spans.length; i++) {
    if (spans[i]!.start < spans[i - 1]!.end) {
      throw new Error(`edits[${spans[i - 1]!.index}] and edits[${spans[i]!.index}] overlap in ${path}; merge them into one edit, or make them cover separate parts.`);
    }
  }
  let after = "";
  let cursor = 0;
  for (const span of spans) {
    after += before.slice(cursor, span.start) + span.newText;
    cursor = span.end;
  }
  after += before.slice(cursor);
  if (after === before) throw new Error(`The edit${edits.length === 1 ? "" : "s"} would leave ${path} unchanged: each newText is the same as the text it replaces.`);
  return { before, after };
}
