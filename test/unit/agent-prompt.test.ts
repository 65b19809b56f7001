/** AgentSession.prompt against a real loopback server: what is sent, what is appended, abort and error paths. */
import * as assert from "node:assert/strict";
import { AgentSession } from "../../src/core/agent/agent-session";
import { AgentError } from "../../src/core/agent/errors";
import type { ModelProvider } from "../../src/core/agent/providers/provider";
import { SessionManager } from "../../src/core/session/session-manager";
import type { AssistantMessage } from "../../src/core/session/types";
import { reply } from "../support/scripted-openai-server";
import {
  assertPiReadsSame,
  expectedChatMessages,
  makeKit,
  makeSession,
  MODEL_ID,
  nextEvent,
  OTHER_MODEL_ID,
  readLines,
  recordEvents,
  sentMessages,
  textOf,
  type AgentKit,
} from "./agent-harness.test";

const SYSTEM = "Test system prompt: be brief.";

describe("AgentSession prompting", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  it("sends exactly convertToLlm(buildSessionContext()) with the system prompt, and appends the complete reply", async () => {
    const { sm, session } = await makeSession(kit, { systemPrompt: SYSTEM });
    kit.server.script(
      reply.text("Hello there, friend.", { chunks: 4, usage: { promptTokens: 21, completionTokens: 5 } }),
      reply.text("Second answer.", { usage: { promptTokens: 40, completionTokens: 3 } }),
    );
    const first = await session.prompt("Hi");
    const second = await session.prompt("And again?");
    assert.equal(first.kind, "reply");
    assert.equal(second.kind, "reply");

    const all = sm.getBranch();
    assert.deepEqual(
      all.map((e) => (e.type === "message" ? e.message.role : e.type)),
      ["model_change", "user", "assistant", "user", "assistant"],
      "a new session records its model once, before the first prompt (as Pi does)",
    );
    const path = all.slice(1);
    const reply1 = (path[1] as { message: AssistantMessage }).message;
    assert.equal(textOf(reply1), "Hello there, friend.");
    assert.equal(reply1.stopReason, "stop");
    assert.equal(reply1.usage.input, 21);
    assert.equal(reply1.usage.output, 5);
    assert.equal(reply1.model, MODEL_ID);

    // Each request carried the context of the user message that started it, and nothing else.
    assert.deepEqual(sentMessages(kit.server, 0), await expectedChatMessages(kit, SYSTEM, sm.buildSessionContext(path[0]!.id)));
    assert.deepEqual(sentMessages(kit.server, 1), await expectedChatMessages(kit, SYSTEM, sm.buildSessionContext(path[2]!.id)));
    const body = kit.server.requests[0]!.body as { tools?: { function: { name: string } }[] };
    assert.deepEqual(body.tools?.map((t) => t.function.name), ["read", "write", "edit", "bash", "grep", "find", "ls"]);

    await sm.flush();
    const lines = readLines(sm.getSessionFile()!);
    assert.deepEqual(lines.map((l) => l.type), ["session", "model_change", "message", "message", "message", "message"]);
    await assertPiReadsSame(sm.getSessionFile()!, sm.buildSessionContext());
    await session.close();
    await sm.close();
  });

  it("uses Arbor's own system prompt by default, naming the cwd and the tools", async () => {
    const { sm, session } = await makeSession(kit);
    kit.server.script(reply.text("ok"));
    await session.prompt("Hi");
    const system = sentMessages(kit.server, 0)[0] as { role: string; content: string };
    assert.equal(system.role, "system");
    assert.ok(system.content.includes(kit.cwd), "names the working directory");
    for (const tool of ["read", "write", "edit", "bash", "grep", "find", "ls"]) assert.ok(system.content.includes(`- ${tool}:`), `lists ${tool}`);
    await session.close();
    await sm.close();
  });

  it("streams message events in order and stops delivering them once the subscription is disposed", async () => {
    const { sm, session } = await makeSession(kit);
    const log = recordEvents(session);
    kit.server.script(reply.text("abc", { chunks: 3 }), reply.text("later"));
    await session.prompt("Hi");
    const types = log.types();
    assert.equal(types[0], "run_start");
    assert.equal(types[types.length - 1], "run_end");
    const assistantStart = types.indexOf("message_start", types.indexOf("message_end"));
    const updates = log.events.filter((e) => e.type === "message_update");
    assert.equal(updates.length, 3);
    assert.ok(assistantStart < types.indexOf("message_update"));
    const last = updates[updates.length - 1]!;
    assert.equal(last.type === "message_update" ? textOf(last.message) : "", "abc");
    assert.ok(types.includes("entries_appended") && types.includes("leaf_moved"));
    log.dispose();
    const count = log.events.length;
    await session.prompt("again");
    assert.equal(log.events.length, count, "a disposed subscription hears nothing");
    await session.close();
    await sm.close();
  });

  it("an abort keeps the partial text with stopReason aborted, cancels the request and leaves only complete lines", async () => {
    const { sm, session } = await makeSession(kit);
    kit.server.script(reply.text("first"), reply.hang("partial answer so far"));
    await session.prompt("one");
    const streaming = nextEvent(session, (e) => e.type === "message_update");
    const running = session.prompt("two");
    await streaming;
    assert.equal(session.isBusy(), true);
    session.abort();
    const result = await running;
    assert.equal(result.kind, "reply");
    const message = (result as { message: AssistantMessage }).message;
    assert.equal(message.stopReason, "aborted");
    assert.match(message.errorMessage ?? "", /aborted/i);
    assert.equal(textOf(message), "partial answer so far");
    assert.equal(session.isBusy(), false);
    await kit.server.requests[1]!.closed;
    assert.equal(kit.server.requests[1]!.clientAborted, true, "the HTTP request was really cancelled");

    await sm.flush();
    const lines = readLines(sm.getSessionFile()!);
    const lastLine = lines[lines.length - 1] as { message: AssistantMessage };
    assert.equal(lastLine.message.stopReason, "aborted");
    assert.equal(textOf(lastLine.message), "partial answer so far");
    await assertPiReadsSame(sm.getSessionFile()!, sm.buildSessionContext());
    await session.close();
    await sm.close();
  });

  it("an abort through the caller's signal works the same way", async () => {
    const { sm, session } = await makeSession(kit);
    kit.server.script(reply.hang("cut"));
    const controller = new AbortController();
    const streaming = nextEvent(session, (e) => e.type === "message_update");
    const running = session.prompt("go", { signal: controller.signal });
    await streaming;
    controller.abort();
    const result = await running;
    assert.equal(result.kind === "reply" && result.message.stopReason, "aborted");
    await session.close();
    await sm.close();
  });

  it("a backend that misses the abort still stops the run, keeping what streamed", async () => {
    const deaf: ModelProvider = {
      id: "deaf",
      listModels: async () => [],
      async *stream() {
        yield { type: "start" };
        yield { type: "text_delta", contentIndex: 0, delta: "half a tho" };
        await new Promise(() => undefined); // never resolves, whatever the signal says
      },
    };
    const sm = SessionManager.inMemory(kit.cwd);
    const session = new AgentSession({ sessionManager: sm, providers: [deaf], defaultModel: { provider: "deaf", id: "d", name: "d", contextWindow: 1000 } });
    const streaming = nextEvent(session, (e) => e.type === "message_update");
    const running = session.prompt("hi");
    await streaming;
    session.abort();
    const result = await running;
    assert.equal(result.kind === "reply" && result.message.stopReason, "aborted");
    assert.equal(result.kind === "reply" && textOf(result.message), "half a tho");
    await session.close();
  });

  it("a provider error ends with stopReason error and the provider's message, recorded once", async () => {
    const { sm, session } = await makeSession(kit);
    kit.server.script(reply.text("fine"), reply.error(500, { error: { message: "upstream exploded" } }));
    await session.prompt("one");
    const result = await session.prompt("two");
    const message = (result as { message: AssistantMessage }).message;
    assert.equal(message.stopReason, "error");
    assert.match(message.errorMessage ?? "", /upstream exploded/);
    await sm.flush();
    const roles = readLines(sm.getSessionFile()!).flatMap((l) => (l.type === "message" ? [(l.message as { role: string }).role] : []));
    assert.deepEqual(roles, ["user", "assistant", "user", "assistant"]);
    await session.close();
    await sm.close();
  });

  it("appends model and thinking-level entries only when the value changes, and restores them on open", async () => {
    const { sm, session } = await makeSession(kit);
    kit.server.script(reply.text("ok"));
    await session.prompt("start");
    const count = () => sm.getEntries().filter((e) => e.type === "model_change" || e.type === "thinking_level_change").length;
    assert.equal(count(), 1, "the new session's model was recorded once; the default level (off) needs no entry");

    assert.equal(session.setModel(kit.model), false);
    assert.equal(session.setThinkingLevel("off"), false);
    assert.equal(count(), 1);
    assert.equal(session.setThinkingLevel("high"), true);
    assert.equal(session.setThinkingLevel("high"), false);
    const other = kit.provider.describeModel(OTHER_MODEL_ID)!;
    assert.equal(session.setModel(other), true);
    assert.equal(session.setModel(other), false);
    const changes = sm.getEntries().filter((e) => e.type === "model_change" || e.type === "thinking_level_change");
    assert.deepEqual(
      changes.map((e) => (e.type === "model_change" ? `model:${e.modelId}` : `level:${(e as { thinkingLevel: string }).thinkingLevel}`)),
      [`model:${MODEL_ID}`, "level:high", `model:${OTHER_MODEL_ID}`],
    );
    kit.server.script(reply.text("from the other model"));
    await session.prompt("next");
    assert.equal((kit.server.requests[1]!.body as { model: string }).model, OTHER_MODEL_ID);

    await session.close();
    await sm.close();
    const reopened = await SessionManager.open(sm.getSessionFile()!);
    const restored = new AgentSession({ sessionManager: reopened, providers: [kit.provider] });
    assert.equal(restored.getModel()?.id, OTHER_MODEL_ID);
    assert.equal(restored.getThinkingLevel(), "high");
    await restored.close();
    await reopened.close();
  });

  it("a session held by another window is read-only: prompting refuses clearly and sends nothing", async () => {
    const { sm, session } = await makeSession(kit);
    kit.server.script(reply.text("ok"));
    await session.prompt("start");
    await sm.flush();
    const view = await SessionManager.open(sm.getSessionFile()!, { whenLocked: "read-only" });
    const readOnly = new AgentSession({ ...kit.config(), sessionManager: view });
    assert.equal(readOnly.isReadOnly(), true);
    await assert.rejects(readOnly.prompt("hello?"), (error: unknown) => {
      assert.ok(error instanceof AgentError);
      assert.equal(error.code, "read-only");
      assert.match(error.message, /read-only/);
      assert.match(error.message, /Fork/);
      return true;
    });
    assert.equal(kit.server.requests.length, 1, "no request was sent");
    await readOnly.close();
    await view.close();
    await session.close();
    await sm.close();
  });

  it("without a model, prompting says how to add one and nothing is appended", async () => {
    const sm = SessionManager.inMemory(kit.cwd);
    const session = new AgentSession({ sessionManager: sm });
    await assert.rejects(session.prompt("hi"), (error: unknown) => error instanceof AgentError && error.code === "no-model" && /provider/.test(error.message));
    assert.equal(sm.getEntryCount(), 0);
    await session.close();
  });

  it("refuses a second prompt while one runs, and every call after close", async () => {
    const { sm, session } = await makeSession(kit);
    kit.server.script(reply.hang("..."));
    const streaming = nextEvent(session, (e) => e.type === "message_update");
    const running = session.prompt("one");
    await streaming;
    await assert.rejects(session.prompt("two"), (error: unknown) => error instanceof AgentError && error.code === "busy");
    await session.close();
    const result = await running;
    assert.equal(result.kind === "reply" && result.message.stopReason, "aborted", "close stops the run and still records it");
    await assert.rejects(session.prompt("three"), (error: unknown) => error instanceof AgentError && error.code === "disposed");
    await sm.close();
  });
});
