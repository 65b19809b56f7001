/**
 * The retry schedule (Pi's `retry.*`): which failures are transient, the doubling waits, a server's
 * Retry-After (seconds and HTTP-date) under `maxRetryDelayMs`, and the settings as read from Pi's
 * settings.json. The runner's waits go through a fake clock.
 */
import * as assert from "node:assert/strict";
import { AutoRetry, RETRY_CANCELLED_MESSAGE } from "../../src/core/agent/auto-retry";
import type { AgentSessionEvent } from "../../src/core/agent/events";
import { createEmptyUsage } from "../../src/core/agent/providers/provider";
import {
  DEFAULT_RETRY_SETTINGS,
  decideRetry,
  isRetryableError,
  parseRetryAfter,
  retrySettingsFrom,
  type RetryClock,
  type RetrySettings,
} from "../../src/core/agent/retry-policy";
import type { AssistantMessage } from "../../src/core/session/types";
import { retryFailureNotice, retryRunLabel } from "../../src/extension/chat/retry-status";

function failed(errorMessage: string, stopReason: "error" | "aborted" | "stop" = "error"): AssistantMessage {
  return { role: "assistant", content: [], api: "openai-completions", provider: "p", model: "m", usage: createEmptyUsage(), stopReason, errorMessage, timestamp: 0 };
}

/** A clock whose sleeps are recorded and end at once (or hang until aborted, with `hang`). */
function fakeClock(now = Date.UTC(2026, 0, 1), hang = false): RetryClock & { slept: number[] } {
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: (ms, signal) => {
      slept.push(ms);
      if (!hang) return Promise.resolve();
      return new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
    },
  };
}

describe("retry policy", () => {
  it("retries transient errors: 429, 5xx, overloaded, dropped connections, timeouts", () => {
    for (const text of [
      "429 Rate limit reached for requests",
      "503 Service Unavailable",
      "500 status code (no body)",
      "502 Bad Gateway",
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      "Connection error.",
      "Request timed out.",
      "terminated",
      "fetch failed",
      "socket hang up",
      "408 Request Timeout",
      "The model did not finish its reply within 20 min, so Arbor stopped waiting.",
    ]) {
      assert.equal(isRetryableError(failed(text)), true, text);
    }
  });

  it("does not retry what would fail again: 401, 403, 400, a context overflow, an abort, a success", () => {
    for (const text of [
      "401 Incorrect API key provided",
      "403 Forbidden",
      "400 Invalid value for 'messages'",
      "404 The model does not exist",
      "400 This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
      "No API key for provider: openai",
    ]) {
      assert.equal(isRetryableError(failed(text)), false, text);
    }
    assert.equal(isRetryableError(failed("503", "aborted")), false);
    assert.equal(isRetryableError(failed("503", "stop")), false);
  });

  it("doubles the wait from baseDelayMs and stops after maxRetries", () => {
    const settings: RetrySettings = { ...DEFAULT_RETRY_SETTINGS, baseDelayMs: 2000, maxRetries: 3 };
    assert.deepEqual(
      [1, 2, 3].map((attempt) => decideRetry(settings, attempt)),
      [
        { kind: "wait", delayMs: 2000, attempt: 1, maxAttempts: 3 },
        { kind: "wait", delayMs: 4000, attempt: 2, maxAttempts: 3 },
        { kind: "wait", delayMs: 8000, attempt: 3, maxAttempts: 3 },
      ],
    );
    assert.deepEqual(decideRetry(settings, 4), { kind: "stop" });
    assert.deepEqual(decideRetry({ ...settings, enabled: false }, 1), { kind: "stop" });
  });

  it("reads Retry-After as seconds or an HTTP-date", () => {
    const now = Date.UTC(2015, 9, 21, 7, 27, 0);
    assert.equal(parseRetryAfter("7", now), 7000);
    assert.equal(parseRetryAfter(" 1.5 ", now), 1500);
    assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now), 60_000);
    assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now), 0, "a date in the past means now");
    assert.equal(parseRetryAfter("soon", now), undefined);
    assert.equal(parseRetryAfter("", now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });

  it("waits as long as the server asks, up to maxRetryDelayMs; longer fails at once, saying so; 0 means no cap", () => {
    const settings: RetrySettings = { ...DEFAULT_RETRY_SETTINGS, maxRetryDelayMs: 60_000 };
    assert.deepEqual(decideRetry(settings, 2, 30_000), { kind: "wait", delayMs: 30_000, attempt: 2, maxAttempts: 3 });
    const refused = decideRetry(settings, 1, 5 * 3600_000);
    assert.equal(refused.kind, "too-long");
    assert.match(refused.kind === "too-long" ? refused.errorMessage : "", /retry in 5 h, longer than the 60 s Arbor waits/);
    assert.deepEqual(decideRetry({ ...settings, maxRetryDelayMs: 0 }, 1, 5 * 3600_000), { kind: "wait", delayMs: 5 * 3600_000, attempt: 1, maxAttempts: 3 });
  });

  it("reads retry.* from Pi's settings, keeping Pi's defaults for what is absent or wrong", () => {
    assert.deepEqual(retrySettingsFrom({}), DEFAULT_RETRY_SETTINGS);
    assert.deepEqual(retrySettingsFrom(undefined), DEFAULT_RETRY_SETTINGS);
    assert.deepEqual(retrySettingsFrom({ retry: { enabled: false, maxRetries: 5, baseDelayMs: 100, provider: { maxRetryDelayMs: 0 } } }), {
      enabled: false,
      maxRetries: 5,
      baseDelayMs: 100,
      maxRetryDelayMs: 0,
    });
    assert.deepEqual(retrySettingsFrom({ retry: { enabled: "yes", maxRetries: -1, baseDelayMs: "2s" } }), DEFAULT_RETRY_SETTINGS);
    // Pi's older name for the cap.
    assert.equal(retrySettingsFrom({ retry: { maxDelayMs: 9000 } }).maxRetryDelayMs, 9000);
  });
});

describe("the retry runner", () => {
  function runner(settings: Partial<RetrySettings> = {}, clock = fakeClock()) {
    const events: AgentSessionEvent[] = [];
    const retry = new AutoRetry({ settings: () => ({ ...DEFAULT_RETRY_SETTINGS, ...settings }), clock, emit: (event) => events.push(event) });
    return { retry, events, clock };
  }
  const signal = new AbortController().signal;

  it("waits 2 s, 4 s, 8 s, then gives up with the last error", async () => {
    const { retry, events, clock } = runner();
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await retry.shouldRetry(failed("503 Service Unavailable"), { signal }));
    assert.deepEqual(results, [true, true, true, false]);
    assert.deepEqual(clock.slept, [2000, 4000, 8000]);
    assert.deepEqual(
      events.map((e) => (e.type === "auto_retry_start" ? `start ${e.attempt}/${e.maxAttempts} ${e.delayMs}` : e.type === "auto_retry_end" ? `end ${e.success} ${e.attempt} ${e.finalError}` : e.type)),
      ["start 1/3 2000", "start 2/3 4000", "start 3/3 8000", "end false 3 503 Service Unavailable"],
    );
  });

  it("starts counting again after a reply that succeeds", async () => {
    const { retry, events, clock } = runner();
    assert.equal(await retry.shouldRetry(failed("429 Too Many Requests"), { signal }), true);
    retry.noteReply(failed("", "stop"));
    assert.equal(await retry.shouldRetry(failed("429 Too Many Requests"), { signal }), true);
    assert.deepEqual(clock.slept, [2000, 2000]);
    assert.deepEqual(events[1], { type: "auto_retry_end", success: true, attempt: 1 });
  });

  it("uses the server's Retry-After, and refuses one beyond the cap before any wait", async () => {
    const { retry, clock, events } = runner({ maxRetryDelayMs: 10_000 });
    assert.equal(await retry.shouldRetry(failed("429 Too Many Requests"), { signal, retryAfter: "3" }), true);
    assert.equal(await retry.shouldRetry(failed("429 Too Many Requests"), { signal, retryAfter: "3600" }), false);
    assert.deepEqual(clock.slept, [3000]);
    const end = events.at(-1);
    assert.equal(end?.type, "auto_retry_end");
    assert.match(end?.type === "auto_retry_end" ? end.finalError ?? "" : "", /retry in 60 min, longer than the 10 s/);
  });

  it("never waits for errors that cannot succeed, or when retries are off", async () => {
    const { retry, clock, events } = runner();
    assert.equal(await retry.shouldRetry(failed("401 Incorrect API key provided"), { signal }), false);
    assert.equal(await retry.shouldRetry(failed("400 maximum context length is 10 tokens"), { signal }), false);
    const off = runner({ enabled: false });
    assert.equal(await off.retry.shouldRetry(failed("503 Service Unavailable"), { signal }), false);
    assert.deepEqual([...clock.slept, ...off.clock.slept], []);
    assert.deepEqual([...events, ...off.events], []);
  });

  it("a cancelled wait ends the retries with 'Retry cancelled'", async () => {
    const { retry, events } = runner({}, fakeClock(0, true));
    const pending = retry.shouldRetry(failed("503 Service Unavailable"), { signal });
    assert.equal(retry.isWaiting(), true);
    retry.cancelWait();
    assert.equal(await pending, false);
    assert.equal(retry.isWaiting(), false);
    assert.deepEqual(events.at(-1), { type: "auto_retry_end", success: false, attempt: 1, finalError: RETRY_CANCELLED_MESSAGE });
  });

  it("stopping the run also ends the wait", async () => {
    const { retry } = runner({}, fakeClock(0, true));
    const stop = new AbortController();
    const pending = retry.shouldRetry(failed("503 Service Unavailable"), { signal: stop.signal });
    stop.abort();
    assert.equal(await pending, false);
  });
});

describe("the chat's retry line", () => {
  it("says 'Retrying in 4 s (2 of 3)…' and reports only failures that were not cancelled", () => {
    assert.equal(retryRunLabel({ type: "auto_retry_start", attempt: 2, maxAttempts: 3, delayMs: 4000, errorMessage: "503" }), "Retrying in 4 s (2 of 3)…");
    assert.equal(retryRunLabel({ type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 1500, errorMessage: "503" }), "Retrying in 2 s (1 of 3)…");
    assert.equal(retryFailureNotice({ type: "auto_retry_end", success: true, attempt: 1 }), undefined);
    assert.equal(retryFailureNotice({ type: "auto_retry_end", success: false, attempt: 1, finalError: RETRY_CANCELLED_MESSAGE }), undefined);
    assert.equal(retryFailureNotice({ type: "auto_retry_end", success: false, attempt: 3, finalError: "503 Service Unavailable" }), "Gave up after 3 retries: 503 Service Unavailable");
    assert.equal(retryFailureNotice({ type: "auto_retry_end", success: false, attempt: 0, finalError: "The server asked to retry in 5 h" }), "The server asked to retry in 5 h");
  });
});
