/** Model providers: the interface and the helpers every backend shares (the backends live in src/core/models and src/extension/models). */
export * from "./provider";
export * from "./provider-errors";
export * from "./system-prompt";
export { AssistantMessageBuilder, type MessageOrigin, type ToolCallPiece } from "./assistant-message-builder";
