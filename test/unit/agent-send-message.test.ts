/**
 * sendMessage as Pi delivers it: display recorded as given, steering into a running reply (after
 * the turn's tool calls, before the next model call), follow-ups once the model would stop,
 * triggerTurn when idle, nextTurn with the next prompt, and nothing lost when a run is stopped.
 */
import * as assert from "node:assert/strict";
import type { AgentSession } from "../../src/core/agent/agent-session";
import { textOutcome, type AgentTool } from "../../src/core/agent/tools/tool";
import { reply } from "../support/scripted-openai-server";
import { makeKit, makeSession, nextEvent, readLines, sentMessages, type AgentKit } from "./agent-harness.test";

/** A tool that waits until released, so a test can send messages while a turn is running. */
function gateTool(): { tool: AgentTool; release(): void; started: Promise<void> } {
  let release!: () => void;
  let started!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const startedPromise = new Promise<void>((resolve) => (started = resolve));
  return {
    release,
    started: startedPromise,
    tool: {
      definition: { name: "gate", description: "waits", parameters: { type: "object", properties: {} } },
      execute: async () => {
        started();
        await gate;
        return textOutcome("gate opened");
      },
    },
  };
}

const userTexts = (messages: unknown[]): string[] =>
  (messages as { role: string; content: unknown }[])
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : (m.content as { text?: string }[]).map((b) => b.text ?? "").join("")));

describe("AgentSession.sendCustomMessage (Pi's delivery)", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  async function lines(session: AgentSession): Promise<Record<string, unknown>[]> {
    await session.sessionManager.flush();
    return readLines(session.sessionManager.getSessionFile()!);
  }

  it("records display as given (absent stays absent) when idle, without a turn", async () => {
    const { session } = await makeSession(kit);
    kit.server.script(reply.text("first"));
    await session.prompt("hello");
    await session.sendCustomMessage({ customType: "note", content: "no display given" });
    await session.sendCustomMessage({ customType: "note", content: "hidden", display: false });
    const custom = (await lines(session)).filter((l) => l.type === "custom_message");
    assert.equal("display" in custom[0]!, false);
    assert.equal(custom[1]!.display, false);
    assert.equal(kit.server.requests.length, 1, "no model call");
  });

  it("steers a message sent during a running reply into it: after the tool results, before the next model call", async () => {
    const gate = gateTool();
    const { session } = await makeSession(kit, { tools: [gate.tool] });
    kit.server.script(reply.toolCall({ name: "gate", arguments: {} }), reply.text("done, and I saw the steer"));
    const running = session.prompt("use the gate");
    await gate.started;
    const sent = session.sendCustomMessage({ customType: "steer", content: "STEERED while the tool ran", display: true });
    gate.release();
    const id = await sent;
    await running;
    const order = (await lines(session)).filter((l) => l.type === "message" || l.type === "custom_message").map((l) => (l.type === "custom_message" ? "custom" : (l.message as { role: string }).role));
    assert.deepEqual(order.slice(-4), ["assistant", "toolResult", "custom", "assistant"]);
    assert.ok(userTexts(sentMessages(kit.server, 1)).includes("STEERED while the tool ran"), "the second model call saw it");
    assert.equal(typeof id, "string");
  });

  it("a follow-up sent during the last turn makes the model answer it once it would stop", async () => {
    const { session } = await makeSession(kit);
    kit.server.script(reply.text("first answer", { chunks: 3, delayMs: 100 }), reply.text("answer to the follow-up"));
    const running = session.prompt("question");
    await nextEvent(session, (e) => e.type === "message_update");
    const followUp = session.sendCustomMessage({ customType: "later", content: "FOLLOW-UP" }, { deliverAs: "followUp" });
    const result = await running;
    await followUp;
    assert.equal(kit.server.requests.length, 2);
    assert.ok(userTexts(sentMessages(kit.server, 1)).includes("FOLLOW-UP"));
    assert.equal(result.kind === "reply" && result.message.content[0]!.type === "text" && result.message.content[0].text, "answer to the follow-up");
  });

  it("a follow-up sent while a tool runs is not steered in: it waits until the model would stop", async () => {
    const gate = gateTool();
    const { session } = await makeSession(kit, { tools: [gate.tool] });
    kit.server.script(reply.toolCall({ name: "gate", arguments: {} }), reply.text("done with the tool"), reply.text("answer to the follow-up"));
    const running = session.prompt("use the gate");
    await gate.started;
    const sent = session.sendCustomMessage({ customType: "later", content: "FOLLOW-UP while the tool ran" }, { deliverAs: "followUp" });
    gate.release();
    await running;
    await sent;
    const order = (await lines(session)).filter((l) => l.type === "message" || l.type === "custom_message").map((l) => (l.type === "custom_message" ? "custom" : (l.message as { role: string }).role));
    assert.deepEqual(order.slice(-5), ["assistant", "toolResult", "assistant", "custom", "assistant"]);
    assert.equal(userTexts(sentMessages(kit.server, 1)).includes("FOLLOW-UP while the tool ran"), false, "the call after the tool did not see it");
    assert.ok(userTexts(sentMessages(kit.server, 2)).includes("FOLLOW-UP while the tool ran"));
  });

  it("triggerTurn when idle has the model answer the message; nextTurn waits for the next prompt", async () => {
    const { session } = await makeSession(kit);
    kit.server.script(reply.text("answered the trigger"));
    await session.sendCustomMessage({ customType: "kick", content: "TRIGGER" }, { triggerTurn: true });
    assert.equal(kit.server.requests.length, 1);
    assert.ok(userTexts(sentMessages(kit.server, 0)).includes("TRIGGER"));
    const held = session.sendCustomMessage({ customType: "ctx", content: "NEXT TURN" }, { deliverAs: "nextTurn" });
    assert.equal(kit.server.requests.length, 1, "nextTurn starts nothing");
    kit.server.script(reply.text("answered with context"));
    await session.prompt("the next prompt");
    await held;
    assert.deepEqual(userTexts(sentMessages(kit.server, 1)).slice(-2), ["the next prompt", "NEXT TURN"]);
  });

  it("a message steered into a reply that is then stopped is still recorded", async () => {
    const { session } = await makeSession(kit);
    kit.server.script(reply.hang("partial"));
    const running = session.prompt("will be stopped");
    await nextEvent(session, (e) => e.type === "message_update");
    const sent = session.sendCustomMessage({ customType: "steer", content: "KEPT" });
    session.abort();
    await running;
    await sent;
    const custom = (await lines(session)).filter((l) => l.type === "custom_message");
    assert.deepEqual(custom.map((c) => c.content), ["KEPT"]);
  });
});
