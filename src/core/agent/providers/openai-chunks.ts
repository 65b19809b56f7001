/**
 * Applies the JSON chunks of a streamed chat completion to an {@link AssistantMessageBuilder}.
 *
 * Chunks come from the network, so every field is checked before use; a field of the wrong type is
 * ignored rather than trusted.
 */

import type { StopReason, Usage } from "../../session/types";
import type { AssistantMessageBuilder } from "./assistant-message-builder";
import { applyPricing, type ModelPricing, type StreamEvent } from "./provider";

/** The fields different servers use for reasoning text, in order of preference (some send two with the same text). */
const REASONING_FIELDS = ["reasoning_content", "reasoning", "reasoning_text"] as const;

type FinishMapping = { stopReason: Extract<StopReason, "stop" | "length" | "toolUse"> } | { error: string };

/** Tracks one streamed completion: what the chunks said about how it ended. */
export class ChatCompletionChunkReader {
  /** The raw `finish_reason`, once a chunk has carried one. */
  finishReason: string | undefined;
  /** Set when a chunk reported an error inside the stream. */
  streamError: string | undefined;

  constructor(
    private readonly builder: AssistantMessageBuilder,
    private readonly pricing: ModelPricing | undefined,
  ) {}

  /** Applies one parsed `data:` payload and returns the events it produces. */
  apply(chunk: unknown): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (!isRecord(chunk)) return events;
    if (chunk.error !== undefined && chunk.error !== null) {
      this.streamError = describeStreamError(chunk.error);
      return events;
    }
    this.builder.setResponseInfo(asString(chunk.id), asString(chunk.model));
    if (isRecord(chunk.usage)) this.builder.setUsage(parseUsage(chunk.usage, this.pricing));

    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isRecord(choice)) return events;
    // Some servers put usage on the choice instead of the chunk.
    if (!isRecord(chunk.usage) && isRecord(choice.usage)) this.builder.setUsage(parseUsage(choice.usage, this.pricing));

    const delta = choice.delta;
    if (isRecord(delta)) {
      for (const field of REASONING_FIELDS) {
        const reasoning = asString(delta[field]);
        if (!reasoning) continue;
        const event = this.builder.appendThinking(reasoning, field);
        if (event) events.push(event);
        break;
      }
      const content = asString(delta.content);
      if (content) {
        const event = this.builder.appendText(content);
        if (event) events.push(event);
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls) {
          if (!isRecord(call)) continue;
          const fn = isRecord(call.function) ? call.function : {};
          const key = typeof call.index === "number" ? call.index : asString(call.id);
          events.push(
            ...this.builder.appendToolCall(key, {
              id: asString(call.id),
              name: asString(fn.name),
              argumentsDelta: asString(fn.arguments),
            }),
          );
        }
      }
    }
    const finish = asString(choice.finish_reason);
    if (finish) this.finishReason = finish;
    return events;
  }

  /**
   * How the reply ended, judged from the finish reason. A model that called tools but said "stop" is
   * treated as `toolUse`: some local servers report it that way, and the calls must still be answered.
   */
  resolveFinish(): FinishMapping | undefined {
    if (this.finishReason === undefined) return undefined;
    const mapped = mapFinishReason(this.finishReason);
    if ("stopReason" in mapped && mapped.stopReason === "stop" && this.builder.hasToolCalls()) {
      return { stopReason: "toolUse" };
    }
    return mapped;
  }
}

function mapFinishReason(reason: string): FinishMapping {
  switch (reason) {
    case "stop":
    case "end":
    case "eos":
      return { stopReason: "stop" };
    case "length":
      return { stopReason: "length" };
    case "tool_calls":
    case "function_call":
      return { stopReason: "toolUse" };
    default:
      return { error: `The provider ended the reply with finish_reason "${reason}".` };
  }
}

/** Reads an OpenAI-style usage object. `input` excludes cached prompt tokens, which count as `cacheRead`. */
export function parseUsage(raw: Record<string, unknown>, pricing: ModelPricing | undefined): Usage {
  const promptTokens = asCount(raw.prompt_tokens);
  const details = isRecord(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const cached = asCount(details.cached_tokens) || asCount(raw.prompt_cache_hit_tokens);
  const cacheWrite = asCount(details.cache_write_tokens);
  // Some gateways count this request's cache writes inside cached_tokens as well.
  const cacheRead = cacheWrite > 0 ? Math.max(0, cached - cacheWrite) : cached;
  const input = Math.max(0, promptTokens - cacheRead - cacheWrite);
  const output = asCount(raw.completion_tokens);
  const usage: Usage = {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
  return applyPricing(usage, pricing);
}

function describeStreamError(error: unknown): string {
  if (typeof error === "string") return error;
  if (isRecord(error)) {
    const message = asString(error.message);
    if (message) return message;
  }
  return `The provider reported an error mid-stream: ${JSON.stringify(error)}`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function asCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}
