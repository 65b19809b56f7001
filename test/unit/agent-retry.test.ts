/**
 * Automatic retries in a real agent run, over the scripted OpenAI-compatible server (HTTP on
 * 127.0.0.1, pi-ai with the SDK's own retries off): a 503 then a success gives one reply; the failed
 * reply stays in the file, as Pi records it, and out of the retried call's context; a 429's
 * Retry-After sets the wait; a 401 is not retried; Cancel ends the wait. Waits go through a fake clock.
 */
import * as assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentSessionEvent } from "../../src/core/agent/events";
import { DEFAULT_RETRY_SETTINGS, type RetryClock } from "../../src/core/agent/retry-policy";
import { makeKit, makeSession, readLines, sentMessages, type AgentKit } from "./agent-harness.test";
import { reply } from "../support/scripted-openai-server";

describe("automatic retries over the scripted server", function () {
  this.timeout(30_000);
  let kit: AgentKit;
  const opened: { close(): Promise<void> }[] = [];
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => {
    for (const item of opened.splice(0)) await item.close();
    await kit.cleanup();
  });

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
    opened.push(made.session, made.sm);
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

describe("automatic retries, recorded as the reference records them", function () {
  this.timeout(60_000);
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  interface RefModule {
    SessionManager: { create(cwd: string, dir: string): { getSessionFile(): string | undefined } };
    SettingsManager: { inMemory(settings: Record<string, unknown>): unknown };
    AuthStorage: { inMemory(): unknown };
    ModelRegistry: { create(auth: unknown, path: string): unknown };
    createAgentSession(options: Record<string, unknown>): Promise<{ session: { prompt(text: string): Promise<void>; dispose?(): void } }>;
  }

  /** Each message line as role/stopReason, and whether it hangs off the message line before it. */
  function shape(file: string): string[] {
    const lines = readLines(file).filter((line) => line.type === "message");
    return lines.map((line, i) => {
      const message = line.message as { role: string; stopReason?: string };
      return `${message.role}${message.stopReason ? ` ${message.stopReason}` : ""}${i === 0 || line.parentId === lines[i - 1]!.id ? "" : " (not chained)"}`;
    });
  }

  it("a 503 then a success: the same messages in the same chain as Pi's file, and the same retried request", async () => {
    const ref = (await import("@mariozechner/pi-coding-agent")) as unknown as RefModule;
    const agentDir = join(kit.root, "pi-agent");
    mkdirSync(agentDir);
    const modelsFile = join(agentDir, "models.json");
    writeFileSync(
      modelsFile,
      JSON.stringify({ providers: { local: { baseUrl: kit.server.baseUrl, api: "openai-completions", apiKey: "test-key", models: [{ id: "scripted-model" }] } } }),
    );
    const failure = () => reply.error(503, { error: { message: "Service Unavailable" } });
    kit.server.script(failure(), reply.text("Hello after the retry"));
    const auth = ref.AuthStorage.inMemory();
    const refSessions = join(kit.root, "ref-sessions");
    const refManager = ref.SessionManager.create(kit.cwd, refSessions);
    const { session: theirs } = await ref.createAgentSession({
      cwd: kit.cwd,
      agentDir,
      sessionManager: refManager,
      authStorage: auth,
      modelRegistry: ref.ModelRegistry.create(auth, modelsFile),
      // The SDK's own retries off, so that the agent-level retry is what answers the 503.
      settingsManager: ref.SettingsManager.inMemory({ defaultProvider: "local", defaultModel: "scripted-model", retry: { enabled: true, maxRetries: 3, baseDelayMs: 1, provider: { maxRetries: 0 } } }),
    });
    await theirs.prompt("hi");
    theirs.dispose?.();
    const theirRequests = kit.server.requests.filter((r) => r.path.endsWith("/chat/completions")).length;
    assert.equal(theirRequests, 2, "the reference retried once");

    kit.server.script(failure(), reply.text("Hello after the retry"));
    const { sm, session: ours } = await makeSession(kit, { retrySettings: () => ({ ...DEFAULT_RETRY_SETTINGS, baseDelayMs: 1 }) });
    await ours.prompt("hi");
    await ours.close();
    await sm.close();

    assert.deepEqual(shape(sm.getSessionFile()!), shape(refManager.getSessionFile()!));
    assert.deepEqual(shape(sm.getSessionFile()!), ["user", "assistant error", "assistant stop"]);
    // Both retried with the context of the first call: the failed reply is not sent.
    const last = (index: number) => (sentMessages(kit.server, index) as { role: string }[]).map((m) => m.role);
    assert.deepEqual(last(1), last(0));
    assert.deepEqual(last(3), last(2));
    assert.deepEqual(last(3), last(1));
  });
});
