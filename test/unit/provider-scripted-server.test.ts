import * as assert from "node:assert/strict";
import { AssistantMessageBuilder } from "../../src/core/agent/providers/assistant-message-builder";
import { collectStream, type StreamEvent } from "../../src/core/agent/providers/provider";
import { describePiModel, type PiAiProvider } from "../../src/core/models/pi-ai-provider";
import type { ModelInfo } from "../../src/core/agent/providers/provider";
import { localModel, localProvider } from "../support/pi-ai-models";
import { reply, splitText, startScriptedServer } from "../support/scripted-openai-server";

function clientFor(baseUrl: string): { provider: PiAiProvider; model: ModelInfo } {
  const model = localModel(baseUrl, { id: "m" });
  return { provider: localProvider([model]), model: describePiModel(model) };
}

describe("scripted OpenAI server", function () {
  this.timeout(60_000);

  it("answers a request it has no reply for with a clear 500", async () => {
    const server = await startScriptedServer();
    try {
      const { provider, model } = clientFor(server.baseUrl);
      const message = await collectStream(provider.stream({ model, messages: [{ role: "user", content: "x", timestamp: 1 }] }));
      assert.equal(message.stopReason, "error");
      assert.match(message.errorMessage ?? "", /^500 The scripted server has no reply left/);
    } finally {
      await server.close();
    }
  });

  it("takes scripted replies in order, one per request", async () => {
    const server = await startScriptedServer();
    try {
      const { provider, model } = clientFor(server.baseUrl);
      server.script(reply.text("first"), reply.text("second"));
      const request = { model, messages: [{ role: "user" as const, content: "x", timestamp: 1 }] };
      const texts: string[] = [];
      for (let i = 0; i < 2; i++) {
        const message = await collectStream(provider.stream(request));
        texts.push(message.content.map((block) => (block.type === "text" ? block.text : "")).join(""));
      }
      assert.deepEqual(texts, ["first", "second"]);
      assert.equal(server.pendingReplies(), 0);
    } finally {
      await server.close();
    }
  });

  it("closes a hanging stream on close(), and the client sees the connection lost with its partial text", async () => {
    const server = await startScriptedServer();
    const { provider, model } = clientFor(server.baseUrl);
    server.script(reply.hang("waiting", { chunks: 1 }));
    const events: StreamEvent[] = [];
    let closing: Promise<void> | undefined;
    for await (const event of provider.stream({ model, messages: [{ role: "user", content: "x", timestamp: 1 }] })) {
      events.push(event);
      if (event.type === "text_delta") closing = server.close();
    }
    await closing;
    const last = events[events.length - 1];
    assert.equal(last.type, "error");
    assert.equal(last.type === "error" && last.message.stopReason, "error");
    assert.equal(last.type === "error" && last.message.content[0]?.type === "text" && last.message.content[0].text, "waiting");
    assert.equal(server.requests[0].clientAborted, false, "a close by the server is not a client abort");
  });

  it("splits text into the asked number of pieces without breaking characters", () => {
    assert.deepEqual(splitText("a👋b🌳c", 5), ["a", "👋", "b", "🌳", "c"]);
    assert.deepEqual(splitText("ab", 5), ["a", "b"]);
    assert.equal(splitText("one two three", 3).join(""), "one two three");
  });
});

describe("AssistantMessageBuilder", () => {
  const origin = { api: "x", provider: "p", model: "m" };

  it("continues the latest tool call when a piece carries neither index nor id", () => {
    const builder = new AssistantMessageBuilder(origin, 7);
    builder.appendToolCall(undefined, { id: "c1", name: "read", argumentsDelta: '{"pa' });
    builder.appendToolCall(undefined, { argumentsDelta: 'th":"a"}' });
    const events = builder.finish("toolUse");
    const done = events[events.length - 1];
    assert.equal(done.type, "done");
    assert.deepEqual(done.type === "done" && done.message.content, [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } }]);
    assert.equal(done.type === "done" && done.message.timestamp, 7);
  });

  it("refuses a second terminal event", () => {
    const builder = new AssistantMessageBuilder(origin);
    builder.fail("aborted", "stopped");
    assert.throws(() => builder.finish("stop"), /already complete/);
  });

  it("keeps partial tool-call arguments on failure", () => {
    const builder = new AssistantMessageBuilder(origin);
    builder.appendToolCall(0, { id: "c1", name: "bash", argumentsDelta: '{"command":"ls -' });
    const event = builder.fail("error", "cut");
    assert.equal(event.type, "error");
    assert.deepEqual(event.type === "error" && event.message.content, [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls -" } }]);
  });
});
