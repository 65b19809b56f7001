import * as assert from "node:assert/strict";
import type { AssistantMessage, LlmMessage } from "../../src/core/session/types";
import {
  ABORTED_ERROR_MESSAGE,
  OPENAI_COMPLETIONS_API,
  OpenAiCompatibleProvider,
} from "../../src/core/agent/providers/openai-compatible-provider";
import { collectStream, type ModelRequest, type StreamEvent } from "../../src/core/agent/providers/provider";
import { classifyProviderError, isContextOverflow } from "../../src/core/agent/providers/provider-errors";
import { reply, startScriptedServer, type ScriptedServer } from "../support/scripted-openai-server";

const USER: LlmMessage = { role: "user", content: "Hi", timestamp: 1 };

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

function finalMessage(events: StreamEvent[]): AssistantMessage {
  const last = events[events.length - 1];
  assert.ok(last.type === "done" || last.type === "error", `last event is ${last.type}`);
  const terminals = events.filter((event) => event.type === "done" || event.type === "error");
  assert.equal(terminals.length, 1, "exactly one terminal event");
  return last.message;
}

function textOf(message: AssistantMessage): string {
  return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

describe("OpenAiCompatibleProvider streaming", () => {
  let server: ScriptedServer;
  let provider: OpenAiCompatibleProvider;
  let request: ModelRequest;

  beforeEach(async () => {
    server = await startScriptedServer();
    provider = new OpenAiCompatibleProvider({ id: "local", baseUrl: server.baseUrl });
    request = { model: provider.describeModel("scripted-model"), messages: [USER] };
  });

  afterEach(async () => {
    await server.close();
  });

  it("assembles streamed text exactly, with start first and the deltas in order", async () => {
    const text = "Hello, wörld! 👋 Streaming works across many small chunks.";
    server.script(reply.text(text, { chunks: 9 }));
    const events = await collect(provider.stream(request));
    assert.equal(events[0].type, "start");
    const deltas = events.filter((event) => event.type === "text_delta").map((event) => (event.type === "text_delta" ? event.delta : ""));
    assert.equal(deltas.length, 9);
    assert.equal(deltas.join(""), text);
    const message = finalMessage(events);
    assert.equal(events[events.length - 1].type, "done");
    assert.deepEqual(message.content, [{ type: "text", text }]);
    assert.equal(message.stopReason, "stop");
    assert.equal(message.api, OPENAI_COMPLETIONS_API);
    assert.equal(message.provider, "local");
    assert.equal(message.model, "scripted-model");
    assert.equal(message.responseId, "chatcmpl-scripted-1");
    assert.equal(typeof message.timestamp, "number");
    assert.equal(message.errorMessage, undefined);
  });

  it("records usage from the usage chunk, counting cached prompt tokens as cacheRead", async () => {
    server.script(reply.text("ok", { usage: { promptTokens: 1000, completionTokens: 42, cachedTokens: 600 } }));
    const message = await collectStream(provider.stream(request));
    assert.deepEqual(message.usage, {
      input: 400,
      output: 42,
      cacheRead: 600,
      cacheWrite: 0,
      totalTokens: 1042,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    });
  });

  it("computes cost from the model's pricing", async () => {
    server.script(reply.text("ok", { usage: { promptTokens: 2_000_000, completionTokens: 1_000_000, cachedTokens: 1_000_000 } }));
    const model = { ...request.model, pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } };
    const message = await collectStream(provider.stream({ ...request, model }));
    assert.equal(message.usage.cost.input, 3);
    assert.equal(message.usage.cost.output, 15);
    assert.ok(Math.abs(message.usage.cost.cacheRead - 0.3) < 1e-9);
    assert.ok(Math.abs(message.usage.cost.total - 18.3) < 1e-9);
  });

  it("streams reasoning deltas into one thinking block before the text", async () => {
    server.script(reply.reasoning("Let me think step by step.", "The answer is 4.", { chunks: 4 }));
    const events = await collect(provider.stream(request));
    const thinking = events.filter((event) => event.type === "thinking_delta");
    assert.equal(thinking.length, 4);
    const message = finalMessage(events);
    assert.deepEqual(message.content, [
      { type: "thinking", thinking: "Let me think step by step.", thinkingSignature: "reasoning_content" },
      { type: "text", text: "The answer is 4." },
    ]);
  });

  it("reads reasoning sent in the `reasoning` field", async () => {
    server.script(reply.reasoning("hmm", "done", { field: "reasoning" }));
    const message = await collectStream(provider.stream(request));
    assert.equal(message.content[0].type === "thinking" && message.content[0].thinking, "hmm");
  });

  it("assembles tool calls whose arguments are split across chunks", async () => {
    server.script(
      reply.toolCall(
        [
          { id: "call_a", name: "read", arguments: { path: "src/ä.ts", lines: [1, 20] } },
          { id: "call_b", name: "bash", arguments: { command: "echo \"hi\" && ls" } },
        ],
        { text: "Looking.", argumentChunks: 5 },
      ),
    );
    const events = await collect(provider.stream(request));
    const message = finalMessage(events);
    assert.equal(message.stopReason, "toolUse");
    assert.deepEqual(message.content, [
      { type: "text", text: "Looking." },
      { type: "toolCall", id: "call_a", name: "read", arguments: { path: "src/ä.ts", lines: [1, 20] } },
      { type: "toolCall", id: "call_b", name: "bash", arguments: { command: "echo \"hi\" && ls" } },
    ]);
    const starts = events.filter((event) => event.type === "toolcall_start");
    assert.deepEqual(
      starts.map((event) => event.type === "toolcall_start" && [event.contentIndex, event.id, event.name]),
      [[1, "call_a", "read"], [2, "call_b", "bash"]],
    );
    const argText = events
      .filter((event) => event.type === "toolcall_delta" && event.contentIndex === 1)
      .map((event) => (event.type === "toolcall_delta" ? event.delta : ""))
      .join("");
    assert.deepEqual(JSON.parse(argText), { path: "src/ä.ts", lines: [1, 20] });
    const ends = events.filter((event) => event.type === "toolcall_end");
    assert.equal(ends.length, 2);
  });

  it("maps finish_reason length to stopReason length", async () => {
    server.script(reply.text("cut", { finishReason: "length" }));
    const message = await collectStream(provider.stream(request));
    assert.equal(message.stopReason, "length");
  });

  it("treats tool calls that end with finish_reason stop as toolUse", async () => {
    server.script(reply.toolCall({ name: "ls", arguments: {} }, { finishReason: "stop" }));
    const message = await collectStream(provider.stream(request));
    assert.equal(message.stopReason, "toolUse");
  });

  it("turns an unknown finish_reason such as content_filter into an error that keeps the text", async () => {
    server.script(reply.text("Some text", { finishReason: "content_filter" }));
    const events = await collect(provider.stream(request));
    const message = finalMessage(events);
    assert.equal(events[events.length - 1].type, "error");
    assert.equal(message.stopReason, "error");
    assert.match(message.errorMessage ?? "", /content_filter/);
    assert.equal(textOf(message), "Some text");
  });

  it("reports an HTTP error status with the server's message", async () => {
    server.script(reply.error(503, { error: { message: "The engine is currently overloaded." } }));
    const events = await collect(provider.stream(request));
    assert.equal(events.length, 1, "no start event for a refused request");
    const message = finalMessage(events);
    assert.equal(message.stopReason, "error");
    assert.equal(message.errorMessage, "HTTP 503: The engine is currently overloaded.");
    assert.deepEqual(message.content, []);
    assert.equal(classifyProviderError(message), "server");
    assert.equal(isContextOverflow(message), false);
  });

  it("reports a plain-text error body as it is", async () => {
    server.script(reply.error(404, "model 'nope' not found"));
    const message = await collectStream(provider.stream(request));
    assert.equal(message.errorMessage, "HTTP 404: model 'nope' not found");
  });

  it("classifies the context-overflow error", async () => {
    server.script(reply.overflow(8192, 9001));
    const message = await collectStream(provider.stream(request));
    assert.equal(message.stopReason, "error");
    assert.match(message.errorMessage ?? "", /^HTTP 400: This model's maximum context length is 8192 tokens/);
    assert.equal(isContextOverflow(message), true);
    assert.equal(classifyProviderError(message), "context_overflow");
  });

  it("keeps the partial text when the connection drops mid-stream", async () => {
    server.script(reply.drop(2, "abcdefgh", { chunks: 4 }));
    const events = await collect(provider.stream(request));
    const message = finalMessage(events);
    assert.equal(message.stopReason, "error");
    assert.equal(textOf(message), "abcd");
    assert.match(message.errorMessage ?? "", /^Connection lost mid-stream: /);
    assert.equal(classifyProviderError(message), "network");
  });

  it("reports a stream that ends without [DONE] or a finish reason, keeping the text", async () => {
    server.script(reply.steps({ type: "chunk", delta: { content: "half an ans" } }));
    const message = await collectStream(provider.stream(request));
    assert.equal(message.stopReason, "error");
    assert.equal(textOf(message), "half an ans");
    assert.match(message.errorMessage ?? "", /ended before the model finished/);
  });

  it("accepts a stream that has a finish reason but no [DONE]", async () => {
    server.script(reply.steps({ type: "chunk", delta: { content: "fine" } }, { type: "finish", finishReason: "stop" }));
    const message = await collectStream(provider.stream(request));
    assert.equal(message.stopReason, "stop");
    assert.equal(textOf(message), "fine");
  });

  it("reports an error object sent inside the stream", async () => {
    server.script(
      reply.steps(
        { type: "chunk", delta: { content: "partial" } },
        { type: "json", value: { error: { message: "Upstream provider failed", code: 502 } } },
        { type: "done" },
      ),
    );
    const message = await collectStream(provider.stream(request));
    assert.equal(message.stopReason, "error");
    assert.equal(message.errorMessage, "Upstream provider failed");
    assert.equal(textOf(message), "partial");
  });

  it("reports a chunk that is not JSON", async () => {
    server.script(reply.steps({ type: "chunk", delta: { content: "x" } }, { type: "raw", bytes: "data: {not json\n\n" }));
    const message = await collectStream(provider.stream(request));
    assert.equal(message.stopReason, "error");
    assert.match(message.errorMessage ?? "", /not JSON: \{not json/);
    assert.equal(textOf(message), "x");
  });

  it("parses raw SSE framing over HTTP: comments, CRLF and a character split across writes", async () => {
    const frame = (content: string): string =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\r\n\r\n`;
    const emoji = new TextEncoder().encode(frame("🌳"));
    const splitAt = emoji.indexOf(0xf0) + 2;
    server.script(
      reply.steps(
        { type: "raw", bytes: ": OPENROUTER PROCESSING\r\n\r\n" },
        { type: "raw", bytes: frame("Arbor ") },
        { type: "raw", bytes: emoji.subarray(0, splitAt) },
        { type: "raw", bytes: emoji.subarray(splitAt), delayMs: 10 },
        { type: "raw", bytes: 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\r\n\r\ndata: [DONE]\r\n\r\n' },
      ),
    );
    const message = await collectStream(provider.stream(request));
    assert.equal(message.stopReason, "stop");
    assert.equal(textOf(message), "Arbor 🌳");
  });

  it("aborts mid-stream: stopReason aborted, partial text kept, and the server sees the connection closed", async () => {
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
    assert.equal(message.errorMessage, ABORTED_ERROR_MESSAGE);
    assert.equal(textOf(message), "streamed before the stop");
    assert.equal(classifyProviderError(message), "aborted");
    await server.requests[0].closed;
    assert.equal(server.requests[0].clientAborted, true);
  });

  it("aborts after the response started but before any content arrived", async () => {
    server.script(reply.steps({ type: "hang", delayMs: 0 }));
    const controller = new AbortController();
    const stream = provider.stream(request, controller.signal);
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    // The hanging reply has sent its headers (hence start) and nothing more: stop now.
    assert.equal(!first.done && first.value.type, "start");
    controller.abort();
    const rest: StreamEvent[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    assert.equal(rest.length, 1);
    assert.equal(finalMessage(rest).stopReason, "aborted");
    await server.requests[0].closed;
    assert.equal(server.requests[0].clientAborted, true);
  });

  it("yields only an aborted message, without a request, when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const events = await collect(provider.stream(request, controller.signal));
    assert.equal(events.length, 1);
    assert.equal(finalMessage(events).stopReason, "aborted");
    assert.equal(server.requests.length, 0);
  });

  it("aborts when Stop comes while the API key is being read (no request left hanging)", async () => {
    const controller = new AbortController();
    const slowKey = new OpenAiCompatibleProvider({
      id: "local",
      baseUrl: server.baseUrl,
      getApiKey: async () => {
        controller.abort();
        return "key";
      },
    });
    server.script(reply.hang("never", { chunks: 1 }));
    const message = await collectStream(slowKey.stream(request, controller.signal));
    assert.equal(message.stopReason, "aborted");
    for (const r of server.requests) {
      await r.closed;
      assert.equal(r.clientAborted, true);
    }
  });

  it("cancels the HTTP request when the consumer stops iterating early", async () => {
    server.script(reply.hang("first", { chunks: 1 }));
    for await (const event of provider.stream(request)) {
      if (event.type === "text_delta") break;
    }
    await server.requests[0].closed;
    assert.equal(server.requests[0].clientAborted, true);
  });

  it("reports a refused connection as a network error", async () => {
    const port = new URL(server.baseUrl).port;
    await server.close();
    const offline = new OpenAiCompatibleProvider({ id: "local", baseUrl: `http://127.0.0.1:${port}/v1` });
    const message = await collectStream(offline.stream(request));
    assert.equal(message.stopReason, "error");
    assert.match(message.errorMessage ?? "", /^Connection failed: fetch failed/);
    assert.equal(classifyProviderError(message), "network");
    server = await startScriptedServer();
  });

  it("reports an API key callback that throws, without sending anything", async () => {
    const failing = new OpenAiCompatibleProvider({
      id: "local",
      baseUrl: server.baseUrl,
      getApiKey: () => {
        throw new Error("SecretStorage is locked");
      },
    });
    const message = await collectStream(failing.stream(request));
    assert.equal(message.stopReason, "error");
    assert.match(message.errorMessage ?? "", /API key.*SecretStorage is locked/);
    assert.equal(server.requests.length, 0);
  });

  it("streams a slow reply chunk by chunk", async () => {
    server.script(reply.text("one two three", { chunks: 3, delayMs: 15 }));
    const seen: string[] = [];
    for await (const event of provider.stream(request)) {
      if (event.type === "text_delta") seen.push(event.delta);
    }
    assert.equal(seen.length, 3);
    assert.equal(seen.join(""), "one two three");
  });
});
