/**
 * Automatic retries in a real agent run, over the scripted OpenAI-compatible server (HTTP on
 * 127.0.0.1, pi-ai with the SDK's own retries off): a 503 then a success gives one reply; the failed
 * reply stays in the file, as Pi records it, and out of the retried call's context; a 429's
 * Retry-After sets the wait; a 401 is not retried; Cancel ends the wait. Waits go through a fake clock.
 */
import * as assert from "node:assert/strict";
import type { AgentSessionEvent } from "../../src/core/agent/events";
import { DEFAULT_RETRY_SETTINGS, type RetryClock } from "../../src/core/agent/retry-policy";
import { makeKit, makeSession, readLines, sentMessages, type AgentKit } from "./agent-harness.test";
import { reply } from "../support/scripted-openai-server";

describe("automatic retries over the scripted server", function () {
  this.timeout(30_000);
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  function clock(hang = false): RetryClock & { slept: number[] } {
    const slept: number[] = [];
    return {
      slept,
      now: () => Date.now(),
      sleep: (ms, signal) => {
        slept.push(ms);
        if (!hang) return Promise.resolve();
        return new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
      },
    };
  }

  async function session(fake = clock()) {
    const made = await makeSession(kit, { retrySettings: () => DEFAULT_RETRY_SETTINGS, retryClock: fake });
    const events: AgentSessionEvent[] = [];
    made.session.onEvent((event) => events.push(event));
    return { ...made, events, fake };
  }

  /** role/stopReason of each message line of the file, with whether it hangs off the line before. */
  function messageLines(file: string): string[] {
    const lines = readLines(file).filter((line) => line.type === "message");
    return lines.map((line, i) => {
      const message = line.message as { role: string; stopReason?: string };
      const chained = i === 0 || line.parentId === lines[i - 1]!.id;
      return `${message.role}${message.stopReason ? ` ${message.stopReason}` : ""}${chained ? "" : " (not chained)"}`;
    });
  }

  it("a 503 then a success gives one reply; the failed reply is kept in the file but not sent again", async () => {
    const { sm, session: agent, events, fake } = await session();
    kit.server.script(reply.error(503, { error: { message: "Service Unavailable" } }), reply.text("Hello after the retry"));
    const result = await agent.prompt("hi");
    assert.equal(result.kind, "reply");
    assert.equal(result.kind === "reply" && result.message.stopReason, "stop");
    assert.deepEqual(fake.slept, [2000]);
    await sm.flush();
    assert.deepEqual(messageLines(sm.getSessionFile()!), ["user", "assistant error", "assistant stop"]);
    // The retried call carries the same context as the first: the error is not part of it.
    assert.deepEqual(sentMessages(kit.server, 1), sentMessages(kit.server, 0));
    const retries = events.filter((e) => e.type === "auto_retry_start" || e.type === "auto_retry_end");
    assert.deepEqual(
      retries.map((e) => ({ ...e, ...(e.type === "auto_retry_start" ? { errorMessage: "" } : {}) })),
      [
        { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 2000, errorMessage: "" },
        { type: "auto_retry_end", success: true, attempt: 1 },
      ],
    );
    // The chat shows one reply: the error's message_end is followed by the retried reply.
    assert.equal(events.filter((e) => e.type === "run_end").length, 1);
  });

  it("waits as the server's Retry-After says, then gives up after maxRetries with the last error", async () => {
    const { sm, session: agent, fake } = await session();
    const limited = () => reply.error(429, { error: { message: "Rate limit reached" } }, { "retry-after": "7" });
    kit.server.script(limited(), limited(), limited(), limited());
    const result = await agent.prompt("hi");
    assert.equal(result.kind === "reply" && result.message.stopReason, "error");
    assert.deepEqual(fake.slept, [7000, 7000, 7000]);
    assert.equal(kit.server.pendingReplies(), 0);
    await sm.flush();
    assert.deepEqual(messageLines(sm.getSessionFile()!), ["user", "assistant error", "assistant error", "assistant error", "assistant error"]);
  });

  it("a 401 is not retried", async () => {
    const { session: agent, fake, events } = await session();
    kit.server.script(reply.error(401, { error: { message: "Incorrect API key provided" } }), reply.text("never sent"));
    const result = await agent.prompt("hi");
    assert.equal(result.kind === "reply" && result.message.stopReason, "error");
    assert.deepEqual(fake.slept, []);
    assert.equal(kit.server.pendingReplies(), 1);
    assert.equal(events.some((e) => e.type === "auto_retry_start"), false);
  });

  it("Cancel during the wait ends the run with the error, nothing more sent", async () => {
    const { session: agent, events } = await session(clock(true));
    kit.server.script(reply.error(502, { error: { message: "Bad Gateway" } }), reply.text("never sent"));
    agent.onEvent((event) => {
      if (event.type === "auto_retry_start") agent.abortRetry();
    });
    const result = await agent.prompt("hi");
    assert.equal(result.kind === "reply" && result.message.stopReason, "error");
    assert.equal(kit.server.pendingReplies(), 1);
    assert.deepEqual(events.find((e) => e.type === "auto_retry_end"), { type: "auto_retry_end", success: false, attempt: 1, finalError: "Retry cancelled" });
  });
});
