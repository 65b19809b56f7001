import * as vscode from "vscode";
import { foldSystemPrompt } from "../../core/agent/providers/system-prompt";
import type { ToolDefinition } from "../../core/agent/providers/provider";
import type { AssistantMessage, ImageContent, LlmMessage, TextContent, ToolResultMessage } from "../../core/session/types";

/** Sent for a tool call that has no recorded result (the API wants every call answered). */
export const MISSING_TOOL_RESULT_TEXT = "No result was recorded for this tool call.";
/** Sent in place of an image: this path carries text only. */
export const IMAGE_OMITTED_TEXT = "[image omitted: VS Code language models receive text only from Arbor]";

/**
 * The session's messages as VS Code Language Model messages.
 *
 * The API has no system role for other extensions, so the system prompt is folded into the first user
 * message. Thinking is not sent back; replies that failed or were stopped are left out (the model goes
 * on from the last complete state); each tool call gets exactly one result, right after it.
 */
export function toChatMessages(systemPrompt: string | undefined, messages: readonly LlmMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  let open: string[] = [];
  let results: vscode.LanguageModelToolResultPart[] = [];
  const answered = new Set<string>();
  const closeTurn = (): void => {
    for (const id of open) if (!answered.has(id)) results.push(new vscode.LanguageModelToolResultPart(id, [new vscode.LanguageModelTextPart(MISSING_TOOL_RESULT_TEXT)]));
    if (results.length > 0) out.push(vscode.LanguageModelChatMessage.User(results));
    open = [];
    results = [];
    answered.clear();
  };
  for (const message of foldSystemPrompt(systemPrompt, messages)) {
    if (message.role === "user") {
      closeTurn();
      out.push(vscode.LanguageModelChatMessage.User(userParts(message.content)));
    } else if (message.role === "assistant") {
      if (message.stopReason === "error" || message.stopReason === "aborted") continue;
      closeTurn();
      const parts = assistantParts(message);
      if (parts.length === 0) continue;
      out.push(vscode.LanguageModelChatMessage.Assistant(parts));
      open = parts.filter((part) => part instanceof vscode.LanguageModelToolCallPart).map((part) => (part as vscode.LanguageModelToolCallPart).callId);
    } else if (open.includes(message.toolCallId) && !answered.has(message.toolCallId)) {
      answered.add(message.toolCallId);
      results.push(toolResultPart(message));
    }
  }
  closeTurn();
  return out;
}

/** Arbor's tool definitions as the API takes them. */
export function toChatTools(tools: readonly ToolDefinition[] | undefined): vscode.LanguageModelChatTool[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  return tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters }));
}

function userParts(content: string | (TextContent | ImageContent)[]): vscode.LanguageModelTextPart[] {
  if (typeof content === "string") return [new vscode.LanguageModelTextPart(content)];
  return content.map((block) => new vscode.LanguageModelTextPart(block.type === "text" ? block.text : IMAGE_OMITTED_TEXT));
}

function assistantParts(message: AssistantMessage): (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] {
  const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = [];
  for (const block of message.content) {
    if (block.type === "text" && block.text !== "") parts.push(new vscode.LanguageModelTextPart(block.text));
    else if (block.type === "toolCall") parts.push(new vscode.LanguageModelToolCallPart(block.id, block.name, block.arguments ?? {}));
  }
  return parts;
}

function toolResultPart(message: ToolResultMessage): vscode.LanguageModelToolResultPart {
  const texts = message.content.map((block) => (block.type === "text" ? block.text : IMAGE_OMITTED_TEXT));
  const text = texts.join("\n") || "(no output)";
  return new vscode.LanguageModelToolResultPart(message.toolCallId, [new vscode.LanguageModelTextPart(message.isError ? `Error: ${text}` : text)]);
}
