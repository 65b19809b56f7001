/**
 * The one interface through which Arbor's agent talks to a model.
 *
 * Two kinds of backend implement it: the VS Code Language Model API (an adapter in the VS Code layer)
 * and pi-ai, Pi's own provider layer (src/core/models/pi-ai-provider.ts). The messages going in are the
 * session format's own messages (`convertToLlm(buildSessionContext(...))`), and the message coming out
 * is an `AssistantMessage` ready to be appended to the session file as it is.
 *
 * Pure core: no `vscode`, no Node modules.
 */

import type {
  AssistantMessage,
  LlmMessage,
  ThinkingLevel,
  ToolCall,
  Usage,
} from "../../session/types";

/** Context window assumed for a model nothing is known about. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
/** `errorMessage` of a reply stopped through its AbortSignal when the backend gave no words of its own. */
export const ABORTED_ERROR_MESSAGE = "Request was aborted.";

/** Prices in US dollars per million tokens, used to fill `usage.cost`. */
export interface ModelPricing {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** What the agent needs to know about one model of one provider. */
export interface ModelInfo {
  /** The provider id, written to `AssistantMessage.provider` and to `model_change` entries. */
  provider: string;
  /** The model id as the backend knows it, written to `AssistantMessage.model`. */
  id: string;
  /** A display name for pickers. */
  name: string;
  /** Tokens the model accepts in one request (prompt plus output); drives compaction. */
  contextWindow: number;
  maxOutputTokens?: number;
  /** Whether a thinking level other than `off` means anything to this model. */
  supportsThinking?: boolean;
  /**
   * The thinking levels this model takes, `off` first. Absent: every level (the backend decides).
   * See src/core/models/thinking-levels.ts.
   */
  thinkingLevels?: readonly ThinkingLevel[];
  /** The wire protocol, as Pi names it (`openai-completions`, `anthropic-messages`, `vscode-lm`, ...). */
  api?: string;
  /** `false` means images are replaced by a short note before sending; unknown means they are sent. */
  supportsImages?: boolean;
  /** Absent means the cost fields of `usage` stay 0. */
  pricing?: ModelPricing;
}

/** A tool the model may call. `parameters` is a JSON Schema object. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One model call. */
export interface ModelRequest {
  model: ModelInfo;
  /** Instructions sent in the backend's system role (or folded into the first user message, see `foldSystemPrompt`). */
  systemPrompt?: string;
  messages: LlmMessage[];
  tools?: ToolDefinition[];
  /** Ignored for models without `supportsThinking`. */
  thinkingLevel?: ThinkingLevel;
  /** Caps the reply's output tokens; absent, the backend uses the model's own default cap. */
  maxTokens?: number;
  temperature?: number;
  /** The session's id, which some backends use as a prompt-cache key (as Pi sends it). */
  sessionId?: string;
  /**
   * Called with the backend's request body just before it is sent; a value other than undefined is
   * sent instead (extensions' `before_provider_request`; pi-ai's StreamOptions.onPayload).
   */
  onPayload?: (payload: unknown) => unknown | Promise<unknown>;
}

/**
 * What a model call yields, in order: `start` once the backend has accepted the request, then any number
 * of deltas, then exactly one terminal event (`done` or `error`), after which the stream ends.
 *
 * `contentIndex` is the index of the block in the final message's `content`.
 * Failures that happen before the backend accepted the request yield only the terminal `error` event.
 */
export type StreamEvent =
  | { type: "start" }
  | { type: "text_delta"; contentIndex: number; delta: string }
  | { type: "thinking_delta"; contentIndex: number; delta: string }
  | { type: "toolcall_start"; contentIndex: number; id: string; name: string }
  /** `delta` is a piece of the tool call's JSON arguments text. */
  | { type: "toolcall_delta"; contentIndex: number; delta: string }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall }
  /** The model finished: `stopReason` is stop, length or toolUse. */
  | { type: "done"; message: AssistantMessage }
  /**
   * The call failed (`stopReason` "error", with `errorMessage`) or was aborted (`stopReason` "aborted").
   * The message keeps whatever content arrived before the failure, so nothing streamed is lost.
   */
  | {
      type: "error";
      message: AssistantMessage;
      /** The failed response's `Retry-After` header, when the backend saw one (not stored in the session). */
      retryAfter?: string;
    };

/** The terminal events: the last event of every stream. */
export type TerminalStreamEvent = Extract<StreamEvent, { type: "done" | "error" }>;

/** A model backend. */
export interface ModelProvider {
  /** The provider id written to messages and `model_change` entries (e.g. "openai", "ollama"). */
  readonly id: string;
  /**
   * The models this backend offers. Rejects with a clear error when the backend cannot be reached;
   * callers keep working without a model (browse, label, fork) and say how to fix it.
   */
  listModels(signal?: AbortSignal): Promise<ModelInfo[]>;
  /**
   * Calls the model. Never throws and never rejects: every failure, including an abort through `signal`,
   * arrives as the terminal `error` event. Stopping iteration early also cancels the underlying request.
   */
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<StreamEvent>;
}

/** A usage record with every count and cost at 0. */
export function createEmptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** Fills `usage.cost` from per-million-token prices (in place) and returns the usage. */
export function applyPricing(usage: Usage, pricing: ModelPricing | undefined): Usage {
  if (!pricing) return usage;
  const perToken = (pricePerMillion: number, tokens: number): number => (pricePerMillion / 1_000_000) * tokens;
  usage.cost.input = perToken(pricing.input, usage.input);
  usage.cost.output = perToken(pricing.output, usage.output);
  usage.cost.cacheRead = perToken(pricing.cacheRead, usage.cacheRead);
  usage.cost.cacheWrite = perToken(pricing.cacheWrite, usage.cacheWrite);
  usage.cost.total = usage.cost.input + usage.cost.output + usage.cost.cacheRead + usage.cost.cacheWrite;
  return usage;
}

/**
 * Runs a stream to its end and returns the final message (from `done` or `error`). For callers that
 * need no live updates, such as compaction and branch summaries.
 * Rejects only if the stream breaks its contract and ends without a terminal event.
 */
export async function collectStream(events: AsyncIterable<StreamEvent>): Promise<AssistantMessage> {
  let final: AssistantMessage | undefined;
  for await (const event of events) {
    if (event.type === "done" || event.type === "error") final = event.message;
  }
  if (!final) throw new Error("The model stream ended without a final message.");
  return final;
}
