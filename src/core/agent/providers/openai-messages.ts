/**
 * Converts the session format's messages into an OpenAI chat-completions `messages` array.
 *
 * What the endpoint needs that the session does not guarantee:
 * - every assistant `tool_calls` entry is answered by a `tool` message before the next user turn
 *   (a missing result gets a short error result);
 * - a `tool` message answers a tool call of the assistant message just before it (others are dropped);
 * - `tool` messages carry text only, so images from tool results follow in one user message.
 * Thinking blocks are never sent back. Assistant replies that ended in an error or an abort are not
 * sent either: they are unfinished turns, and the model should go on from the last complete state.
 */

import { joinTextBlocks } from "../../session/entry-text";
import type { AssistantMessage, ImageContent, LlmMessage, TextContent, ToolResultMessage } from "../../session/types";
import type { ToolDefinition } from "./provider";

export type ChatContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ChatTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ConvertOptions {
  /** `false` replaces images with a short note (the model cannot see them). */
  supportsImages?: boolean;
}

/** Text of the result sent for a tool call that has no recorded result. */
export const MISSING_TOOL_RESULT_TEXT = "No result was recorded for this tool call.";
/** Sent in place of images to a model that cannot take them. */
export const IMAGE_OMITTED_TEXT = "[image omitted: this model does not accept images]";
/** Text of a `tool` message whose result holds only images (they follow in a user message). */
export const TOOL_IMAGES_FOLLOW_TEXT = "[the result is the image(s) in the next message]";
/** Opens the user message that carries images returned by tools. */
export const TOOL_IMAGES_INTRO_TEXT = "Images returned by the tool call(s) above:";

/** Builds the request's `messages`, with the system prompt first when there is one. */
export function convertToChatMessages(
  systemPrompt: string | undefined,
  messages: readonly LlmMessage[],
  options: ConvertOptions = {},
): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (systemPrompt) out.push({ role: "system", content: systemPrompt });
  const imagesAllowed = options.supportsImages !== false;

  // Tool calls of the last assistant message sent, not yet answered.
  let openCalls: { id: string; name: string }[] = [];
  const answered = new Set<string>();
  let toolImages: ChatContentPart[] = [];

  const closeTurn = (): void => {
    for (const call of openCalls) {
      if (!answered.has(call.id)) out.push({ role: "tool", tool_call_id: call.id, content: MISSING_TOOL_RESULT_TEXT });
    }
    openCalls = [];
    answered.clear();
    if (toolImages.length > 0) {
      out.push({ role: "user", content: [{ type: "text", text: TOOL_IMAGES_INTRO_TEXT }, ...toolImages] });
      toolImages = [];
    }
  };

  for (const message of messages) {
    if (message.role === "user") {
      closeTurn();
      const user = convertUser(message.content, imagesAllowed);
      if (user) out.push(user);
    } else if (message.role === "assistant") {
      if (message.stopReason === "error" || message.stopReason === "aborted") continue;
      closeTurn();
      const assistant = convertAssistant(message);
      if (!assistant) continue;
      out.push(assistant);
      openCalls = (assistant.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name }));
    } else {
      if (!openCalls.some((call) => call.id === message.toolCallId) || answered.has(message.toolCallId)) continue;
      answered.add(message.toolCallId);
      const { text, images } = convertToolResult(message, imagesAllowed);
      out.push({ role: "tool", tool_call_id: message.toolCallId, content: text });
      toolImages.push(...images);
    }
  }
  closeTurn();
  return out;
}

/** Builds the request's `tools`. */
export function convertToChatTools(tools: readonly ToolDefinition[]): ChatTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

function convertUser(
  content: string | (TextContent | ImageContent)[],
  imagesAllowed: boolean,
): ChatMessage | undefined {
  if (typeof content === "string") return { role: "user", content };
  const parts: ChatContentPart[] = [];
  for (const block of content) {
    if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (imagesAllowed) parts.push(toImagePart(block));
    else parts.push({ type: "text", text: IMAGE_OMITTED_TEXT });
  }
  return parts.length > 0 ? { role: "user", content: parts } : undefined;
}

function convertAssistant(message: AssistantMessage): Extract<ChatMessage, { role: "assistant" }> | undefined {
  const text = joinTextBlocks(message.content);
  const toolCalls: ChatToolCall[] = [];
  for (const block of message.content) {
    if (block.type !== "toolCall") continue;
    toolCalls.push({
      id: block.id,
      type: "function",
      function: { name: block.name, arguments: JSON.stringify(block.arguments ?? {}) },
    });
  }
  // Endpoints reject an assistant message with neither content nor tool calls.
  const hasText = text.trim() !== "";
  if (!hasText && toolCalls.length === 0) return undefined;
  const converted: Extract<ChatMessage, { role: "assistant" }> = { role: "assistant", content: hasText ? text : null };
  if (toolCalls.length > 0) converted.tool_calls = toolCalls;
  return converted;
}

function convertToolResult(
  message: ToolResultMessage,
  imagesAllowed: boolean,
): { text: string; images: ChatContentPart[] } {
  const texts: string[] = [];
  const images: ChatContentPart[] = [];
  for (const block of message.content) {
    if (block.type === "text") texts.push(block.text);
    else if (imagesAllowed) images.push(toImagePart(block));
    else texts.push(IMAGE_OMITTED_TEXT);
  }
  let text = texts.join("\n");
  if (text === "") text = images.length > 0 ? TOOL_IMAGES_FOLLOW_TEXT : "";
  return { text, images };
}

function toImagePart(block: ImageContent): ChatContentPart {
  return { type: "image_url", image_url: { url: `data:${block.mimeType};base64,${block.data}` } };
}
