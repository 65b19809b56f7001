/**
 * Carrying a system prompt to backends that have no system role (the VS Code Language Model API).
 */

import type { LlmMessage, TextContent, UserMessage } from "../../session/types";

/** Opens the folded instructions. Also how a reader of the request can tell them apart from what the user typed. */
export const FOLDED_SYSTEM_PROMPT_OPEN = "<system_instructions>";
/** Closes the folded instructions. */
export const FOLDED_SYSTEM_PROMPT_CLOSE = "</system_instructions>";

/**
 * Returns the messages with the system prompt folded into the first user message, for a backend without
 * a system role.
 *
 * The instructions go first in that message, wrapped in {@link FOLDED_SYSTEM_PROMPT_OPEN} and
 * {@link FOLDED_SYSTEM_PROMPT_CLOSE} tags with a line saying they are standing instructions, then a blank
 * line, then the user's own content unchanged (a string stays a string; a block list gets one text block
 * in front, images keep their place). If the conversation does not start with a user message (it was
 * compacted to an assistant turn, or is empty), a user message holding only the instructions is put first.
 *
 * The input is not changed; an empty or missing prompt returns the same messages.
 */
export function foldSystemPrompt(systemPrompt: string | undefined, messages: readonly LlmMessage[]): LlmMessage[] {
  if (!systemPrompt) return [...messages];
  const preamble = formatFoldedSystemPrompt(systemPrompt);
  const first = messages[0];
  if (first?.role !== "user") {
    const carrier: UserMessage = { role: "user", content: preamble, timestamp: first?.timestamp ?? Date.now() };
    return [carrier, ...messages];
  }
  const folded: UserMessage =
    typeof first.content === "string"
      ? { ...first, content: `${preamble}\n\n${first.content}` }
      : { ...first, content: [{ type: "text", text: `${preamble}\n\n` } satisfies TextContent, ...first.content] };
  return [folded, ...messages.slice(1)];
}

/** The delimited block {@link foldSystemPrompt} puts in front of the first user message. */
export function formatFoldedSystemPrompt(systemPrompt: string): string {
  return [
    FOLDED_SYSTEM_PROMPT_OPEN,
    "These are your standing instructions for this whole conversation (they would be a system message if this interface had one).",
    systemPrompt,
    FOLDED_SYSTEM_PROMPT_CLOSE,
  ].join("\n");
}
