import type { ImageContent, SessionEntry, TextContent } from "./types";

/** The text blocks of a message's content, joined by `separator` (other blocks left out). */
export function joinTextBlocks(blocks: readonly { type: string; text?: string }[], separator = ""): string {
  let out = "";
  let first = true;
  for (const block of blocks) {
    if (block.type !== "text") continue;
    out += (first ? "" : separator) + (block.text ?? "");
    first = false;
  }
  return out;
}

/**
 * The text a user or custom message gives back for editing (a checkout or a fork before it): its
 * text blocks joined as Pi joins them (no separator); images are left out.
 */
export function editableText(content: string | (TextContent | ImageContent)[]): string {
  return typeof content === "string" ? content : joinTextBlocks(content);
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const b of content as Record<string, unknown>[]) {
    if (!b || typeof b !== "object") continue;
    if (b.type === "text" && typeof b.text === "string") parts.push(b.text);
    else if (b.type === "thinking" && typeof b.thinking === "string") parts.push(`(thinking)\n${b.thinking}`);
    else if (b.type === "toolCall") parts.push(`→ ${String(b.name)}(${JSON.stringify(b.arguments ?? {})})`);
    else if (b.type === "image") parts.push("[image]");
  }
  return parts.join("\n\n");
}

/** The full plain text of an entry, as "Copy Text" gives it. */
export function entryText(entry: SessionEntry): string {
  const e = entry as unknown as Record<string, unknown>;
  switch (entry.type) {
    case "message": {
      const m = entry.message as unknown as Record<string, unknown>;
      if (m.role === "bashExecution") {
        const code = typeof m.exitCode === "number" ? `\n(exit ${m.exitCode})` : "";
        return `$ ${String(m.command)}\n${String(m.output ?? "")}${code}`;
      }
      if (m.role === "assistant" && typeof m.errorMessage === "string" && !contentText(m.content)) return m.errorMessage;
      return contentText(m.content);
    }
    case "compaction":
    case "branch_summary":
      return entry.summary;
    case "custom_message":
      return contentText(entry.content);
    case "custom":
      return JSON.stringify(entry.data ?? null, null, 2);
    case "label":
      return entry.label ?? "";
    case "session_info":
      return entry.name ?? "";
    case "model_change":
      return `${entry.provider}/${entry.modelId}`;
    case "thinking_level_change":
      return entry.thinkingLevel;
    default:
      return JSON.stringify(e, null, 2);
  }
}
