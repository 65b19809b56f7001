/**
 * What Arbor's pi-ai provider adds around pi-ai, against the scripted server on 127.0.0.1: the
 * stream contract (start first, deltas in order, exactly one terminal event, never a throw), Stop at
 * every stage (the partial reply kept, the HTTP request really cancelled), credentials that fail,
 * models and APIs it does not know.
 */
import * as assert from "node:assert/strict";
import type { AssistantMessage, LlmMessage } from "../../src/core/session/types";
import { collectStream, type ModelRequest, type StreamEvent } from "../../src/core/agent/providers/provider";
import { classifyProviderError } from "../../src/core/agent/providers/provider-errors";
import { StaticModelSource } from "../../src/core/models/custom-models";
import type { PiModel } from "../../src/core/models/pi-ai-modules";
import { describePiModel, PiAiProvider } from "../../src/core/models/pi-ai-provider";
import { localModel, localProvider } from "../support/pi-ai-models";
import { reply, startScriptedServer, type ScriptedServer } from "../support/scripted-openai-server";

const USER: LlmMessage = { role: "user", content: "Hi", timestamp: 1 };

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

function finalMessage(events: StreamEvent[]): AssistantMessage {
  const terminals = events.filter((event) => event.type === "done" || event.type === "error");
  assert.equal(terminals.length, 1, "exactly one terminal event");
  const last = events[events.length - 1];
  assert.ok(last && (last.type === "done" || last.type === "error"), `the last event is terminal (${last?.type})`);
  return last.message;
}

function textOf(message: AssistantMessage): string {
  return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

describe("pi-ai provider: streaming and Stop", function () {
  this.timeout(60_000);

  let server: ScriptedServer;
  let model: PiModel;
  let provider: PiAiProvider;
  let request: ModelRequest;

  beforeEach(async () => {
    server = await startScriptedServer();
    model = localModel(server.baseUrl);
    provider = localProvider([model]);
    request = { model: describePiModel(model), messages: [USER] };
  });

  afterEach(async () => {
    await server.close();
  });

  it("streams start first, then the deltas in order, then one done with the whole message", async () => {
    const text = "Hello, wörld! 👋 Streaming works across many small chunks.";
    server.script(reply.text(text, { chunks: 9 }));
    const events = await collect(provider.stream(request));
    assert.equal(events[0]?.type, "start");
    const deltas = events.flatMap((event) => (event.type === "text_delta" ? [event.delta] : []));
    assert.equal(deltas.length, 9);
    assert.equal(deltas.join(""), text);
    const message = finalMessage(events);
    assert.equal(events[events.length - 1]?.type, "done");
    assert.deepEqual(message.content, [{ type: "text", text }]);
    assert.equal(message.api, "openai-completions");
    assert.equal(message.provider, "local");
    assert.equal(message.model, "scripted-model");
  });

  it("names each tool call when it starts and hands over the parsed call when it ends", async () => {
    server.script(reply.toolCall([{ id: "call_a", name: "read", arguments: { path: "src/ä.ts" } }, { id: "call_b", name: "bash", arguments: { command: "ls" } }], { text: "Looking.", argumentChunks: 5 }));
    const events = await collect(provider.stream(request));
    const starts = events.flatMap((event) => (event.type === "toolcall_start" ? [[event.contentIndex, event.id, event.name]] : []));
    assert.deepEqual(starts, [[1, "call_a", "read"], [2, "call_b", "bash"]]);
    const argText = events.flatMap((event) => (event.type === "toolcall_delta" && event.contentIndex === 1 ? [event.delta] : [])).join("");
    assert.deepEqual(JSON.parse(argText), { path: "src/ä.ts" });
    const ends = events.flatMap((event) => (event.type === "toolcall_end" ? [event.toolCall] : []));
    assert.deepEqual(ends.map((call) => call.arguments), [{ path: "src/ä.ts" }, { command: "ls" }]);
    assert.equal(finalMessage(events).stopReason, "toolUse");
  });

  it("prices the usage with the model's costs", async () => {
    const priced = { ...model, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } };
    server.script(reply.text("ok", { usage: { promptTokens: 2_000_000, completionTokens: 1_000_000, cachedTokens: 1_000_000 } }));
    const message = await collectStream(localProvider([priced]).stream(request));
    assert.equal(message.usage.cost.input, 3);
    assert.equal(message.usage.cost.output, 15);
    assert.ok(Math.abs(message.usage.cost.total - 18.3) < 1e-9);
  });

  it("Stop mid-stream: stopReason aborted, the streamed text kept, and the server sees the connection closed", async () => {
    server.script(reply.hang("streamed before the stop", { chunks: 3 }));
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    let text = "";
    for await (const event of provider.stream(request, controller.signal)) {
      events.push(event);
      if (event.type === "text_delta") {
        text += event.delta;
        if (text === "streamed before the stop") controller.abort();
      }
    }
    const message = finalMessage(events);
    assert.equal(message.stopReason, "aborted");
    assert.match(message.errorMessage ?? "", /abort/i);
    assert.equal(textOf(message), "streamed before the stop");
    assert.equal(classifyProviderError(message), "aborted");
    await server.requests[0]!.closed;
    assert.equal(server.requests[0]!.clientAborted, true);
  });

  it("Stop after the response started but before any content", async () => {
    server.script(reply.steps({ type: "hang" }));
    const controller = new AbortController();
    const iterator = provider.stream(request, controller.signal)[Symbol.asyncIterator]();
    const first = await iterator.next();
    assert.equal(!first.done && first.value.type, "start");
    controller.abort();
    const rest: StreamEvent[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    assert.equal(finalMessage(rest).stopReason, "aborted");
    await server.requests[0]!.closed;
    assert.equal(server.requests[0]!.clientAborted, true);
  });

  it("an already stopped signal yields only an aborted message, and nothing is sent", async () => {
    const controller = new AbortController();
    controller.abort();
    const events = await collect(provider.stream(request, controller.signal));
    assert.equal(events.length, 1);
    assert.equal(finalMessage(events).stopReason, "aborted");
    assert.equal(server.requests.length, 0);
  });

  it("Stop while the credentials are being read sends nothing", async () => {
    const controller = new AbortController();
    const slowKey = localProvider([model], {
      resolveAuth: async () => {
        controller.abort();
        return { ok: true, apiKey: "key" };
      },
    });
    server.script(reply.hang("never"));
    const message = await collectStream(slowKey.stream(request, controller.signal));
    assert.equal(message.stopReason, "aborted");
    assert.equal(server.requests.length, 0);
  });

  it("a consumer that stops iterating early cancels the HTTP request", async () => {
    server.script(reply.hang("first", { chunks: 1 }));
    for await (const event of provider.stream(request)) {
      if (event.type === "text_delta") break;
    }
    await server.requests[0]!.closed;
    assert.equal(server.requests[0]!.clientAborted, true);
  });

  it("a refused connection is a network error", async () => {
    const port = new URL(server.baseUrl).port;
    await server.close();
    const offline = localModel(`http://127.0.0.1:${port}/v1`);
    const message = await collectStream(localProvider([offline]).stream(request));
    assert.equal(message.stopReason, "error");
    assert.equal(classifyProviderError(message), "network", message.errorMessage);
    server = await startScriptedServer();
  });

  it("credentials that cannot be had end the call with the reason, before anything is sent", async () => {
    const refused = localProvider([model], { resolveAuth: async () => ({ ok: false, error: "No API key for provider local: set one with Set API Key." }) });
    const throwing = localProvider([model], { resolveAuth: () => Promise.reject(new Error("SecretStorage is locked")) });
    const first = await collectStream(refused.stream(request));
    const second = await collectStream(throwing.stream(request));
    assert.equal(first.stopReason, "error");
    assert.equal(first.errorMessage, "No API key for provider local: set one with Set API Key.");
    assert.match(second.errorMessage ?? "", /credentials for provider "local": SecretStorage is locked/);
    assert.equal(server.requests.length, 0);
  });

  it("no key at all: pi-ai's own refusal, as an error event rather than a throw", async () => {
    const keyless = new PiAiProvider({ id: "local", models: new StaticModelSource([model]), resolveAuth: async () => ({ ok: true }) });
    const message = await collectStream(keyless.stream(request));
    assert.equal(message.stopReason, "error");
    assert.match(message.errorMessage ?? "", /API key/i);
    assert.equal(server.requests.length, 0);
  });

  it("a model the registry does not know, and an API Arbor has no module for, fail clearly", async () => {
    const unknown = await collectStream(provider.stream({ ...request, model: { ...request.model, id: "gone" } }));
    assert.match(unknown.errorMessage ?? "", /local\/gone is not known/);
    const bedrock = { ...model, id: "b", api: "bedrock-converse-stream" };
    const unsupported = await collectStream(localProvider([bedrock]).stream({ ...request, model: describePiModel(bedrock) }));
    assert.match(unsupported.errorMessage ?? "", /cannot talk to models of the "bedrock-converse-stream" API/);
    assert.equal(server.requests.length, 0);
  });

  it("lists and describes the registry's models of its provider only", async () => {
    const other = localModel(server.baseUrl, { provider: "elsewhere", id: "x" });
    const two = new PiAiProvider({ id: "local", models: new StaticModelSource([model, other]), resolveAuth: async () => ({ ok: true, apiKey: "k" }) });
    assert.deepEqual((await two.listModels()).map((m) => `${m.provider}/${m.id}`), ["local/scripted-model"]);
    assert.equal(two.describeModel("scripted-model")?.contextWindow, 128_000);
    assert.deepEqual(two.describeModel("scripted-model")?.thinkingLevels, ["off"]);
    assert.equal(two.describeModel("x"), undefined);
  });

  it("streams a slow reply chunk by chunk", async () => {
    server.script(reply.text("one two three", { chunks: 3, delayMs: 15 }));
    const seen: string[] = [];
    for await (const event of provider.stream(request)) if (event.type === "text_delta") seen.push(event.delta);
    assert.equal(seen.length, 3);
    assert.equal(seen.join(""), "one two three");
  });
});
