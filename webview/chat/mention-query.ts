/**
 * The `@` file reference of the chat input, read and written as Pi's editor does: an `@` at the
 * start of a word opens the search with what follows it (up to the caret); `@"` starts a quoted
 * one (for names with spaces). Choosing a file puts `@path ` in its place, quoted when the path has
 * a space. Pure: no DOM.
 */
import { fileReference } from "../../src/protocol/chat-attachments";

/** Characters that end a word before an `@` (Pi's, plus the line break of a textarea). */
const DELIMITERS = new Set([" ", "\t", "\n", '"', "'", "="]);

/** The `@` word being typed at the caret. */
export interface MentionQuery {
  /** Where the `@` is. */
  start: number;
  /** What follows it, without the quote. */
  query: string;
  quoted: boolean;
}

/** The `@` word that ends at `caret`, or undefined when the caret is not in one. */
export function mentionAt(text: string, caret: number): MentionQuery | undefined {
  const before = text.slice(0, caret);
  const line = before.slice(before.lastIndexOf("\n") + 1);
  const lineStart = before.length - line.length;
  // A quoted reference still open: `@"my fi`.
  const quote = openQuote(line);
  if (quote !== undefined && quote > 0 && line[quote - 1] === "@" && (quote === 1 || DELIMITERS.has(line[quote - 2]!))) {
    return { start: lineStart + quote - 1, query: line.slice(quote + 1), quoted: true };
  }
  let wordStart = line.length;
  while (wordStart > 0 && !DELIMITERS.has(line[wordStart - 1]!)) wordStart--;
  if (line[wordStart] !== "@") return undefined;
  return { start: lineStart + wordStart, query: line.slice(wordStart + 1), quoted: false };
}

function openQuote(line: string): number | undefined {
  let open: number | undefined;
  for (let i = 0; i < line.length; i++) if (line[i] === '"') open = open === undefined ? i : undefined;
  return open;
}


/** The input after choosing `path` for the `@` word at `mention`: the text and where the caret goes. */
export function applyMention(text: string, caret: number, mention: MentionQuery, path: string): { text: string; caret: number } {
  const reference = `${fileReference(path, mention.quoted)} `;
  let after = text.slice(caret);
  // The closing quote the user typed already is replaced by ours.
  if (reference.startsWith('@"') && after.startsWith('"')) after = after.slice(1);
  const head = text.slice(0, mention.start) + reference;
  return { text: head + after, caret: head.length };
}

/** References to insert at the caret (dropped files): a space before them when the caret ends a word. */
export function insertReferences(text: string, caret: number, references: readonly string[]): { text: string; caret: number } {
  if (references.length === 0) return { text, caret };
  const before = text.slice(0, caret);
  const lead = before.length > 0 && !/\s$/.test(before) ? " " : "";
  const head = `${before}${lead}${references.join(" ")} `;
  return { text: head + text.slice(caret), caret: head.length };
}
