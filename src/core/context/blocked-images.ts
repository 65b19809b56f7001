/**
 * Pi's `images.blockImages`: the session keeps its images (a prompt's, a tool result's), but the
 * model is sent a line in place of each, one line for a run of them. Pure: no Node, no VS Code.
 */
import type { ImageContent, LlmMessage, TextContent } from "../session/types";

/** What the model reads where an image was left out. */
export const IMAGE_BLOCKED_TEXT = "[An image was left out: sending images is turned off in the settings (images.blockImages).]";

/** The messages with every image of user messages and tool results replaced by {@link IMAGE_BLOCKED_TEXT}. */
export function withoutImages(messages: readonly LlmMessage[]): LlmMessage[] {
  return messages.map((message) => {
    if (message.role === "assistant" || typeof message.content === "string") return message;
    if (!message.content.some((block) => block.type === "image")) return message;
    const out: (TextContent | ImageContent)[] = [];
    for (const block of message.content) {
      const previous = out[out.length - 1];
      if (block.type !== "image") out.push(block);
      else if (!(previous?.type === "text" && previous.text === IMAGE_BLOCKED_TEXT)) out.push({ type: "text", text: IMAGE_BLOCKED_TEXT });
    }
    return { ...message, content: out } as LlmMessage;
  });
}
