import type { EntrySummary } from "../tree/types";
import { CHECKOUT_CUSTOM_TYPE, type ImageContent, type SessionEntry, type TextContent } from "./types";

const PREVIEW_LIMIT = 200;

/** Characters of source text read for a preview: enough for PREVIEW_LIMIT after collapsing whitespace. */
const PREVIEW_SOURCE = PREVIEW_LIMIT * 2;

/** One line of plain text, at most PREVIEW_LIMIT characters. */
export function toPreview(text: string): string {
  // Cut before collapsing: a 4 KB tool result needs only its head for one line of preview.
  const head = text.length > PREVIEW_SOURCE ? text.slice(0, PREVIEW_SOURCE) : text;
  const flat = head.replace(/\s+/g, " ").trim();
  return flat.length > PREVIEW_LIMIT ? `${flat.slice(0, PREVIEW_LIMIT - 1)}…` : flat;
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
        if (m.stopReason === "error" || m.stopReason === "aborted") {
          summary.isError = m.stopReason === "error";
        } else if (tools.length && !text.trim()) {
          // A turn that only calls tools: the "no tools" filter hides it with the tool results.
          summary.toolOnly = true;
        }
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
  return summary;
}
