/** Model providers: the interface, the OpenAI-compatible backend and the helpers every backend shares. */
export * from "./provider";
export * from "./provider-errors";
export * from "./system-prompt";
export { AssistantMessageBuilder, type MessageOrigin, type ToolCallPiece } from "./assistant-message-builder";
export {
  ABORTED_ERROR_MESSAGE,
  DEFAULT_CONTEXT_WINDOW,
  OPENAI_COMPLETIONS_API,
  OpenAiCompatibleProvider,
  ProviderRequestError,
  type ModelOverride,
  type OpenAiCompatibleConfig,
} from "./openai-compatible-provider";
