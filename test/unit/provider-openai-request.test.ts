import * as assert from "node:assert/strict";
import type { AssistantMessage, LlmMessage } from "../../src/core/session/types";
import {
  DEFAULT_CONTEXT_WINDOW,
  OpenAiCompatibleProvider,
  ProviderRequestError,
} from "../../src/core/agent/providers/openai-compatible-provider";
import { collectStream, createEmptyUsage, type ToolDefinition } from "../../src/core/agent/providers/provider";
import { reply, startScriptedServer, type ScriptedServer } from "../support/scripted-openai-server";

function assistant(content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"] = "stop"): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "local",
    model: "m",
    usage: createEmptyUsage(),
    stopReason,
    timestamp: 2,
  };
}

const READ_TOOL: ToolDefinition = {
  name: "read",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

describe("OpenAiCompatibleProvider requests", () => {
  let server: ScriptedServer;

  beforeEach(async () => {
    server = await startScriptedServer({ apiKey: "sk-test-123" });
  });

  afterEach(async () => {
    await server.close();
  });

  it("POSTs a streaming chat completion with the converted conversation, system prompt, tools and auth", async () => {
    const provider = new OpenAiCompatibleProvider({
      id: "openrouter",
      baseUrl: `${server.baseUrl}/`,
      getApiKey: async () => "sk-test-123",
      headers: { "HTTP-Referer": "https://arbor.invalid", "X-Title": "Arbor" },
    });
    const messages: LlmMessage[] = [
      { role: "user", content: [{ type: "text", text: "What is in this file?" }, { type: "image", data: "aGk=", mimeType: "image/png" }], timestamp: 1 },
      assistant(
        [
          { type: "thinking", thinking: "private reasoning" },
          { type: "text", text: "Let me read it." },
          { type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.txt" } },
        ],
        "toolUse",
      ),
      { role: "toolResult", toolCallId: "call_1", toolName: "read", content: [{ type: "text", text: "hello" }], isError: false, timestamp: 3 },
      assistant([{ type: "text", text: "It says hello." }]),
      { role: "user", content: "Thanks", timestamp: 4 },
    ];
    server.script(reply.text("You're welcome."));
    const model = { ...provider.describeModel("anthropic/claude"), supportsThinking: true };
    const message = await collectStream(
      provider.stream({
        model,
        systemPrompt: "You are a careful coding agent.",
        messages,
        tools: [READ_TOOL],
        thinkingLevel: "high",
        maxTokens: 2048,
        temperature: 0.2,
      }),
    );
    assert.equal(message.stopReason, "stop", message.errorMessage);

    assert.equal(server.requests.length, 1);
    const sent = server.requests[0];
    assert.equal(sent.method, "POST");
    assert.equal(sent.path, "/v1/chat/completions");
    assert.equal(sent.headers.authorization, "Bearer sk-test-123");
    assert.equal(sent.headers["content-type"], "application/json");
    assert.equal(sent.headers["http-referer"], "https://arbor.invalid");
    assert.equal(sent.headers["x-title"], "Arbor");
    assert.deepEqual(sent.body, {
      model: "anthropic/claude",
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 2048,
      temperature: 0.2,
      reasoning_effort: "high",
      tools: [{ type: "function", function: { name: "read", description: "Read a file", parameters: READ_TOOL.parameters } }],
      messages: [
        { role: "system", content: "You are a careful coding agent." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this file?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,aGk=" } },
          ],
        },
        {
          role: "assistant",
          content: "Let me read it.",
          tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a.txt"}' } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "hello" },
        { role: "assistant", content: "It says hello." },
        { role: "user", content: "Thanks" },
      ],
    });
  });

  it("sends no Authorization header without a key, and no optional fields unless asked", async () => {
    const open = await startScriptedServer();
    try {
      const provider = new OpenAiCompatibleProvider({ id: "ollama", baseUrl: open.baseUrl });
      open.script(reply.text("hi"));
      await collectStream(provider.stream({ model: provider.describeModel("llama3"), messages: [{ role: "user", content: "x", timestamp: 1 }], thinkingLevel: "high" }));
      const sent = open.requests[0];
      assert.equal(sent.headers.authorization, undefined);
      assert.deepEqual(Object.keys(sent.body as object).sort(), ["messages", "model", "stream", "stream_options"]);
    } finally {
      await open.close();
    }
  });

  it("honours the max-tokens field, usage opt-out and a reasoning-effort map", async () => {
    const provider = new OpenAiCompatibleProvider({
      id: "vllm",
      baseUrl: server.baseUrl,
      getApiKey: () => "sk-test-123",
      maxTokensField: "max_tokens",
      includeUsage: false,
      reasoningEffort: { xhigh: "high" },
    });
    server.script(reply.text("ok", { usage: false }));
    const model = { ...provider.describeModel("qwen"), supportsThinking: true };
    await collectStream(provider.stream({ model, messages: [{ role: "user", content: "x", timestamp: 1 }], maxTokens: 100, thinkingLevel: "xhigh" }));
    const body = server.requests[0].body as Record<string, unknown>;
    assert.equal(body.max_tokens, 100);
    assert.equal(body.max_completion_tokens, undefined);
    assert.equal(body.stream_options, undefined);
    assert.equal(body.reasoning_effort, "high");
  });

  it("reports a rejected key as an auth error with the server's message", async () => {
    const provider = new OpenAiCompatibleProvider({ id: "openai", baseUrl: server.baseUrl, getApiKey: () => "wrong" });
    server.script(reply.text("never sent"));
    const message = await collectStream(provider.stream({ model: provider.describeModel("gpt"), messages: [{ role: "user", content: "x", timestamp: 1 }] }));
    assert.equal(message.stopReason, "error");
    assert.equal(message.errorMessage, "HTTP 401: Incorrect API key provided. (invalid_api_key)");
    assert.equal(server.pendingReplies(), 1, "the scripted reply was not consumed");
  });

  it("lists models from GET /models, merging configured overrides and keeping unknown models at the default window", async () => {
    server.setModels([
      { id: "big", object: "model", context_length: 200000, name: "Big Model", architecture: { input_modalities: ["text", "image"] } },
      { id: "plain", object: "model" },
      { id: "vllm-model", object: "model", max_model_len: 32768 },
    ]);
    const provider = new OpenAiCompatibleProvider({
      id: "gateway",
      baseUrl: server.baseUrl,
      getApiKey: () => "sk-test-123",
      defaultContextWindow: 64000,
      models: [
        { id: "plain", contextWindow: 16000, supportsThinking: true },
        { id: "configured-only", name: "Configured", contextWindow: 4096 },
      ],
    });
    const models = await provider.listModels();
    assert.equal(server.requests[0].method, "GET");
    assert.equal(server.requests[0].path, "/v1/models");
    assert.equal(server.requests[0].headers.authorization, "Bearer sk-test-123");
    assert.deepEqual(models, [
      { provider: "gateway", id: "big", name: "Big Model", contextWindow: 200000, supportsImages: true },
      { provider: "gateway", id: "plain", name: "plain", contextWindow: 16000, supportsThinking: true },
      { provider: "gateway", id: "vllm-model", name: "vllm-model", contextWindow: 32768 },
      { provider: "gateway", id: "configured-only", name: "Configured", contextWindow: 4096 },
    ]);
  });

  it("describes an unknown model with the default context window", () => {
    const provider = new OpenAiCompatibleProvider({ id: "p", baseUrl: "http://127.0.0.1:1/v1" });
    assert.deepEqual(provider.describeModel("mystery"), { provider: "p", id: "mystery", name: "mystery", contextWindow: DEFAULT_CONTEXT_WINDOW });
  });

  it("rejects listModels with the server's message when the listing fails", async () => {
    const provider = new OpenAiCompatibleProvider({ id: "openai", baseUrl: server.baseUrl });
    await assert.rejects(provider.listModels(), (error: unknown) => {
      assert.ok(error instanceof ProviderRequestError);
      assert.equal(error.status, 401);
      assert.match(error.message, /^HTTP 401: Incorrect API key provided/);
      return true;
    });
  });

  it("refuses a configuration whose base URL cannot work", () => {
    assert.throws(() => new OpenAiCompatibleProvider({ id: "x", baseUrl: "localhost:11434" }), /http:\/\/ or https:\/\//);
    assert.throws(() => new OpenAiCompatibleProvider({ id: "x", baseUrl: "not a url" }), /not a URL/);
    assert.throws(() => new OpenAiCompatibleProvider({ id: "", baseUrl: "http://127.0.0.1/v1" }), /needs an id/);
  });
});
