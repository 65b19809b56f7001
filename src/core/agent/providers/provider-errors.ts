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

/** Prefix of error messages made from an HTTP status: `HTTP 400: <the server's message>`. */
export const HTTP_ERROR_PREFIX = "HTTP ";
/** Prefix of error messages made from a failed or dropped connection. */
export const NETWORK_ERROR_PREFIX = "Connection failed: ";
/** Prefix of error messages for a stream that broke off. */
export const STREAM_CUT_PREFIX = "Connection lost mid-stream: ";

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
  if (text.startsWith(NETWORK_ERROR_PREFIX) || text.startsWith(STREAM_CUT_PREFIX)) return "network";
  return "other";
}

function readHttpStatus(text: string): number | undefined {
  const match = /^HTTP (\d{3})\b/.exec(text);
  return match ? Number(match[1]) : undefined;
}

/**
 * Makes the error message for a non-2xx response: `HTTP <status>: <message>`, where the message comes
 * from the usual JSON error shapes (`{error: {message}}`, `{error: "..."}`, `{message}`, `{detail: [{msg}]}`) or
 * the body text itself. Long bodies are cut so a whole HTML error page does not land in the session.
 */
export function describeHttpError(status: number, statusText: string, bodyText: string): string {
  const message = extractErrorMessage(bodyText);
  const head = `${HTTP_ERROR_PREFIX}${status}`;
  if (message) return `${head}: ${message}`;
  return `${head}${statusText ? ` ${statusText}` : ""} (empty response body)`;
}

const MAX_ERROR_TEXT = 2000;

function extractErrorMessage(bodyText: string): string {
  const trimmed = bodyText.trim();
  if (trimmed === "") return "";
  try {
    const parsed: unknown = JSON.parse(trimmed);
    const found = findMessage(parsed);
    if (found) {
      const code = findCode(parsed);
      // Keep the machine-readable code too: it is what tells overflow apart when the text is vague.
      return clip(code && !found.includes(code) ? `${found} (${code})` : found);
    }
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return clip(trimmed);
}

function findMessage(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() || undefined;
  if (Array.isArray(value)) return findMessage(value[0]);
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  return findMessage(record.error) ?? findMessage(record.message) ?? findMessage(record.detail) ?? findMessage(record.msg);
}

function findCode(value: unknown): string | undefined {
  if (Array.isArray(value)) return findCode(value[0]);
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.code === "string") return record.code;
  if (typeof record.type === "string" && record.type !== "error") return record.type;
  return findCode(record.error);
}

function clip(text: string): string {
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}…` : text;
}
