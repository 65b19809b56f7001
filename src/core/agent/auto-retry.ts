/**
 * The agent's automatic retries within one run, as Pi makes them: the failed reply stays in the
 * session file (its history), the next call's context leaves it out (both backends drop replies that
 * ended in an error), and the call is sent again after the wait. The count restarts after any reply
 * that succeeds, so each model call of a long turn has its own retries.
 *
 * The schedule and what counts as transient are retry-policy.ts.
 */
import type { AssistantMessage } from "../session/types";
import type { AgentSessionEvent } from "./events";
import { decideRetry, isRetryableError, parseRetryAfter, systemClock, type RetryClock, type RetrySettings } from "./retry-policy";

/** `finalError` of an `auto_retry_end` the user cancelled. */
export const RETRY_CANCELLED_MESSAGE = "Retry cancelled";

export interface AutoRetryOptions {
  /** Read at each failure, so changed settings apply to the next one. */
  settings: () => RetrySettings;
  emit(event: AgentSessionEvent): void;
  clock?: RetryClock;
}

/** Retries of one run's model calls. */
export class AutoRetry {
  private attempt = 0;
  private cancel: AbortController | undefined;

  constructor(private readonly options: AutoRetryOptions) {}

  /** A wait before a retry is going on. */
  isWaiting(): boolean {
    return this.cancel !== undefined;
  }

  /** Stops the wait: the run ends with the failed reply. */
  cancelWait(): void {
    this.cancel?.abort();
  }

  /** A reply arrived: after a success, the retries that led to it are over. */
  noteReply(message: AssistantMessage): void {
    if (message.stopReason === "error" || this.attempt === 0) return;
    this.options.emit({ type: "auto_retry_end", success: true, attempt: this.attempt });
    this.attempt = 0;
  }

  /**
   * After a failed reply: waits and says true when the call should be sent again; false when the
   * error is not transient, retries are off or used up, the wait was cancelled or the run stopped.
   */
  async shouldRetry(failed: AssistantMessage, context: { contextWindow?: number; retryAfter?: string; signal: AbortSignal }): Promise<boolean> {
    if (!isRetryableError(failed, context.contextWindow)) return this.finish(false);
    const clock = this.options.clock ?? systemClock;
    const settings = this.options.settings();
    if (!settings.enabled) return this.finish(false);
    const decision = decideRetry(settings, this.attempt + 1, parseRetryAfter(context.retryAfter, clock.now()));
    if (decision.kind === "stop") return this.finish(false, failed.errorMessage);
    // Said even before any retry, so the chat tells why this one is not retried.
    if (decision.kind === "too-long") return this.finish(false, decision.errorMessage, true);
    this.attempt = decision.attempt;
    // Ready before the chat hears of the wait, so its Cancel works at once.
    const cancel = (this.cancel = new AbortController());
    this.options.emit({
      type: "auto_retry_start",
      attempt: decision.attempt,
      maxAttempts: decision.maxAttempts,
      delayMs: decision.delayMs,
      errorMessage: failed.errorMessage ?? "Unknown error",
    });
    const stop = (): void => cancel.abort();
    context.signal.addEventListener("abort", stop, { once: true });
    try {
      if (cancel.signal.aborted || context.signal.aborted) throw new Error("cancelled");
      await clock.sleep(decision.delayMs, cancel.signal);
    } catch {
      return this.finish(false, RETRY_CANCELLED_MESSAGE);
    } finally {
      context.signal.removeEventListener("abort", stop);
      this.cancel = undefined;
    }
    return true;
  }

  /** Ends a retry sequence (when one was going) and answers `result`. */
  private finish(result: false, finalError?: string, always = false): false {
    if (this.attempt > 0 || always) this.options.emit({ type: "auto_retry_end", success: false, attempt: this.attempt, finalError });
    this.attempt = 0;
    return result;
  }
}
