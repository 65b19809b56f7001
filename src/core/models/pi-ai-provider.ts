/**
 * The pi-ai backend of Arbor's {@link ModelProvider} interface: every API pi-ai speaks (OpenAI's
 * completions and responses, Anthropic, Google, Mistral, and any OpenAI-compatible server such as
 * Ollama, LM Studio or vLLM), streamed exactly as Pi streams them.
 *
 * One instance serves one provider id (`anthropic`, `openai`, a models.json provider...). It finds
 * the pi-ai model for a request in the model registry, asks the host for the credentials, loads the
 * API's module on first use and maps pi-ai's events onto Arbor's. Around the call it adds what Pi
 * leaves to its host: an overall timeout, caps on what the endpoint sends (endpoint-guard), and a
 * confirmation before a key travels over plain http to another machine.
 *
 * Pure core: no `vscode`.
 */

import type { AssistantMessageEvent, Context, Message, SimpleStreamOptions, ThinkingBudgets, Tool } from "@mariozechner/pi-ai" with { "resolution-mode": "import" };
import { ABORTED_ERROR_MESSAGE, createEmptyUsage, type ModelInfo, type ModelProvider, type ModelRequest, type StreamEvent } from "../agent/providers/provider";
import type { AssistantMessage, StopReason } from "../session/types";
import {
  DEFAULT_ENDPOINT_LIMITS,
  guardRequestsOf,
  observeResponsesOf,
  hasCredentialHeader,
  insecureCredentialOrigin,
  timeoutMessage,
  type EndpointLimits,
} from "./endpoint-guard";
import { piAi, type PiAiLoader, type PiModel } from "./pi-ai-modules";
import { supportedThinkingLevels } from "./thinking-levels";

/** Credentials for one call, or why there are none. */
export type RequestAuth =
  /** `baseUrl`: where the call goes instead of the model's own (a subscription login's endpoint). */
  | { ok: true; apiKey?: string; headers?: Record<string, string>; baseUrl?: string }
  | { ok: false; error: string };

/** Where the provider finds pi-ai models (the model registry). */
export interface PiModelSource {
  /** The models of one provider, in the registry's order. */
  modelsOf(provider: string): readonly PiModel[];
  find(provider: string, modelId: string): PiModel | undefined;
}

/** A credential about to travel unencrypted; see {@link PiAiProviderOptions.confirmInsecureSend}. */
export interface InsecureSend {
  provider: string;
  /** e.g. `http://192.168.1.20:11434` */
  origin: string;
}

export interface PiAiProviderOptions {
  /** The provider id (written to messages and `model_change` entries). */
  id: string;
  models: PiModelSource;
  /** The API key and headers for a call, resolved per call (keys can change at any time). */
  resolveAuth(model: PiModel): Promise<RequestAuth>;
  /**
   * Asked before a key or credential header is sent over plain `http://` to a host that is not this
   * machine. Absent, such calls are refused.
   */
  confirmInsecureSend?(send: InsecureSend): Promise<boolean>;
  /** Read per call, so changed settings apply to the next call. */
  limits?: () => EndpointLimits;
  /** Retries the vendor SDK makes on 429/5xx and dropped connections (SDK default when absent). */
  maxRetries?: number;
  /**
   * Pi's `thinkingBudgets` setting: the thinking tokens each level gets, for the APIs that take a
   * budget (Anthropic, Google, Bedrock). Read per call; undefined: pi-ai's defaults.
   */
  thinkingBudgets?: () => ThinkingBudgets | undefined;
  /** Test seam. */
  loader?: PiAiLoader;
}

/** Arbor's description of a pi-ai model. */
export function describePiModel(model: PiModel): ModelInfo {
  return {
    provider: model.provider,
    id: model.id,
    name: model.name || model.id,
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxTokens > 0 ? model.maxTokens : undefined,
    supportsThinking: model.reasoning,
    thinkingLevels: supportedThinkingLevels(model),
    supportsImages: model.input.includes("image"),
    pricing: { ...model.cost },
    api: model.api,
  };
}

/** A {@link ModelProvider} over pi-ai for one provider id. */
export class PiAiProvider implements ModelProvider {
  readonly id: string;
  private readonly loader: PiAiLoader;

  constructor(private readonly options: PiAiProviderOptions) {
    this.id = options.id;
    this.loader = options.loader ?? piAi;
  }

  /** The registry's models of this provider; needs no network. */
  async listModels(): Promise<ModelInfo[]> {
    return this.options.models.modelsOf(this.id).map(describePiModel);
  }

  /** Model info for one model of this provider, when the registry knows it. */
  describeModel(modelId: string): ModelInfo | undefined {
    const model = this.options.models.find(this.id, modelId);
    return model ? describePiModel(model) : undefined;
  }

  /** See {@link ModelProvider.stream}: never throws; every failure ends in an `error` event. */
  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    const providerId = request.model.provider || this.id;
    const model = this.options.models.find(providerId, request.model.id);
    const fail = (stopReason: "error" | "aborted", errorMessage: string): StreamEvent => ({
      type: "error",
      message: failedMessage(model?.api ?? request.model.api ?? "", providerId, request.model.id, stopReason, errorMessage),
    });
    if (!model) {
      yield fail("error", `The model ${providerId}/${request.model.id} is not known (is it still in models.json?).`);
      return;
    }
    if (signal?.aborted) {
      yield fail("aborted", ABORTED_ERROR_MESSAGE);
      return;
    }
    const prepared = await this.prepare(model);
    if (typeof prepared === "string") {
      yield fail("error", prepared);
      return;
    }
    if (signal?.aborted) {
      yield fail("aborted", ABORTED_ERROR_MESSAGE);
      return;
    }

    const limits = this.options.limits?.() ?? DEFAULT_ENDPOINT_LIMITS;
    // Our own controller: it carries the user's Stop, the overall timeout, and a consumer that stops iterating.
    const controller = new AbortController();
    guardRequestsOf(controller.signal, limits);
    // The SDK keeps only the message of a failed response; its Retry-After is caught on the way in.
    let retryAfter: string | undefined;
    observeResponsesOf(controller.signal, (response) => {
      if (response.status >= 400) retryAfter = response.headers.get("retry-after") ?? undefined;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, limits.timeoutMs);
    const forwardAbort = (): void => controller.abort();
    signal?.addEventListener("abort", forwardAbort, { once: true });
    try {
      const context: Context = {
        systemPrompt: request.systemPrompt,
        messages: request.messages as Message[],
        tools: request.tools as Tool[] | undefined,
      };
      const options: SimpleStreamOptions = {
        apiKey: prepared.auth.apiKey,
        headers: prepared.auth.headers,
        signal: controller.signal,
        reasoning: request.thinkingLevel && request.thinkingLevel !== "off" ? request.thinkingLevel : undefined,
        maxTokens: request.maxTokens,
        temperature: request.temperature,
        sessionId: request.sessionId,
        maxRetries: this.options.maxRetries,
        thinkingBudgets: this.options.thinkingBudgets?.(),
      };
      // Extensions' before_provider_request: they see (and may replace) the request body.
      if (request.onPayload) options.onPayload = (payload) => request.onPayload!(payload);
      let events: AsyncIterable<AssistantMessageEvent>;
      try {
        events = prepared.stream(prepared.auth.baseUrl ? { ...model, baseUrl: prepared.auth.baseUrl } : model, context, options);
      } catch (error) {
        // pi-ai throws before streaming when it finds no key ("No API key for provider: ...").
        yield fail("error", errorText(error));
        return;
      }
      for await (const event of events) {
        const mapped = mapEvent(event);
        if (!mapped) continue;
        if (mapped.type === "error" && timedOut && !signal?.aborted) {
          // pi-ai reports our timeout as an abort; the user did not stop it, so it is an error.
          mapped.message.stopReason = "error";
          mapped.message.errorMessage = timeoutMessage(limits.timeoutMs);
        }
        if (mapped.type === "error" && retryAfter !== undefined) mapped.retryAfter = retryAfter;
        yield mapped;
        if (mapped.type === "done" || mapped.type === "error") return;
      }
      yield fail(signal?.aborted ? "aborted" : "error", signal?.aborted ? ABORTED_ERROR_MESSAGE : "The model stream ended without a final message.");
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", forwardAbort);
      controller.abort();
    }
  }

  /** Credentials, the plain-http check and the API's module; a string says why the call cannot be made. */
  private async prepare(model: PiModel): Promise<string | { auth: Extract<RequestAuth, { ok: true }>; stream: Awaited<ReturnType<PiAiLoader["streamFunction"]>> }> {
    let auth: RequestAuth;
    try {
      auth = await this.options.resolveAuth(model);
    } catch (error) {
      auth = { ok: false, error: `Could not get the credentials for provider "${model.provider}": ${errorText(error)}` };
    }
    if (!auth.ok) return auth.error;
    const origin = insecureCredentialOrigin(auth.baseUrl ?? model.baseUrl);
    if (origin && (auth.apiKey || hasCredentialHeader(auth.headers) || hasCredentialHeader(model.headers))) {
      const allowed = (await this.options.confirmInsecureSend?.({ provider: model.provider, origin }).catch(() => false)) ?? false;
      if (!allowed) {
        return `Not sent: the API key of provider "${model.provider}" would travel unencrypted (plain http) to ${origin}. Use https, or allow it when Arbor asks.`;
      }
    }
    try {
      return { auth, stream: await this.loader.streamFunction(model.api) };
    } catch (error) {
      return errorText(error);
    }
  }
}

/** Arbor's event for one of pi-ai's; undefined for the start/end markers Arbor does not use. */
function mapEvent(event: AssistantMessageEvent): StreamEvent | undefined {
  switch (event.type) {
    case "start":
      return { type: "start" };
    case "text_delta":
      return { type: "text_delta", contentIndex: event.contentIndex, delta: event.delta };
    case "thinking_delta":
      return { type: "thinking_delta", contentIndex: event.contentIndex, delta: event.delta };
    case "toolcall_start": {
      const block = event.partial.content[event.contentIndex];
      const call = block?.type === "toolCall" ? block : undefined;
      return { type: "toolcall_start", contentIndex: event.contentIndex, id: call?.id ?? "", name: call?.name ?? "" };
    }
    case "toolcall_delta":
      return { type: "toolcall_delta", contentIndex: event.contentIndex, delta: event.delta };
    case "toolcall_end":
      return { type: "toolcall_end", contentIndex: event.contentIndex, toolCall: event.toolCall };
    case "done":
      return { type: "done", message: event.message as AssistantMessage };
    case "error":
      return { type: "error", message: event.error as AssistantMessage };
    default:
      return undefined;
  }
}

function failedMessage(api: string, provider: string, model: string, stopReason: Extract<StopReason, "error" | "aborted">, errorMessage: string): AssistantMessage {
  return { role: "assistant", content: [], api, provider, model, usage: createEmptyUsage(), stopReason, errorMessage, timestamp: Date.now() };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
