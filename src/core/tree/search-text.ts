/**
 * The two facts about an entry that Pi's tree selector decides visibility by, computed from the full
 * entry when it is summarised (the summary keeps only a preview): the text its search looks at, and
 * whether an assistant turn has no text to show. Pure functions over the parsed line (any shape, since
 * lines can be malformed), so the session store, the CLI and tests share them.
 */

/** How much of a message's text blocks Pi's search reads. */
const SEARCH_CONTENT_LIMIT = 200;

type Fields = Record<string, unknown>;

function isFields(x: unknown): x is Fields {
  return typeof x === "object" && x !== null;
}

/** Joins parts the way `Array.prototype.join` does: null and undefined count as empty. */
function joinParts(parts: readonly unknown[]): string {
  let out = "";
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    out += (i > 0 ? " " : "") + (p === null || p === undefined ? "" : String(p));
  }
  return out;
}

/**
 * The start of a content value's text as Pi's search reads it: a string's first 200 characters, or
 * the text blocks concatenated (no separator) until at least 200 characters are collected.
 */
export function searchContentText(content: unknown): string {
  if (typeof content === "string") return content.slice(0, SEARCH_CONTENT_LIMIT);
  if (!Array.isArray(content)) return "";
  let out = "";
  for (const block of content) {
    if (!isFields(block) || block.type !== "text") continue;
    out += block.text as string;
    if (out.length >= SEARCH_CONTENT_LIMIT) return out.slice(0, SEARCH_CONTENT_LIMIT);
  }
  return out;
}

/** Whether content holds a text block (or is a string) with something other than white space. */
function hasVisibleText(content: unknown): boolean {
  if (typeof content === "string") return content.trim().length > 0;
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (isFields(block) && block.type === "text" && typeof block.text === "string" && block.text.trim().length > 0) return true;
  }
  return false;
}

/**
 * An assistant message with no visible text that ended normally (stop reason `stop`, `toolUse` or
 * none): Pi's tree hides such turns in every filter unless they are the current leaf. Errors,
 * aborts and any other stop reason (`length`) keep them visible.
 */
export function isTextlessTurn(message: unknown): boolean {
  if (!isFields(message) || message.role !== "assistant") return false;
  if (hasVisibleText(message.content)) return false;
  const reason = message.stopReason;
  return !reason || reason === "stop" || reason === "toolUse";
}

/**
 * The text Pi's tree search matches an entry against, without the entry's label (labels change
 * without the entry changing, so the tree matches them separately; every search token is free of
 * white space, so matching the two apart equals matching them joined). Not lower-cased.
 */
export function referenceSearchText(entry: Fields): string {
  switch (entry.type) {
    case "message": {
      const m = isFields(entry.message) ? entry.message : {};
      const parts: unknown[] = [m.role];
      if ("content" in m && m.content) parts.push(searchContentText(m.content));
      if (m.role === "bashExecution" && m.command) parts.push(m.command);
      return joinParts(parts);
    }
    case "custom_message":
      return joinParts([entry.customType, typeof entry.content === "string" ? entry.content : searchContentText(entry.content)]);
    case "compaction":
      return "compaction";
    case "branch_summary":
      return joinParts(["branch summary", entry.summary]);
    case "session_info":
      return entry.name ? joinParts(["title", entry.name]) : "title";
    case "model_change":
      return joinParts(["model", entry.modelId]);
    case "thinking_level_change":
      return joinParts(["thinking", entry.thinkingLevel]);
    case "custom":
      return joinParts(["custom", entry.customType]);
    case "label":
      return joinParts(["label", entry.label ?? ""]);
    default:
      return "";
  }
}

/**
 * The single text a preview is made from when it is also all of Pi's search text for that content:
 * a string, or exactly one text block (other kinds of blocks, which neither reads, aside), no longer
 * than Pi reads. Then the preview (white space collapsed) holds the same words, and the summary needs
 * no separate search text. Undefined otherwise.
 */
function previewEquivalentText(content: unknown): string | undefined {
  let text: string | undefined;
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    for (const block of content) {
      if (!isFields(block)) continue;
      if (block.type === "image") return undefined;
      if (block.type !== "text") continue;
      if (text !== undefined || typeof block.text !== "string") return undefined;
      text = block.text;
    }
    text ??= "";
  } else if (content === undefined || content === null) text = "";
  return text !== undefined && text.length <= SEARCH_CONTENT_LIMIT ? text : undefined;
}

/**
 * A copy of a short string that shares no memory with the string it was cut from: a slice of a
 * large message would otherwise keep the whole message alive for as long as the summary lives.
 */
function detached(text: string): string {
  return (text + " ").slice(0, -1);
}

/**
 * The search text a summary must carry, or undefined when `derivedSearchText` (see search.ts) gives
 * the same words from the summary's own fields. Must stay in step with how `summarizeEntry` makes
 * previews: a message's or custom message's preview is its text blocks (images as "[image]"), an
 * assistant's falls back to tool names or the error when it has no text, a branch summary's is its
 * summary. A unit test checks the two agree on random sessions.
 */
export function searchTextOverride(entry: Fields): string | undefined {
  switch (entry.type) {
    case "message": {
      const m = isFields(entry.message) ? entry.message : {};
      if (typeof m.role !== "string" || m.role === "" || m.role === "bashExecution") break;
      const text = previewEquivalentText(m.content);
      if (text === undefined) break;
      // An assistant without visible text is previewed by its tool calls or error, which Pi does not search.
      if (m.role === "assistant" && (typeof m.content !== "object" || !text.trim())) break;
      return undefined;
    }
    case "custom_message":
      if (typeof entry.customType === "string" && entry.customType !== "" && previewEquivalentText(entry.content) !== undefined) return undefined;
      break;
    case "branch_summary":
      if (typeof entry.summary === "string" && entry.summary.length <= SEARCH_CONTENT_LIMIT) return undefined;
      break;
    case "model_change":
      if (typeof entry.modelId === "string") return undefined;
      break;
    case "thinking_level_change":
      if (typeof entry.thinkingLevel === "string") return undefined;
      break;
    case "custom":
      if (typeof entry.customType === "string") return undefined;
      break;
    case "label":
      if (entry.label === undefined || entry.label === null || typeof entry.label === "string") return undefined;
      break;
    case "session_info":
      if (!entry.name) return undefined;
      break;
    default:
      return undefined;
  }
  return detached(referenceSearchText(entry));
}
