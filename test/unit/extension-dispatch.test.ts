/**
 * How the extension host combines answers (Pi's rules per event), the dispatch order of the two
 * groups, and the handler timeout: a hanging handler is reported and skipped, while the time the
 * user spends in that extension's dialog does not count.
 */
import * as assert from "node:assert/strict";
import type { ExtensionContext } from "../../src/core/runtime/extension-api";
import { ExtensionHost, handlerTimeoutMessage } from "../../src/core/runtime/extension-host";
import type { AgentMessage } from "../../src/core/session/types";

const NO_CONTEXT = {} as ExtensionContext;
const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("ExtensionHost answers and order", () => {
  it("dispatches Pi extensions first, then API registrations, each in registration order", async () => {
    const host = new ExtensionHost();
    const seen: string[] = [];
    const on = (name: string) => ({ name, handlers: { agent_start: () => void seen.push(name) } });
    host.register(on("api-1"));
    host.register(on("pi-1"), "pi");
    host.register(on("api-2"));
    host.register(on("pi-2"), "pi");
    await host.emit("agent_start", { type: "agent_start" }, NO_CONTEXT);
    assert.deepEqual(seen, ["pi-1", "pi-2", "api-1", "api-2"]);
  });

  it("tool_call: the first block wins; a guard that throws blocks the call and is reported", async () => {
    const host = new ExtensionHost();
    const reports: string[] = [];
    host.onDidReportError((r) => reports.push(`${r.extension}:${r.event}`));
    host.register({ name: "patcher", handlers: { tool_call: (e) => void (e.input.path = "patched.txt") } });
    host.register({ name: "broken", handlers: { tool_call: () => { throw new Error("guard crashed"); } } });
    host.register({ name: "never", handlers: { tool_call: () => assert.fail("after a block nobody runs") } });
    const event = { type: "tool_call" as const, toolCallId: "c1", toolName: "write", input: { path: "a.txt" } as Record<string, unknown> };
    const answer = await host.emit("tool_call", event, NO_CONTEXT);
    assert.equal(answer?.block, true);
    assert.match(answer!.reason!, /"broken" failed while checking this call \(guard crashed\)/);
    assert.equal(event.input.path, "patched.txt", "handlers change the input in place");
    assert.deepEqual(reports, ["broken:tool_call"]);
  });

  it("tool_result, context, before_provider_request, input and message_end chain as in Pi", async () => {
    const host = new ExtensionHost();
    host.register({ name: "a", handlers: {
      tool_result: (e) => ({ content: [{ type: "text", text: `${(e.content[0] as { text: string }).text} +a` }] }),
      context: (e) => ({ messages: [...e.messages, user("from a")] }),
      before_provider_request: (e) => ({ ...(e.payload as object), a: 1 }),
      input: (e) => ({ action: "transform", text: `${e.text} +a` }),
      message_end: (e) => ({ message: { ...e.message, timestamp: 2 } as AgentMessage }),
    } });
    host.register({ name: "b", handlers: {
      tool_result: (e) => ({ isError: true, details: { saw: (e.content[0] as { text: string }).text } }),
      context: (e) => ({ messages: e.messages.filter((m) => m.role === "user") }),
      before_provider_request: (e) => ({ ...(e.payload as object), b: 2 }),
      input: (e) => (e.text.endsWith("+a") ? { action: "handled" } : undefined),
      message_end: () => ({ message: { role: "assistant" } as AgentMessage }),
    } });
    const tr = await host.emit("tool_result", { type: "tool_result", toolCallId: "c", toolName: "t", input: {}, content: [{ type: "text", text: "out" }], details: undefined, isError: false }, NO_CONTEXT);
    assert.deepEqual(tr, { content: [{ type: "text", text: "out +a" }], details: { saw: "out +a" }, isError: true });
    const original = [user("one")];
    const ctx = await host.emit("context", { type: "context", messages: original }, NO_CONTEXT);
    assert.deepEqual(ctx?.messages?.map((m) => (m as { content: string }).content), ["one", "from a"]);
    assert.equal(original.length, 1, "the messages handlers get are a copy");
    assert.deepEqual(await host.emit("before_provider_request", { type: "before_provider_request", payload: { model: "m" } }, NO_CONTEXT), { payload: { model: "m", a: 1, b: 2 } });
    assert.deepEqual(await host.emit("input", { type: "input", text: "hi", source: "interactive" }, NO_CONTEXT), { action: "handled" });
    const reports: string[] = [];
    host.onDidReportError((r) => reports.push(r.error.message));
    const end = await host.emit("message_end", { type: "message_end", message: user("x") }, NO_CONTEXT);
    assert.equal((end?.message as { timestamp: number }).timestamp, 2, "a's same-role replacement stands");
    assert.match(reports[0]!, /same role/, "b's change of role is refused and reported");
  });

  it("before_agent_start keeps every message and chains the system prompt", async () => {
    const host = new ExtensionHost();
    host.register({ name: "a", handlers: { before_agent_start: (e) => ({ systemPrompt: `${e.systemPrompt}\nA`, message: { customType: "a", content: "from a" } }) } });
    host.register({ name: "b", handlers: { before_agent_start: (e) => ({ systemPrompt: `${e.systemPrompt}\nB`, message: { customType: "b", content: "from b" } }) } });
    const answer = await host.emit("before_agent_start", { type: "before_agent_start", prompt: "p", systemPrompt: "BASE", systemPromptOptions: {} as never }, NO_CONTEXT);
    assert.equal(answer?.systemPrompt, "BASE\nA\nB");
    assert.deepEqual((answer as { messages: { customType: string }[] }).messages.map((m) => m.customType), ["a", "b"]);
  });
});

describe("ExtensionHost handler timeout", () => {
  it("reports a handler that hangs, goes on without its answer, and never counts it as a cancel", async () => {
    const host = new ExtensionHost(150);
    const reports: string[] = [];
    host.onDidReportError((r) => reports.push(r.error.message));
    host.register({ name: "hanger", handlers: { session_before_switch: () => new Promise(() => undefined) } });
    host.register({ name: "next", handlers: { session_before_switch: () => ({}) } });
    const started = Date.now();
    assert.deepEqual(await host.emit("session_before_switch", { type: "session_before_switch", reason: "new" }, NO_CONTEXT), {});
    assert.ok(Date.now() - started < 5000);
    assert.deepEqual(reports, [handlerTimeoutMessage("hanger", "session_before_switch", 150)]);
    assert.match(reports[0]!, /"hanger" did not finish its session_before_switch handler within 0\.2 s/);
  });

  it("does not count the time the user spends in the extension's dialog", async () => {
    const host = new ExtensionHost(200);
    const reports: string[] = [];
    host.onDidReportError((r) => reports.push(r.error.message));
    host.register({
      name: "asker",
      handlers: {
        session_before_fork: async () => {
          const resume = host.pauseTimeouts("asker"); // what the UI module does while a dialog is open
          await sleep(500);
          resume();
          return { cancel: true };
        },
      },
    });
    assert.deepEqual(await host.emit("session_before_fork", { type: "session_before_fork", entryId: "e", position: "at" }, NO_CONTEXT), { cancel: true });
    assert.deepEqual(reports, []);
  });
});
