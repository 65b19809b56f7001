/**
 * When and how long to wait before sending a failed model call again (Pi's `retry.*` settings).
 *
 * Only transient failures are retried: rate limits, server errors, "overloaded", dropped connections
 * and timeouts. A rejected key, a malformed request or a context overflow (which compaction answers)
 * would fail the same way again. The waits double from `baseDelayMs`; a server's `Retry-After` is
 * honoured instead, unless it asks for longer than `maxRetryDelayMs`, in which case the call fails at
 * once with a message that says so rather than waiting silently for hours.
 *
 * Pure: the clock is a seam, so the schedule is tested without real time.
 */
import type { AssistantMessage } from "../session/types";
import { classifyProviderError, isContextOverflow } from "./providers/provider-errors";

/** Pi's `retry.enabled`, `retry.maxRetries`, `retry.baseDelayMs` and `retry.provider.maxRetryDelayMs`. */
export interface RetrySettings {
  enabled: boolean;
  /** Retries after the first failure (not counting it). */
  maxRetries: number;
  /** The first wait; each further one doubles it. */
  baseDelayMs: number;
  /** The longest server-requested wait honoured; 0 means no cap. */
  maxRetryDelayMs: number;
}

/** Pi's defaults. */
export const DEFAULT_RETRY_SETTINGS: Readonly<RetrySettings> = { enabled: true, maxRetries: 3, baseDelayMs: 2000, maxRetryDelayMs: 60_000 };

/** Time as the retry loop needs it. */
export interface RetryClock {
  now(): number;
  /** Resolves after `ms`, or rejects once `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** The real clock. */
export const systemClock: RetryClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(new Error("aborted"));
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(new Error("aborted"));
      };
      signal.addEventListener("abort", onAbort, { once: true });
    }),
};

/**
 * Wordings of transient failures beyond what the status code says: vendors' "overloaded" errors,
 * proxies' upstream failures, SDK and Node network errors, timeouts (Arbor's own included).
 */
const TRANSIENT_WORDINGS: readonly RegExp[] = [
  /overloaded/i,
  /rate.?limit|too many requests/i,
  /service.?unavailable|bad gateway|gateway time-?out|server.?error|internal.?error/i,
  /provider.?returned.?error/i,
  /network.?error|connection.?(?:error|refused|lost|reset)|fetch failed|socket hang up|other side closed/i,
  /upstream.?connect|reset before headers|websocket.?(?:closed|error)|http2 request did not get a response/i,
  /ended without|\bterminated\b/i,
  /timed? ?out|timeout|did not finish its reply within/i,
];

/** Whether sending the same request again may succeed. */
export function isRetryableError(message: AssistantMessage, contextWindow?: number): boolean {
  if (message.stopReason !== "error") return false;
  if (isContextOverflow(message, contextWindow)) return false;
  const kind = classifyProviderError(message);
  if (kind === "auth" || kind === "aborted") return false;
  if (kind === "rate_limit" || kind === "server" || kind === "network") return true;
  const text = message.errorMessage ?? "";
  // A 4xx other than 408 (timeout) and 429 is the request's own fault: it would fail again.
  const status = /^(?:HTTP )?(4\d{2})\b/.exec(text);
  if (status && status[1] !== "408") return false;
  if (status) return true;
  return TRANSIENT_WORDINGS.some((pattern) => pattern.test(text));
}

/**
 * A `Retry-After` header value as milliseconds from `now`: delta-seconds (`"120"`) or an HTTP-date
 * (`"Wed, 21 Oct 2015 07:28:00 GMT"`); undefined when absent or unreadable. A date in the past is 0.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // Only the date forms HTTP allows, not whatever Date.parse would guess at.
  if (!/[a-z]{3}.*\d{4}.*\d{2}:\d{2}/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** What to do after a transient failure. */
export type RetryDecision =
  | { kind: "wait"; delayMs: number; attempt: number; maxAttempts: number }
  /** Retries are off or used up. */
  | { kind: "stop" }
  /** The server asked for a wait longer than the cap: fail now, saying so. */
  | { kind: "too-long"; requestedMs: number; errorMessage: string };

/**
 * The decision for retry number `attempt` (1 for the first retry). `retryAfterMs` is what the server
 * asked for, when it did.
 */
export function decideRetry(settings: RetrySettings, attempt: number, retryAfterMs?: number): RetryDecision {
  if (!settings.enabled || attempt > settings.maxRetries) return { kind: "stop" };
  if (retryAfterMs !== undefined) {
    if (settings.maxRetryDelayMs > 0 && retryAfterMs > settings.maxRetryDelayMs) {
      return {
        kind: "too-long",
        requestedMs: retryAfterMs,
        errorMessage: `The server asked to retry in ${formatWait(retryAfterMs)}, longer than the ${formatWait(settings.maxRetryDelayMs)} Arbor waits (retry.provider.maxRetryDelayMs), so it did not retry.`,
      };
    }
    return { kind: "wait", delayMs: retryAfterMs, attempt, maxAttempts: settings.maxRetries };
  }
  return { kind: "wait", delayMs: settings.baseDelayMs * 2 ** (attempt - 1), attempt, maxAttempts: settings.maxRetries };
}

/** "4 s", "2 min", "5 h" for a wait. */
export function formatWait(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  return `${Math.ceil(minutes / 60)} h`;
}

/**
 * Reads `retry.*` from a parsed Pi settings object (global merged with project, as Pi merges them),
 * keeping the defaults for anything absent or of the wrong type.
 */
export function retrySettingsFrom(settings: unknown): RetrySettings {
  const retry = record(record(settings)?.retry);
  const provider = record(retry?.provider);
  const number = (value: unknown, fallback: number): number => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : fallback);
  return {
    enabled: typeof retry?.enabled === "boolean" ? retry.enabled : DEFAULT_RETRY_SETTINGS.enabled,
    maxRetries: Math.floor(number(retry?.maxRetries, DEFAULT_RETRY_SETTINGS.maxRetries)),
    baseDelayMs: number(retry?.baseDelayMs, DEFAULT_RETRY_SETTINGS.baseDelayMs),
    // Pi's older name for the cap, still read by Pi (it migrates it).
    maxRetryDelayMs: number(provider?.maxRetryDelayMs, number(retry?.maxDelayMs, DEFAULT_RETRY_SETTINGS.maxRetryDelayMs)),
  };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
