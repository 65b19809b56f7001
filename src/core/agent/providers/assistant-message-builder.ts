/**
 * Builds an `AssistantMessage` from streamed pieces and says which `StreamEvent` each piece makes.
 * Shared by every backend, so that all of them fill messages the same way: one text block and one
 * thinking block (in order of first appearance) plus one block per tool call.
 */

import type { AssistantMessage, StopReason, ThinkingContent, ToolCall, Usage } from "../../session/types";
import { createEmptyUsage, type StreamEvent } from "./provider";
import { parseToolArguments } from "./tool-arguments";

/** A piece of one tool call, as backends stream them. */
export interface ToolCallPiece {
  id?: string;
  name?: string;
  /** More of the JSON arguments text. */
  argumentsDelta?: string;
}

interface PendingToolCall {
  contentIndex: number;
  argumentsText: string;
}

/** Identifies the call being answered; copied into the message. */
export interface MessageOrigin {
  api: string;
  provider: string;
  model: string;
}

/** Accumulates one assistant reply. Create one per model call. */
export class AssistantMessageBuilder {
  private readonly message: AssistantMessage;
  private textIndex = -1;
  private thinkingIndex = -1;
  private readonly toolCalls = new Map<string | number, PendingToolCall>();
  private lastToolCallKey: string | number | undefined;
  private finished = false;

  constructor(origin: MessageOrigin, now: number = Date.now()) {
    this.message = {
      role: "assistant",
      content: [],
      api: origin.api,
      provider: origin.provider,
      model: origin.model,
      usage: createEmptyUsage(),
      stopReason: "stop",
      timestamp: now,
    };
  }

  /** Whether any tool call has started. */
  hasToolCalls(): boolean {
    return this.toolCalls.size > 0;
  }

  /** Whether any content (text, thinking or a tool call) has arrived. */
  hasContent(): boolean {
    return this.message.content.length > 0;
  }

  setUsage(usage: Usage): void {
    this.message.usage = usage;
  }

  /** Records the backend's response id and, when it differs from the requested model, the model that answered. */
  setResponseInfo(responseId: string | undefined, responseModel: string | undefined): void {
    if (responseId && !this.message.responseId) this.message.responseId = responseId;
    if (responseModel && responseModel !== this.message.model && !this.message.responseModel) {
      this.message.responseModel = responseModel;
    }
  }

  appendText(delta: string): StreamEvent | undefined {
    if (delta === "") return undefined;
    if (this.textIndex < 0) this.textIndex = this.message.content.push({ type: "text", text: "" }) - 1;
    const block = this.message.content[this.textIndex];
    if (block.type === "text") block.text += delta;
    return { type: "text_delta", contentIndex: this.textIndex, delta };
  }

  /** `signature` is kept on the block (e.g. the field the backend used) so a later replay could restore it. */
  appendThinking(delta: string, signature?: string): StreamEvent | undefined {
    if (delta === "") return undefined;
    if (this.thinkingIndex < 0) {
      const block: ThinkingContent = { type: "thinking", thinking: "" };
      if (signature) block.thinkingSignature = signature;
      this.thinkingIndex = this.message.content.push(block) - 1;
    }
    const block = this.message.content[this.thinkingIndex];
    if (block.type === "thinking") block.thinking += delta;
    return { type: "thinking_delta", contentIndex: this.thinkingIndex, delta };
  }

  /**
   * Adds a piece of the tool call identified by `key` (the backend's stream index, else its id).
   * Without a key the piece continues the most recent tool call.
   */
  appendToolCall(key: string | number | undefined, piece: ToolCallPiece): StreamEvent[] {
    const events: StreamEvent[] = [];
    const resolvedKey = key ?? piece.id ?? this.lastToolCallKey ?? 0;
    let pending = this.toolCalls.get(resolvedKey);
    if (!pending) {
      const block: ToolCall = { type: "toolCall", id: piece.id ?? "", name: piece.name ?? "", arguments: {} };
      pending = { contentIndex: this.message.content.push(block) - 1, argumentsText: "" };
      this.toolCalls.set(resolvedKey, pending);
      events.push({ type: "toolcall_start", contentIndex: pending.contentIndex, id: block.id, name: block.name });
    }
    this.lastToolCallKey = resolvedKey;
    const block = this.toolCallAt(pending.contentIndex);
    if (piece.id && !block.id) block.id = piece.id;
    if (piece.name && !block.name) block.name = piece.name;
    if (piece.argumentsDelta) {
      pending.argumentsText += piece.argumentsDelta;
      events.push({ type: "toolcall_delta", contentIndex: pending.contentIndex, delta: piece.argumentsDelta });
    }
    return events;
  }

  /** Ends a successful reply: parses every tool call's arguments and yields `toolcall_end` events, then `done`. */
  finish(stopReason: Extract<StopReason, "stop" | "length" | "toolUse">): StreamEvent[] {
    this.assertOpen();
    this.message.stopReason = stopReason;
    const events: StreamEvent[] = [];
    for (const pending of this.toolCalls.values()) {
      const block = this.finalizeToolCall(pending);
      events.push({ type: "toolcall_end", contentIndex: pending.contentIndex, toolCall: block });
    }
    events.push({ type: "done", message: this.message });
    return events;
  }

  /** Ends a failed or aborted reply, keeping every piece of content that arrived. */
  fail(stopReason: Extract<StopReason, "error" | "aborted">, errorMessage: string): StreamEvent {
    this.assertOpen();
    for (const pending of this.toolCalls.values()) this.finalizeToolCall(pending);
    this.message.stopReason = stopReason;
    this.message.errorMessage = errorMessage;
    return { type: "error", message: this.message };
  }

  private finalizeToolCall(pending: PendingToolCall): ToolCall {
    const block = this.toolCallAt(pending.contentIndex);
    block.arguments = parseToolArguments(pending.argumentsText);
    return block;
  }

  private toolCallAt(index: number): ToolCall {
    const block = this.message.content[index];
    if (block.type !== "toolCall") throw new Error(`Content block ${index} is not a tool call.`);
    return block;
  }

  private assertOpen(): void {
    // A second terminal event would break the stream contract (exactly one done or error).
    if (this.finished) throw new Error("This assistant message is already complete.");
    this.finished = true;
  }
}
