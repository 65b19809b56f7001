/**
 * Telling provider failures apart, from the final `AssistantMessage` alone (which is what the session
 * stores, so a reloaded session classifies the same way).
 *
 * The one that matters most is context overflow: the agent answers it by compacting and retrying, where
 * any other error is shown to the user.
 */

import type { AssistantMessage } from "../../session/types";

/**
 * - `context_overflow`: the request was larger than the model's context window.
 * - `auth`: the key is missing, wrong or lacks access (HTTP 401/403).
 * - `rate_limit`: too many requests or tokens per minute (HTTP 429); worth a retry later.
 * - `server`: the provider failed (HTTP 5xx).
 * - `network`: the connection failed or dropped.
 * - `aborted`: the user stopped the call.
 * - `other`: anything else.
 */
export type ProviderErrorKind = "context_overflow" | "auth" | "rate_limit" | "server" | "network" | "aborted" | "other";

/** Wordings providers use for an oversized prompt (OpenAI, OpenRouter, Anthropic, Google, xAI, Groq, Mistral, llama.cpp, LM Studio, Ollama, vLLM...). */
const OVERFLOW_WORDINGS: readonly RegExp[] = [
  /context[ _-]?(?:length|window)[ _-]?exceeded/i,
  /maximum context length/i,
  /(?:prompt|input) (?:is )?too long/i,
  /exceed(?:s|ed|ing)?\s+(?:the\s+)?(?:max(?:imum)?\s+|available\s+|model'?s?\s+)?context\b/i,
  /context (?:window|length|size) (?:exceeds|is exceeded)/i,
  /greater than the context length/i,
  /maximum prompt length/i,
  /input token count.{0,40}exceeds/i,
  /too large for model with \d+ maximum context/i,
  /reduce the length of the messages/i,
  /request_too_large/i,
  /exceed(?:s|ed)? (?:the )?(?:model )?token limit/i,
  /token limit (?:exceeded|reached)/i,
  /too many tokens/i,
  /input is too long for requested model/i,
  /exceeds the limit of \d+/i,
  /context window exceeds limit/i,
  /model_context_window_exceeded/i,
  /^4(?:00|13)\s*(?:status code)?\s*\(no body\)/i,
];

/** Wordings that look like overflow but are about rates (e.g. "too many tokens per minute"). */
const RATE_WORDINGS: readonly RegExp[] = [/rate.?limit/i, /too many requests/i, /throttl/i, /per minute/i, /quota/i];

/**
 * Whether the reply failed because the request did not fit in the model's context window.
 *
 * With `contextWindow`, a reply that succeeded although its prompt was larger than the window also
 * counts: some servers silently truncate instead of failing, and the session should still be compacted.
 */
export function isContextOverflow(message: AssistantMessage, contextWindow?: number): boolean {
  if (message.stopReason === "error") return classifyErrorText(message.errorMessage ?? "") === "context_overflow";
  if (contextWindow && contextWindow > 0 && message.stopReason !== "aborted") {
    const promptTokens = message.usage.input + message.usage.cacheRead + message.usage.cacheWrite;
    if (promptTokens > contextWindow) return true;
  }
  return false;
}

/** Sorts a failed reply into a {@link ProviderErrorKind}; `undefined` when the reply did not fail. */
export function classifyProviderError(message: AssistantMessage): ProviderErrorKind | undefined {
  if (message.stopReason === "aborted") return "aborted";
  if (message.stopReason !== "error") return undefined;
  return classifyErrorText(message.errorMessage ?? "");
}

function classifyErrorText(text: string): ProviderErrorKind {
  const status = readHttpStatus(text);
  const aboutRates = status === 429 || RATE_WORDINGS.some((pattern) => pattern.test(text));
  if (!aboutRates && OVERFLOW_WORDINGS.some((pattern) => pattern.test(text))) return "context_overflow";
  // A bare 413 (payload too large) has no body to tell us more: the request was too big.
  if (status === 413) return "context_overflow";
  if (aboutRates) return "rate_limit";
  if (status === 401 || status === 403) return "auth";
  if (status !== undefined && status >= 500) return "server";
  if (NETWORK_WORDINGS.some((pattern) => pattern.test(text))) return "network";
  return "other";
}

/** How the vendor SDKs and Node word a failed or dropped connection. */
const NETWORK_WORDINGS: readonly RegExp[] = [
  /^connection error/i,
  /^request timed out/i,
  /^terminated\b/i,
  /fetch failed/i,
  /\b(?:ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EPIPE|ETIMEDOUT)\b/,
  /socket hang up|other side closed/i,
];

/**
 * The HTTP status an error message starts with: the vendor SDKs write `400 <message>` (or
 * `400 status code (no body)`), and some servers' own texts say `HTTP 400`.
 */
function readHttpStatus(text: string): number | undefined {
  const match = /^(?:HTTP )?([1-5]\d{2})\b/.exec(text);
  return match ? Number(match[1]) : undefined;
}
