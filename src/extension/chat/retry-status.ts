/**
 * What the chat says while the agent retries a transient model error (its run line), and what it
 * reports when retrying ends without success.
 */
import { RETRY_CANCELLED_MESSAGE } from "../../core/agent/auto-retry";
import type { AgentSessionEvent } from "../../core/agent/events";
import { formatWait } from "../../core/agent/retry-policy";

/** The run line during the wait: "Retrying in 4 s (2 of 3)…" (Stop cancels the retry). */
export function retryRunLabel(event: Extract<AgentSessionEvent, { type: "auto_retry_start" }>): string {
  return `Retrying in ${formatWait(event.delayMs)} (${event.attempt} of ${event.maxAttempts})…`;
}

/**
 * The error to show when retrying ended without a reply; undefined after a success or a cancel (the
 * failed reply in the transcript already says what went wrong).
 */
export function retryFailureNotice(event: Extract<AgentSessionEvent, { type: "auto_retry_end" }>): string | undefined {
  if (event.success || event.finalError === RETRY_CANCELLED_MESSAGE) return undefined;
  if (event.attempt === 0) return event.finalError;
  return `Gave up after ${event.attempt} ${event.attempt === 1 ? "retry" : "retries"}: ${event.finalError ?? "the model call kept failing."}`;
}
