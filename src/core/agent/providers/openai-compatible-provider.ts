/**
 * A model provider for any OpenAI-compatible chat-completions endpoint: OpenAI, OpenRouter, Ollama,
 * LM Studio, vLLM, llama.cpp's server and the like.
 *
 * It speaks HTTP through the global `fetch` and reads the streamed reply with Arbor's own SSE parser,
 * so no SDK ends up in the bundle. The API key never lives here: the host hands it over per request
 * through `getApiKey` (in VS Code it comes from SecretStorage).
 */

import type { ThinkingLevel } from "../../session/types";
import { AssistantMessageBuilder } from "./assistant-message-builder";
import { asString, ChatCompletionChunkReader, isRecord } from "./openai-chunks";
import { convertToChatMessages, convertToChatTools } from "./openai-messages";
import type { ModelInfo, ModelProvider, ModelRequest, StreamEvent } from "./provider";
import { describeHttpError, NETWORK_ERROR_PREFIX, STREAM_CUT_PREFIX } from "./provider-errors";
import { readSseEvents } from "./sse";

/** The `api` written to assistant messages from this provider (the name Pi uses for the same protocol). */
export const OPENAI_COMPLETIONS_API = "openai-completions";
/** Context window assumed for a model nothing is known about. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
/** `errorMessage` of a reply stopped through its AbortSignal. */
export const ABORTED_ERROR_MESSAGE = "The request was aborted.";

/** What the host knows about a model, overriding what the server reports. */
export type ModelOverride = Partial<Omit<ModelInfo, "provider">> & { id: string };

export interface OpenAiCompatibleConfig {
  /** Provider id written to messages, e.g. "openai", "openrouter", "ollama". */
  id: string;
  /** The API root, e.g. "https://api.openai.com/v1" or "http://127.0.0.1:11434/v1". */
  baseUrl: string;
  /** Called before every request; no key (local servers) sends no Authorization header. */
  getApiKey?: () => string | undefined | Promise<string | undefined>;
  /** Extra headers on every request; they win over the defaults, Authorization included. */
  headers?: Record<string, string>;
  /** Context window of models nothing else is known about (default {@link DEFAULT_CONTEXT_WINDOW}). */
  defaultContextWindow?: number;
  /** Known models: added to what `/models` lists, and their fields win over the server's. */
  models?: ModelOverride[];
  /** The output-limit field; OpenAI wants `max_completion_tokens` (default), some older servers `max_tokens`. */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
  /** Whether to ask for the usage chunk (`stream_options.include_usage`); default true. */
  includeUsage?: boolean;
  /** What each thinking level is sent as in `reasoning_effort` (default: the level's own name). */
  reasoningEffort?: Partial<Record<ThinkingLevel, string>>;
  /** Test seam; defaults to the global `fetch`. */
  fetch?: typeof fetch;
}

/** An HTTP call other than a model stream failed (e.g. listing models). */
export class ProviderRequestError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "ProviderRequestError";
  }
}

/** A {@link ModelProvider} over an OpenAI-compatible chat-completions endpoint. */
export class OpenAiCompatibleProvider implements ModelProvider {
  readonly id: string;
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;

  /** Throws if the configuration cannot work (no id, or a base URL that is not http(s)). */
  constructor(private readonly config: OpenAiCompatibleConfig) {
    if (!config.id) throw new Error("An OpenAI-compatible provider needs an id.");
    let url: URL;
    try {
      url = new URL(config.baseUrl);
    } catch {
      throw new Error(`The base URL of provider "${config.id}" is not a URL: ${JSON.stringify(config.baseUrl)}`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new Error(`The base URL of provider "${config.id}" must start with http:// or https://.`);
    }
    this.id = config.id;
    this.baseUrl = config.baseUrl.replace(/\/+$/, "");
    this.fetchImpl = config.fetch ?? fetch;
  }

  /** Model info for an id, from the configured overrides, else defaults. Needs no network. */
  describeModel(modelId: string): ModelInfo {
    const base: ModelInfo = {
      provider: this.id,
      id: modelId,
      name: modelId,
      contextWindow: this.config.defaultContextWindow ?? DEFAULT_CONTEXT_WINDOW,
    };
    return this.applyOverride(base);
  }

  /** GETs `{baseUrl}/models`; configured models the server does not list are added at the end. */
  async listModels(signal?: AbortSignal): Promise<ModelInfo[]> {
    const url = `${this.baseUrl}/models`;
    const headers = await this.buildHeaders(false);
    let response: Response;
    try {
      response = await this.fetchImpl(url, { method: "GET", headers, signal });
    } catch (error) {
      throw new ProviderRequestError(`${NETWORK_ERROR_PREFIX}${describeCause(error)} (GET ${url})`);
    }
    const bodyText = await response.text();
    if (!response.ok) {
      throw new ProviderRequestError(describeHttpError(response.status, response.statusText, bodyText), response.status);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(bodyText);
    } catch {
      throw new ProviderRequestError(`The model list from ${url} is not JSON.`);
    }
    const entries = isRecord(parsed) && Array.isArray(parsed.data) ? parsed.data : Array.isArray(parsed) ? parsed : [];
    const models: ModelInfo[] = [];
    const seen = new Set<string>();
    for (const entry of entries) {
      const info = isRecord(entry) ? this.readListedModel(entry) : undefined;
      if (!info || seen.has(info.id)) continue;
      seen.add(info.id);
      models.push(info);
    }
    for (const override of this.config.models ?? []) {
      if (!seen.has(override.id)) models.push(this.describeModel(override.id));
    }
    return models;
  }

  /** Streams one chat completion. See {@link ModelProvider.stream} for the contract. */
  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    const builder = new AssistantMessageBuilder({
      api: OPENAI_COMPLETIONS_API,
      provider: request.model.provider || this.id,
      model: request.model.id,
    });
    let ended = false;
    try {
      for await (const event of this.streamReply(request, builder, signal)) {
        if (event.type === "done" || event.type === "error") ended = true;
        yield event;
      }
    } catch (error) {
      // The contract says a stream never throws: an unexpected failure still ends with an error event.
      if (!ended) yield builder.fail("error", `Unexpected failure while calling the model: ${describeCause(error)}`);
    }
  }

  private async *streamReply(
    request: ModelRequest,
    builder: AssistantMessageBuilder,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<StreamEvent> {
    if (signal?.aborted) {
      yield builder.fail("aborted", ABORTED_ERROR_MESSAGE);
      return;
    }
    let headers: Headers;
    try {
      headers = await this.buildHeaders(true);
    } catch (error) {
      yield builder.fail("error", describeCause(error));
      return;
    }
    const body = JSON.stringify(this.buildBody(request));
    // Our own controller also cancels the request when the consumer stops iterating early.
    const controller = new AbortController();
    const forwardAbort = (): void => controller.abort();
    signal?.addEventListener("abort", forwardAbort, { once: true });
    // Stop may have been pressed while the API key was being read, before the listener existed.
    if (signal?.aborted) controller.abort();
    try {
      let response: Response;
      try {
        response = await this.fetchImpl(`${this.baseUrl}/chat/completions`, {
          method: "POST",
          headers,
          body,
          signal: controller.signal,
        });
      } catch (error) {
        yield signal?.aborted
          ? builder.fail("aborted", ABORTED_ERROR_MESSAGE)
          : builder.fail("error", `${NETWORK_ERROR_PREFIX}${describeCause(error)}`);
        return;
      }
      if (!response.ok || !response.body) {
        const message = await readFailure(response);
        yield signal?.aborted ? builder.fail("aborted", ABORTED_ERROR_MESSAGE) : builder.fail("error", message);
        return;
      }
      yield { type: "start" };
      yield* this.readReply(response.body, builder, request.model, signal);
    } finally {
      signal?.removeEventListener("abort", forwardAbort);
      controller.abort();
    }
  }

  private async *readReply(
    body: AsyncIterable<Uint8Array>,
    builder: AssistantMessageBuilder,
    model: ModelInfo,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<StreamEvent> {
    const chunks = new ChatCompletionChunkReader(builder, model.pricing);
    let sawDone = false;
    let failure: string | undefined;
    try {
      for await (const event of readSseEvents(body)) {
        const data = event.data.trim();
        if (data === "[DONE]") {
          sawDone = true;
          break;
        }
        let chunk: unknown;
        try {
          chunk = JSON.parse(data);
        } catch {
          failure = `The provider sent a stream chunk that is not JSON: ${clipForMessage(data)}`;
          break;
        }
        // Some servers announce failures as an SSE `error` event rather than an `error` field.
        if (event.event === "error" && !(isRecord(chunk) && "error" in chunk)) chunk = { error: chunk };
        yield* chunks.apply(chunk);
        if (chunks.streamError !== undefined) {
          failure = chunks.streamError;
          break;
        }
      }
    } catch (error) {
      failure = signal?.aborted ? undefined : `${STREAM_CUT_PREFIX}${describeCause(error)}`;
    }
    if (signal?.aborted) {
      yield builder.fail("aborted", ABORTED_ERROR_MESSAGE);
      return;
    }
    if (failure !== undefined) {
      yield builder.fail("error", failure);
      return;
    }
    const finish = chunks.resolveFinish();
    if (finish === undefined) {
      if (sawDone) yield* builder.finish(builder.hasToolCalls() ? "toolUse" : "stop");
      else yield builder.fail("error", `${STREAM_CUT_PREFIX}the stream ended before the model finished its reply.`);
      return;
    }
    if ("error" in finish) yield builder.fail("error", finish.error);
    else yield* builder.finish(finish.stopReason);
  }

  private buildBody(request: ModelRequest): Record<string, unknown> {
    const model = request.model;
    const body: Record<string, unknown> = {
      model: model.id,
      messages: convertToChatMessages(request.systemPrompt, request.messages, { supportsImages: model.supportsImages }),
      stream: true,
    };
    if (this.config.includeUsage !== false) body.stream_options = { include_usage: true };
    if (request.tools && request.tools.length > 0) body.tools = convertToChatTools(request.tools);
    if (request.maxTokens !== undefined) body[this.config.maxTokensField ?? "max_completion_tokens"] = request.maxTokens;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    const level = request.thinkingLevel;
    if (model.supportsThinking && level && level !== "off") {
      body.reasoning_effort = this.config.reasoningEffort?.[level] ?? level;
    }
    return body;
  }

  private async buildHeaders(withBody: boolean): Promise<Headers> {
    const headers = new Headers();
    if (withBody) {
      headers.set("content-type", "application/json");
      headers.set("accept", "text/event-stream");
    }
    let key: string | undefined;
    try {
      key = await this.config.getApiKey?.();
    } catch (error) {
      throw new ProviderRequestError(`Could not get the API key for provider "${this.id}": ${describeCause(error)}`);
    }
    if (key) headers.set("authorization", `Bearer ${key}`);
    for (const [name, value] of Object.entries(this.config.headers ?? {})) headers.set(name, value);
    return headers;
  }

  private readListedModel(entry: Record<string, unknown>): ModelInfo | undefined {
    const id = asString(entry.id);
    if (!id) return undefined;
    const info = this.describeModel(id);
    const override = this.config.models?.find((model) => model.id === id);
    // Servers name the window differently (OpenRouter, vLLM, LM Studio...); a configured value still wins.
    const window = firstPositive(entry.context_length, entry.context_window, entry.max_model_len, entry.max_context_length);
    if (window !== undefined && override?.contextWindow === undefined) info.contextWindow = window;
    const name = asString(entry.name);
    if (name && override?.name === undefined) info.name = name;
    const topProvider = isRecord(entry.top_provider) ? entry.top_provider : {};
    const maxOutput = firstPositive(topProvider.max_completion_tokens, entry.max_output_tokens);
    if (maxOutput !== undefined && override?.maxOutputTokens === undefined) info.maxOutputTokens = maxOutput;
    const architecture = isRecord(entry.architecture) ? entry.architecture : {};
    if (Array.isArray(architecture.input_modalities) && override?.supportsImages === undefined) {
      info.supportsImages = architecture.input_modalities.includes("image");
    }
    return info;
  }

  private applyOverride(base: ModelInfo): ModelInfo {
    const override = this.config.models?.find((model) => model.id === base.id);
    if (!override) return base;
    const merged: ModelInfo = { ...base };
    for (const [key, value] of Object.entries(override)) {
      if (value !== undefined) (merged as unknown as Record<string, unknown>)[key] = value;
    }
    return merged;
  }
}

/** Reads a failed response's body into an error message (the server's own words where it gives some). */
async function readFailure(response: Response): Promise<string> {
  let bodyText = "";
  try {
    bodyText = await response.text();
  } catch (error) {
    bodyText = `(the error body could not be read: ${describeCause(error)})`;
  }
  if (response.ok) return `The provider answered ${response.status} without a response body.`;
  return describeHttpError(response.status, response.statusText, bodyText);
}

/** `fetch` hides the socket error in `cause`; both halves help the user. */
function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  const causeText = cause instanceof Error ? cause.message : typeof cause === "string" ? cause : "";
  return causeText && causeText !== error.message ? `${error.message} (${causeText})` : error.message;
}

function firstPositive(...values: unknown[]): number | undefined {
  for (const value of values) if (typeof value === "number" && Number.isFinite(value) && value > 0) return value;
  return undefined;
}

function clipForMessage(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
