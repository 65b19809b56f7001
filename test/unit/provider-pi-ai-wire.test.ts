/**
 * The wire format through Arbor's pi-ai provider, against the scripted OpenAI-compatible server on
 * 127.0.0.1, compared with pi-ai called directly as Pi's agent calls it (`streamSimple` with the key,
 * no retries). For every scripted reply both must assemble the same message, and for the same
 * conversation both must send the same request. This also proves the scripted server speaks the
 * protocol the way the official OpenAI SDK expects.
 */
import * as assert from "node:assert/strict";
import type { AssistantMessage, LlmMessage } from "../../src/core/session/types";
import { collectStream, createEmptyUsage, type ModelRequest, type ToolDefinition } from "../../src/core/agent/providers/provider";
import { classifyProviderError, isContextOverflow } from "../../src/core/agent/providers/provider-errors";
import type { PiModel } from "../../src/core/models/pi-ai-modules";
import { customModel } from "../../src/core/models/custom-models";
import { describePiModel } from "../../src/core/models/pi-ai-provider";
import { localModel, localProvider, piAiPayload } from "../support/pi-ai-models";
import { reply, startScriptedServer, type RecordedRequest, type ScriptedReply, type ScriptedServer } from "../support/scripted-openai-server";

const READ_TOOL: ToolDefinition = {
  name: "read",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

function assistant(content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"]): AssistantMessage {
  return { role: "assistant", content, api: "openai-completions", provider: "local", model: "scripted-model", usage: createEmptyUsage(), stopReason, timestamp: 2 };
}

/** A conversation with an image, thinking, a tool call and its result, an aborted reply and a follow-up. */
const CONVERSATION: LlmMessage[] = [
  { role: "user", content: [{ type: "text", text: "Look:" }, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }], timestamp: 1 },
  assistant([{ type: "thinking", thinking: "hidden" }, { type: "text", text: "Reading." }, { type: "toolCall", id: "c1", name: "read", arguments: { path: "x" } }], "toolUse"),
  { role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "line 1" }, { type: "text", text: "line 2" }], isError: false, timestamp: 3 },
  assistant([{ type: "text", text: "Done." }], "stop"),
  { role: "user", content: "And now?", timestamp: 4 },
  assistant([{ type: "text", text: "I was stopp" }], "aborted"),
  { role: "user", content: "Continue", timestamp: 5 },
];

/** The parts of a message both sides must agree on (timestamps and response ids differ by nature). */
function comparable(message: AssistantMessage): Partial<AssistantMessage> {
  return { role: message.role, content: message.content, usage: message.usage, stopReason: message.stopReason, errorMessage: message.errorMessage, model: message.model, api: message.api, provider: message.provider };
}

function textOf(message: AssistantMessage): string {
  return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

describe("pi-ai provider: the wire against pi-ai called directly", function () {
  // The first test loads pi-ai and the OpenAI SDK; allow for a cold module cache on a busy machine.
  this.timeout(60_000);

  let server: ScriptedServer;
  let model: PiModel;

  beforeEach(async () => {
    server = await startScriptedServer({ apiKey: "sk-test-123" });
    model = localModel(server.baseUrl, { input: ["text", "image"] });
  });

  afterEach(async () => {
    await server.close();
  });

  /** Runs the same reply through Arbor's provider, then through pi-ai directly. */
  async function runBoth(script: () => ScriptedReply, request: Omit<ModelRequest, "model"> = { messages: [{ role: "user", content: "go", timestamp: 1 }] }) {
    server.script(script(), script());
    const provider = localProvider([model], { apiKey: "sk-test-123" });
    const ours = await collectStream(provider.stream({ model: describePiModel(model), ...request }));
    const { streamSimple } = await import("@mariozechner/pi-ai");
    const context = { systemPrompt: request.systemPrompt, messages: request.messages, tools: request.tools };
    const theirs = (await streamSimple(model, context as never, { apiKey: "sk-test-123", maxRetries: 0, reasoning: request.thinkingLevel === "off" ? undefined : request.thinkingLevel }).result()) as AssistantMessage;
    assert.equal(server.requests.length, 2, "both reached the server");
    const [ourRequest, theirRequest] = server.requests as [RecordedRequest, RecordedRequest];
    return { ours, theirs, ourRequest, theirRequest };
  }

  const cases: [string, () => ScriptedReply, (message: AssistantMessage) => void][] = [
    [
      "streamed text with usage and cached tokens",
      () => reply.text("Hello there, 世界 🌍!", { chunks: 7, usage: { promptTokens: 900, completionTokens: 33, cachedTokens: 512 } }),
      (m) => {
        assert.equal(textOf(m), "Hello there, 世界 🌍!");
        assert.deepEqual([m.usage.input, m.usage.output, m.usage.cacheRead], [388, 33, 512]);
        assert.equal(m.responseId, "chatcmpl-scripted-1");
      },
    ],
    ["reasoning then text", () => reply.reasoning("First, consider the tree.", "It has 3 branches.", { chunks: 3 }), (m) => assert.equal(m.content[0]?.type, "thinking")],
    ["reasoning in the `reasoning` field", () => reply.reasoning("thinking aloud", "ok", { field: "reasoning" }), (m) => assert.equal(m.content[0]?.type === "thinking" && m.content[0].thinking, "thinking aloud")],
    [
      "text then two tool calls split across chunks",
      () =>
        reply.toolCall(
          [
            { id: "call_x", name: "edit", arguments: { path: "ä.ts", edits: [{ old: "x", new: "y\n" }] } },
            { id: "call_y", name: "bash", arguments: { command: 'npm test -- --grep "tree"' } },
          ],
          { text: "Editing now.", argumentChunks: 4 },
        ),
      (m) => {
        assert.equal(m.stopReason, "toolUse");
        assert.deepEqual(m.content[1], { type: "toolCall", id: "call_x", name: "edit", arguments: { path: "ä.ts", edits: [{ old: "x", new: "y\n" }] } });
      },
    ],
    ["a reply cut by the length limit", () => reply.text("This answer was cut", { chunks: 2, finishReason: "length" }), (m) => assert.equal(m.stopReason, "length")],
    ["tool calls that end with finish_reason stop", () => reply.toolCall({ name: "ls", arguments: {} }, { finishReason: "stop" }), (m) => assert.equal(m.content.length, 1)],
    [
      "a content filter stop (an error that keeps the text)",
      () => reply.text("Some text", { finishReason: "content_filter" }),
      (m) => {
        assert.equal(m.stopReason, "error");
        assert.equal(textOf(m), "Some text");
      },
    ],
    [
      "an HTTP 503 with the server's message",
      () => reply.error(503, { error: { message: "The engine is currently overloaded." } }),
      (m) => {
        assert.equal(m.stopReason, "error");
        assert.match(m.errorMessage ?? "", /^503 .*overloaded/);
        assert.equal(classifyProviderError(m), "server");
      },
    ],
    ["a plain-text 404", () => reply.error(404, "model 'nope' not found"), (m) => assert.match(m.errorMessage ?? "", /^404 model 'nope' not found/)],
    [
      "the context-overflow error",
      () => reply.overflow(8192, 9001),
      (m) => {
        assert.equal(isContextOverflow(m), true);
        assert.equal(classifyProviderError(m), "context_overflow");
      },
    ],
    [
      "a connection dropped mid-stream (the text so far is kept)",
      () => reply.drop(2, "abcdefgh", { chunks: 4 }),
      (m) => {
        assert.equal(m.stopReason, "error");
        assert.equal(textOf(m), "abcd");
        assert.equal(classifyProviderError(m), "network");
      },
    ],
    ["a stream that has a finish reason but no [DONE]", () => reply.steps({ type: "chunk", delta: { content: "fine" } }, { type: "finish", finishReason: "stop" }), (m) => assert.equal(textOf(m), "fine")],
    [
      "an error object sent inside the stream",
      () => reply.steps({ type: "chunk", delta: { content: "partial" } }, { type: "json", value: { error: { message: "Upstream provider failed", code: 502 } } }, { type: "done" }),
      (m) => {
        assert.equal(m.stopReason, "error");
        assert.equal(textOf(m), "partial");
      },
    ],
    [
      "raw SSE framing: comments, CRLF and a character split across writes",
      () => {
        const frame = (content: string): string => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\r\n\r\n`;
        const emoji = new TextEncoder().encode(frame("🌳"));
        const splitAt = emoji.indexOf(0xf0) + 2;
        return reply.steps(
          { type: "raw", bytes: ": OPENROUTER PROCESSING\r\n\r\n" },
          { type: "raw", bytes: frame("Arbor ") },
          { type: "raw", bytes: emoji.subarray(0, splitAt) },
          { type: "raw", bytes: emoji.subarray(splitAt), delayMs: 10 },
          { type: "raw", bytes: 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\r\n\r\ndata: [DONE]\r\n\r\n' },
        );
      },
      (m) => assert.equal(textOf(m), "Arbor 🌳"),
    ],
  ];

  for (const [name, script, check] of cases) {
    it(`records the same message as Pi: ${name}`, async () => {
      const { ours, theirs } = await runBoth(script);
      check(ours);
      assert.deepEqual(comparable(ours), comparable(theirs));
    });
  }

  it("sends the same request as Pi for a whole conversation, with system prompt, tools and the key", async () => {
    const { ourRequest, theirRequest } = await runBoth(() => reply.text("ok"), { systemPrompt: "Be brief.", messages: CONVERSATION, tools: [READ_TOOL] });
    assert.equal(ourRequest.method, "POST");
    assert.equal(ourRequest.path, "/v1/chat/completions");
    assert.equal(ourRequest.headers.authorization, "Bearer sk-test-123");
    assert.deepEqual(ourRequest.body, theirRequest.body);
    const body = ourRequest.body as Record<string, unknown>;
    assert.equal(body.stream, true);
    assert.deepEqual((body.tools as { function: { name: string } }[]).map((tool) => tool.function.name), ["read"]);
    // The aborted reply is not replayed; the thinking block is not sent back.
    assert.ok(!JSON.stringify(body.messages).includes("I was stopp"));
    assert.ok(!JSON.stringify(body.messages).includes("hidden"));
  });

  it("always sends an output cap: the model's maxTokens up to 32000, in the field the compat settings name", async () => {
    const small = localModel(server.baseUrl, { maxTokens: 4096 });
    const big = localModel(server.baseUrl, { id: "big", maxTokens: 200_000, compat: { maxTokensField: "max_tokens" } });
    server.script(reply.text("a"), reply.text("b"));
    await collectStream(localProvider([small, big], { apiKey: "sk-test-123" }).stream({ model: describePiModel(small), messages: CONVERSATION }));
    await collectStream(localProvider([small, big], { apiKey: "sk-test-123" }).stream({ model: describePiModel(big), messages: CONVERSATION }));
    const [first, second] = server.requests.map((r) => r.body as Record<string, unknown>);
    assert.equal(first?.max_completion_tokens, 4096);
    assert.equal(second?.max_tokens, 32_000);
    assert.equal(second?.max_completion_tokens, undefined);
  });

  it("sends the thinking level as reasoning effort to a reasoning model only, as Pi does", async () => {
    const thinker = localModel(server.baseUrl, { id: "thinker", reasoning: true });
    server.script(reply.text("a"), reply.text("b"));
    const provider = localProvider([model, thinker], { apiKey: "sk-test-123" });
    await collectStream(provider.stream({ model: describePiModel(thinker), messages: CONVERSATION, thinkingLevel: "high" }));
    await collectStream(provider.stream({ model: describePiModel(model), messages: CONVERSATION, thinkingLevel: "high" }));
    const [reasoning, plain] = server.requests.map((r) => r.body as Record<string, unknown>);
    assert.equal(reasoning?.reasoning_effort, "high");
    assert.equal(plain?.reasoning_effort, undefined);
    assert.deepEqual(reasoning, await piAiPayload(thinker, { messages: CONVERSATION }, { reasoning: "high" }));
  });

  it("sends Pi's thinkingBudgets setting as the thinking budget of a budget-based model, as Pi does", async () => {
    // An Anthropic model of the kind that takes a token budget, served (and recorded) by the local server.
    const claude = customModel({ provider: "anthropic-local", id: "claude-sonnet-4-20250514", api: "anthropic-messages", baseUrl: server.baseUrl, reasoning: true, maxTokens: 64_000 });
    const budgets = { low: 3_000, high: 20_000 };
    const bodies: Record<string, unknown>[] = [];
    for (const thinkingBudgets of [() => budgets, () => undefined]) {
      const provider = localProvider([claude], { apiKey: "sk-test-123", thinkingBudgets });
      await collectStream(
        provider.stream({
          model: describePiModel(claude),
          messages: CONVERSATION,
          thinkingLevel: "low",
          onPayload: (payload) => {
            bodies.push(JSON.parse(JSON.stringify(payload)) as Record<string, unknown>);
            return undefined;
          },
        }),
      );
    }
    const [withBudgets, withDefaults] = bodies;
    assert.equal((withBudgets?.thinking as { budget_tokens?: number } | undefined)?.budget_tokens, 3_000);
    assert.notDeepEqual(withDefaults?.thinking, withBudgets?.thinking, "without the setting pi-ai's own budget applies");
    assert.deepEqual(withBudgets, await piAiPayload(claude, { messages: CONVERSATION }, { reasoning: "low", thinkingBudgets: budgets }));
    assert.deepEqual(withDefaults, await piAiPayload(claude, { messages: CONVERSATION }, { reasoning: "low" }));
  });

  it("both sides read the overflow error as a context overflow, with pi-ai's own check too", async () => {
    const { ours, theirs } = await runBoth(() => reply.overflow());
    const { isContextOverflow: piIsOverflow } = await import("@mariozechner/pi-ai");
    assert.equal(piIsOverflow(ours as never), true);
    assert.equal(isContextOverflow(theirs), true);
  });
});
