/**
 * Differential tests: the reference's own OpenAI chat-completions client (`@mariozechner/pi-ai`, the
 * library under `@mariozechner/pi-coding-agent@0.73.1`, which streams through the official OpenAI SDK)
 * and Arbor's provider are run against the same scripted server. The final assistant messages must
 * agree, and so must the `messages` each one sends for the same conversation. This also proves the
 * scripted server speaks the protocol the way a real client expects.
 */
import * as assert from "node:assert/strict";
import type { AssistantMessage, LlmMessage } from "../../src/core/session/types";
import { OpenAiCompatibleProvider } from "../../src/core/agent/providers/openai-compatible-provider";
import { collectStream, createEmptyUsage, type ModelInfo } from "../../src/core/agent/providers/provider";
import { isContextOverflow } from "../../src/core/agent/providers/provider-errors";
import { reply, startScriptedServer, type ScriptedReply, type ScriptedServer } from "../support/scripted-openai-server";

/** The little of pi-ai these tests use, typed by hand (its own types pull in the OpenAI SDK). */
interface PiAiCompletions {
  streamOpenAICompletions(
    model: Record<string, unknown>,
    context: { systemPrompt?: string; messages: LlmMessage[] },
    options: { apiKey: string; maxRetries?: number },
  ): AsyncIterable<{ type: string }> & { result(): Promise<AssistantMessage> };
}

interface PiAiRoot {
  isContextOverflow(message: AssistantMessage, contextWindow?: number): boolean;
}

// A variable specifier keeps TypeScript from resolving the ESM package's types; import() stays a real import.
const PI_AI_COMPLETIONS = "@mariozechner/pi-ai/openai-completions";
const PI_AI_ROOT = "@mariozechner/pi-ai";

async function loadPiAi(): Promise<PiAiCompletions> {
  return (await import(PI_AI_COMPLETIONS)) as PiAiCompletions;
}

/** The parts of a message both implementations must agree on (timestamps and response ids differ by nature). */
function comparable(message: AssistantMessage): Partial<AssistantMessage> {
  const content = message.content.map((block) => {
    if (block.type === "thinking") return { type: block.type, thinking: block.thinking };
    return block;
  });
  return { role: message.role, content, usage: message.usage, stopReason: message.stopReason, model: message.model };
}

describe("OpenAI-compatible provider against the reference client", function () {
  // Loading the reference pulls in the OpenAI SDK once; allow for a cold module cache on a busy machine.
  this.timeout(60_000);

  let server: ScriptedServer;
  let pi: PiAiCompletions;
  let provider: OpenAiCompatibleProvider;
  let model: ModelInfo;

  before(async () => {
    pi = await loadPiAi();
  });

  beforeEach(async () => {
    server = await startScriptedServer();
    provider = new OpenAiCompatibleProvider({ id: "local", baseUrl: server.baseUrl });
    model = provider.describeModel("scripted-model");
  });

  afterEach(async () => {
    await server.close();
  });

  function piModel(): Record<string, unknown> {
    return {
      id: model.id,
      name: model.name,
      api: "openai-completions",
      provider: "local",
      baseUrl: server.baseUrl,
      reasoning: false,
      input: ["text", "image"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: model.contextWindow,
      maxTokens: 4096,
    };
  }

  async function runBoth(script: () => ScriptedReply, systemPrompt: string | undefined, messages: LlmMessage[]) {
    server.script(script(), script());
    const ours = await collectStream(provider.stream({ model, systemPrompt, messages }));
    const stream = pi.streamOpenAICompletions(piModel(), { systemPrompt, messages }, { apiKey: "unused", maxRetries: 0 });
    for await (const _event of stream) {
      // Drain: the result is read below.
    }
    const theirs = await stream.result();
    assert.equal(server.requests.length, 2, "both clients reached the server");
    const [ourRequest, theirRequest] = server.requests;
    return { ours, theirs, ourRequest, theirRequest };
  }

  const cases: [string, () => ScriptedReply][] = [
    ["streamed text with usage and cached tokens", () => reply.text("Hello there, 世界 🌍!", { chunks: 7, usage: { promptTokens: 900, completionTokens: 33, cachedTokens: 512 } })],
    ["reasoning then text", () => reply.reasoning("First, consider the tree.", "It has 3 branches.", { chunks: 3 })],
    ["reasoning in the `reasoning` field", () => reply.reasoning("thinking aloud", "ok", { field: "reasoning" })],
    [
      "text then two tool calls split across chunks",
      () =>
        reply.toolCall(
          [
            { id: "call_x", name: "edit", arguments: { path: "a.ts", edits: [{ old: "x", new: "y\n" }] } },
            { id: "call_y", name: "bash", arguments: { command: "npm test -- --grep \"tree\"" } },
          ],
          { text: "Editing now.", argumentChunks: 4 },
        ),
    ],
    ["a reply cut by the length limit", () => reply.text("This answer was cut", { chunks: 2, finishReason: "length" })],
  ];

  for (const [name, script] of cases) {
    it(`assembles the same message: ${name}`, async () => {
      const { ours, theirs } = await runBoth(script, undefined, [{ role: "user", content: "go", timestamp: 1 }]);
      assert.notEqual(ours.stopReason, "error", ours.errorMessage);
      assert.deepEqual(comparable(ours), comparable(theirs));
    });
  }

  it("sends the same chat messages for the same conversation", async () => {
    const assistant = (content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"]): AssistantMessage => ({
      role: "assistant",
      content,
      api: "openai-completions",
      provider: "local",
      model: "scripted-model",
      usage: createEmptyUsage(),
      stopReason,
      timestamp: 2,
    });
    const messages: LlmMessage[] = [
      { role: "user", content: [{ type: "text", text: "Look:" }, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }], timestamp: 1 },
      assistant([{ type: "thinking", thinking: "hidden" }, { type: "text", text: "Reading." }, { type: "toolCall", id: "c1", name: "read", arguments: { path: "x" } }], "toolUse"),
      { role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "line 1" }, { type: "text", text: "line 2" }], isError: false, timestamp: 3 },
      assistant([{ type: "text", text: "Done." }], "stop"),
      { role: "user", content: "And now?", timestamp: 4 },
      assistant([{ type: "text", text: "I was stopp" }], "aborted"),
      { role: "user", content: "Continue", timestamp: 5 },
    ];
    const { ourRequest, theirRequest } = await runBoth(() => reply.text("ok"), "Be brief.", messages);
    const ourMessages = (ourRequest.body as { messages: unknown }).messages;
    const theirMessages = (theirRequest.body as { messages: unknown }).messages;
    assert.deepEqual(ourMessages, theirMessages);
  });

  it("both report the overflow error as a context overflow", async () => {
    const { ours, theirs } = await runBoth(() => reply.overflow(), undefined, [{ role: "user", content: "huge", timestamp: 1 }]);
    assert.equal(ours.stopReason, "error");
    assert.equal(theirs.stopReason, "error");
    const root = (await import(PI_AI_ROOT)) as PiAiRoot;
    assert.equal(root.isContextOverflow(theirs), true);
    assert.equal(root.isContextOverflow(ours), true, "the reference also reads our error message as an overflow");
    assert.equal(isContextOverflow(ours), true);
    assert.equal(isContextOverflow(theirs), true, "we also read the reference's error message as an overflow");
  });
});
