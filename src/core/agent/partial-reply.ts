import type { AssistantMessage, ToolCall } from "../session/types";
import { createEmptyUsage, type ModelInfo, type StreamEvent } from "./providers/provider";

/**
 * The assistant reply as it streams, for front ends to draw. Only the final message from the
 * provider's terminal event is ever appended to the session; this copy is for display.
 */
export class PartialReply {
  readonly message: AssistantMessage;
  private readonly argumentTexts = new Map<number, string>();

  constructor(model: ModelInfo, api = "") {
    this.message = {
      role: "assistant",
      content: [],
      api,
      provider: model.provider,
      model: model.id,
      usage: createEmptyUsage(),
      stopReason: "stop",
      timestamp: Date.now(),
    };
  }

  apply(event: StreamEvent): void {
    const content = this.message.content;
    switch (event.type) {
      case "text_delta": {
        const block = content[event.contentIndex];
        if (block?.type === "text") block.text += event.delta;
        else content[event.contentIndex] = { type: "text", text: event.delta };
        break;
      }
      case "thinking_delta": {
        const block = content[event.contentIndex];
        if (block?.type === "thinking") block.thinking += event.delta;
        else content[event.contentIndex] = { type: "thinking", thinking: event.delta };
        break;
      }
      case "toolcall_start":
        content[event.contentIndex] = { type: "toolCall", id: event.id, name: event.name, arguments: {} };
        break;
      case "toolcall_delta":
        this.argumentTexts.set(event.contentIndex, (this.argumentTexts.get(event.contentIndex) ?? "") + event.delta);
        break;
      case "toolcall_end":
        content[event.contentIndex] = { ...event.toolCall } satisfies ToolCall;
        break;
      default:
        break;
    }
  }

  /** The raw arguments text of a tool call still streaming (for live display). */
  argumentsText(contentIndex: number): string {
    return this.argumentTexts.get(contentIndex) ?? "";
  }
}
