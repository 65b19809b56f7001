/**
 * The agent events through a real agent session and the scripted model server: Pi's order, the
 * same sequence for every extension (a Pi one and an API one), and what each answer changes
 * (tool_call blocks and the model reads why, tool_result, context, before_provider_request, input,
 * before_agent_start, message_end, user_bash, model and thinking selection).
 */
import * as assert from "node:assert/strict";
import type { ExtensionEventType, SessionExtension } from "../../src/core/runtime/extension-api";
import { reply } from "../support/scripted-openai-server";
import { makeKit, readLines, sentMessages, startRuntime, type AgentKit } from "./agent-harness.test";

const AGENT_EVENTS: ExtensionEventType[] = [
  "input", "before_agent_start", "agent_start", "agent_end", "turn_start", "turn_end", "message_start", "message_update", "message_end",
  "tool_execution_start", "tool_execution_update", "tool_execution_end", "tool_call", "tool_result", "context", "before_provider_request",
];

function recorder(name: string, log: string[]): SessionExtension {
  const handlers: Record<string, (e: { type: string; message?: { role: string } }) => void> = {};
  for (const type of AGENT_EVENTS) handlers[type] = (e) => void log.push(e.message ? `${e.type}:${e.message.role}` : e.type);
  return { name, handlers } as SessionExtension;
}

describe("agent events for extensions", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  it("arrive in Pi's order, and a Pi extension and an API extension see the same sequence", async () => {
    const runtime = await startRuntime(kit);
    const pi: string[] = [];
    const api: string[] = [];
    runtime.extensions.register(recorder("api", api));
    runtime.extensions.register(recorder("pi", pi), "pi");
    kit.server.script(reply.toolCall({ name: "read", arguments: { path: "missing.txt" } }), reply.text("done"));
    await runtime.session.prompt("read it");
    await runtime.session.prompt("!true").catch(() => undefined);
    assert.deepEqual(api, pi);
    const compact = pi.filter((e, i) => e !== pi[i - 1]); // collapse repeated message_update
    assert.deepEqual(compact, [
      "input",
      "before_agent_start",
      "agent_start",
      "turn_start",
      "message_start:user",
      "message_end:user",
      "context",
      "before_provider_request",
      "message_start:assistant",
      "message_update:assistant",
      "message_end:assistant",
      "tool_execution_start",
      "tool_call",
      "tool_result",
      "tool_execution_end",
      "message_start:toolResult",
      "message_end:toolResult",
      "turn_end:assistant",
      "turn_start",
      "context",
      "before_provider_request",
      "message_start:assistant",
      "message_update:assistant",
      "message_end:assistant",
      "turn_end:assistant",
      "agent_end",
    ]);
    await runtime.dispose();
  });

  it("tool_call blocks a call and the model reads the reason; tool_result changes a result before it is recorded", async () => {
    const runtime = await startRuntime(kit);
    runtime.extensions.register({
      name: "guard",
      handlers: {
        tool_call: (e) => (e.toolName === "write" && String(e.input.path).includes(".env") ? { block: true, reason: `Path "${String(e.input.path)}" is protected` } : undefined),
        tool_result: (e) => (e.toolName === "read" ? { content: [{ type: "text", text: "REDACTED" }] } : undefined),
      },
    });
    kit.server.script(
      reply.toolCall([{ name: "write", arguments: { path: ".env", content: "SECRET=1" } }, { name: "read", arguments: { path: "README.md" } }]),
      reply.text("understood"),
    );
    await runtime.session.prompt("write the env file");
    const toolResults = (sentMessages(kit.server, 2) as { role: string; content: string }[]).filter((m) => m.role === "tool").map((m) => m.content);
    assert.deepEqual(toolResults, ['Path ".env" is protected', "REDACTED"]);
    const { existsSync } = await import("node:fs");
    const { join } = await import("node:path");
    assert.equal(existsSync(join(kit.cwd, ".env")), false, "the blocked write never ran");
    await runtime.dispose();
  });

  it("input transforms or handles a prompt; before_agent_start adds a message and changes the system prompt", async () => {
    const runtime = await startRuntime(kit);
    runtime.extensions.register({
      name: "shaper",
      handlers: {
        input: (e) => (e.text === "ping" ? { action: "handled" } : { action: "transform", text: `${e.text} (shaped)` }),
        before_agent_start: (e) => ({ systemPrompt: `${e.systemPrompt}\nSPEAK LIKE A PIRATE`, message: { customType: "ctx", content: "INJECTED", display: false } }),
      },
    });
    const requestsBefore = kit.server.requests.length;
    assert.deepEqual(await runtime.session.prompt("ping"), { kind: "handled" });
    assert.equal(kit.server.requests.length, requestsBefore, "a handled prompt reaches no model");
    kit.server.script(reply.text("arr"));
    await runtime.session.prompt("hello");
    const sent = sentMessages(kit.server, 1) as { role: string; content: unknown }[];
    assert.match(JSON.stringify(sent[0]), /SPEAK LIKE A PIRATE/);
    const texts = JSON.stringify(sent.slice(-2));
    assert.match(texts, /hello \(shaped\)/);
    assert.match(texts, /INJECTED/);
    await runtime.session.sessionManager.flush();
    const lines = readLines(runtime.session.sessionManager.getSessionFile()!);
    const injected = lines.find((l) => l.type === "custom_message")!;
    assert.equal(injected.display, false);
    await runtime.dispose();
  });

  it("context and before_provider_request change what is sent, never what is recorded; message_end changes what is recorded", async () => {
    const runtime = await startRuntime(kit);
    runtime.extensions.register({
      name: "rewriter",
      handlers: {
        context: (e) => ({ messages: e.messages.filter((m) => m.role !== "assistant") }),
        before_provider_request: (e) => ({ ...(e.payload as object), temperature: 0.25 }),
        message_end: (e) => (e.message.role === "assistant" ? { message: { ...e.message, model: "renamed-by-extension" } } : undefined),
      },
    });
    kit.server.script(reply.text("second"));
    await runtime.session.prompt("again");
    const body = kit.server.requests.at(-1)!.body as { temperature: number; messages: { role: string }[] };
    assert.equal(body.temperature, 0.25);
    assert.equal(body.messages.some((m) => m.role === "assistant"), false, "the context handler dropped the earlier answer");
    const path = runtime.session.getBranch();
    assert.ok(path.some((e) => e.type === "message" && e.message.role === "assistant" && e.message.model !== "renamed-by-extension"), "earlier answers stay recorded");
    const last = path.at(-1)!;
    assert.equal(last.type === "message" && last.message.role === "assistant" && last.message.model, "renamed-by-extension");
    await runtime.dispose();
  });

  it("user_bash can answer a !command itself; model_select and thinking_level_select follow changes", async () => {
    const runtime = await startRuntime(kit);
    const seen: string[] = [];
    runtime.extensions.register({
      name: "shell",
      handlers: {
        user_bash: (e) => ({ result: { output: `remote ran: ${e.command}`, exitCode: 0, cancelled: false, truncated: false } }),
        model_select: (e) => void seen.push(`model ${e.previousModel?.id} -> ${e.model.id} (${e.source})`),
        thinking_level_select: (e) => void seen.push(`thinking ${e.previousLevel} -> ${e.level}`),
      },
    });
    const result = await runtime.session.prompt("!rm -rf /definitely-not");
    assert.equal(result.kind === "bash" && result.message.output, "remote ran: rm -rf /definitely-not");
    runtime.session.setModel(kit.provider.describeModel("scripted-other")!);
    runtime.session.setThinkingLevel("high");
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(seen, ["model scripted-model -> scripted-other (set)", "thinking off -> high"]);
    await runtime.dispose();
  });
});
