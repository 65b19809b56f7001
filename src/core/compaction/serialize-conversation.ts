/**
 * The plain-text transcript a summarizer model reads. Sending the conversation as one text,
 * rather than as chat turns, keeps the model from answering it instead of summarizing it.
 * Pure. The layout matches Pi's, so both tools summarize from the same input.
 */
import { joinTextBlocks } from "../session/entry-text";
import type { LlmMessage } from "../session/types";

/** Tool output beyond this many characters is cut: a summary needs the gist, not whole files. */
export const TOOL_RESULT_MAX_CHARS = 2000;

/**
 * One paragraph per part, separated by blank lines: `[User]: ...`, `[Assistant thinking]: ...`,
 * `[Assistant]: ...`, `[Assistant tool calls]: name(k=json, ...); ...`, `[Tool result]: ...`
 * (cut to {@link TOOL_RESULT_MAX_CHARS}). Images and empty parts are left out.
 * Run {@link convertToLlm} first so that bash runs, custom messages and summaries are included.
 */
export function serializeConversation(messages: readonly LlmMessage[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      const text = typeof message.content === "string" ? message.content : joinTextBlocks(message.content);
      if (text) parts.push(`[User]: ${text}`);
    } else if (message.role === "assistant") {
      parts.push(...assistantParts(message.content));
    } else if (message.role === "toolResult") {
      const text = joinTextBlocks(message.content);
      if (text) parts.push(`[Tool result]: ${truncate(text, TOOL_RESULT_MAX_CHARS)}`);
    }
  }
  return parts.join("\n\n");
}

function assistantParts(content: Extract<LlmMessage, { role: "assistant" }>["content"]): string[] {
  const texts: string[] = [];
  const thoughts: string[] = [];
  const calls: string[] = [];
  for (const block of content) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "thinking") thoughts.push(block.thinking);
    else if (block.type === "toolCall") calls.push(`${block.name}(${formatArguments(block.arguments)})`);
  }
  const parts: string[] = [];
  if (thoughts.length > 0) parts.push(`[Assistant thinking]: ${thoughts.join("\n")}`);
  if (texts.length > 0) parts.push(`[Assistant]: ${texts.join("\n")}`);
  if (calls.length > 0) parts.push(`[Assistant tool calls]: ${calls.join("; ")}`);
  return parts;
}

function formatArguments(args: Record<string, unknown> | undefined): string {
  return Object.entries(args ?? {})
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(", ");
}


function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n\n[... ${text.length - maxChars} more characters truncated]`;
}
