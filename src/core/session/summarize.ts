import { isTextlessTurn, searchTextOverride } from "../tree/search-text";
import type { EntrySummary } from "../tree/types";
import { CHECKOUT_CUSTOM_TYPE, type ImageContent, type SessionEntry, type TextContent } from "./types";

const PREVIEW_LIMIT = 200;

/** Characters of source text read for a preview: enough for PREVIEW_LIMIT after collapsing whitespace. */
export const PREVIEW_SOURCE = PREVIEW_LIMIT * 2;

/** The characters JavaScript's `\s` (and `trim`) treat as white space. */
export function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * One line of plain text, at most PREVIEW_LIMIT characters: white-space runs become one space,
 * ends are trimmed, and a cut is marked with "…". The same result as
 * `text.slice(0, PREVIEW_SOURCE).replace(/\s+/g, " ").trim()` cut to the limit, in one pass over
 * only the characters needed (it runs for every entry of a session when it is opened).
 */
export function toPreview(text: string): string {
  const end = Math.min(text.length, PREVIEW_SOURCE);
  let i = 0;
  while (i < end && isSpace(text.charCodeAt(i))) i++;
  let out = "";
  let runStart = i;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (!isSpace(c)) continue;
    let j = i + 1;
    while (j < end && isSpace(text.charCodeAt(j))) j++;
    if (c === 32 && j === i + 1) continue; // a single plain space stays part of the run
    out += text.slice(runStart, i);
    if (j < end) out += " ";
    runStart = j;
    i = j - 1;
    if (out.length > PREVIEW_LIMIT) break;
  }
  if (runStart < end && i >= end) out += text.slice(runStart, end);
  if (out.length > 0 && out.charCodeAt(out.length - 1) === 32) out = out.slice(0, -1);
  return out.length > PREVIEW_LIMIT ? `${out.slice(0, PREVIEW_LIMIT - 1)}…` : out;
}

/** The text blocks of a content value, joined, but only as much as a preview needs. */
function blocksText(content: unknown): string {
  if (typeof content === "string") return content.length > PREVIEW_SOURCE ? content.slice(0, PREVIEW_SOURCE) : content;
  if (!Array.isArray(content)) return "";
  let out = "";
  for (const block of content as (TextContent | ImageContent | { type?: unknown })[]) {
    if (out.length >= PREVIEW_SOURCE) break;
    if (!block || typeof block !== "object") continue;
    const piece = block.type === "text" && typeof (block as TextContent).text === "string" ? (block as TextContent).text : block.type === "image" ? "[image]" : undefined;
    if (piece === undefined) continue;
    out += (out ? " " : "") + (piece.length > PREVIEW_SOURCE ? piece.slice(0, PREVIEW_SOURCE) : piece);
  }
  return out;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** The light view of an entry that the tree draws, filters and searches. Tolerates malformed content. */
export function summarizeEntry(entry: SessionEntry | Record<string, unknown>, line: number): EntrySummary {
  const e = entry as Record<string, unknown>;
  const summary: EntrySummary = {
    id: String(e.id),
    parentId: typeof e.parentId === "string" ? e.parentId : null,
    type: String(e.type),
    timestamp: str(e.timestamp) ?? "",
    line,
    preview: "",
  };
  switch (e.type) {
    case "message": {
      const m = (e.message ?? {}) as Record<string, unknown>;
      const role = str(m.role) ?? "unknown";
      summary.role = role;
      if (role === "assistant") {
        const content = Array.isArray(m.content) ? (m.content as Record<string, unknown>[]) : [];
        const text = blocksText(content);
        const tools = content.filter((b) => b && b.type === "toolCall").map((b) => str(b.name) ?? "tool");
        if (tools.length) summary.toolName = tools.join(", ");
        if (m.stopReason === "error") summary.isError = true;
        if (isTextlessTurn(m)) summary.textless = true;
        const thinking = content.find((b) => b && b.type === "thinking");
        summary.preview = toPreview(
          text ||
            (tools.length ? `→ ${tools.join(", ")}` : "") ||
            str(m.errorMessage) ||
            (thinking ? `(thinking) ${str(thinking.thinking) ?? ""}` : "") ||
            `(${str(m.stopReason) ?? "empty"})`,
        );
      } else if (role === "toolResult") {
        summary.toolName = str(m.toolName);
        summary.isError = m.isError === true;
        summary.preview = toPreview(blocksText(m.content));
      } else if (role === "bashExecution") {
        const code = typeof m.exitCode === "number" && m.exitCode !== 0 ? ` (exit ${m.exitCode})` : "";
        summary.isError = code !== "" || m.cancelled === true;
        summary.preview = toPreview(`$ ${str(m.command) ?? ""}${code}`);
      } else if (role === "custom") {
        summary.customType = str(m.customType);
        summary.preview = toPreview(blocksText(m.content));
      } else {
        summary.preview = toPreview(blocksText(m.content));
      }
      break;
    }
    case "compaction":
      summary.tokensBefore = typeof e.tokensBefore === "number" ? e.tokensBefore : undefined;
      summary.firstKeptEntryId = str(e.firstKeptEntryId);
      summary.preview = toPreview(str(e.summary) ?? "");
      break;
    case "branch_summary":
      summary.fromId = str(e.fromId);
      summary.preview = toPreview(str(e.summary) ?? "");
      break;
    case "custom":
      summary.customType = str(e.customType);
      summary.preview = toPreview(str(e.customType) ?? "custom");
      if (e.customType === CHECKOUT_CUSTOM_TYPE) summary.checkoutMarker = true;
      break;
    case "custom_message":
      summary.customType = str(e.customType);
      summary.preview = toPreview(blocksText(e.content));
      break;
    case "label":
      summary.targetId = str(e.targetId);
      summary.label = str(e.label) || undefined;
      summary.preview = toPreview(summary.label ? `label "${summary.label}"` : "label cleared");
      break;
    case "session_info":
      summary.preview = toPreview(str(e.name)?.trim() ? `name: ${str(e.name)}` : "name cleared");
      break;
    case "model_change":
      summary.provider = str(e.provider);
      summary.modelId = str(e.modelId);
      summary.preview = toPreview(`${summary.provider ?? "?"}/${summary.modelId ?? "?"}`);
      break;
    case "thinking_level_change":
      summary.thinkingLevel = str(e.thinkingLevel);
      summary.preview = toPreview(`thinking: ${summary.thinkingLevel ?? "?"}`);
      break;
    default:
      summary.preview = toPreview(`unknown entry type "${summary.type}"`);
  }
  const searchText = searchTextOverride(e);
  if (searchText !== undefined) summary.searchText = searchText;
  return summary;
}
