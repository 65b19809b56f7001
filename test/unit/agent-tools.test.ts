/** The agent loop with tools: scripted tool calls over the loopback server, the core tools, and the host's policy. */
import * as assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SHELL_DISABLED_MESSAGE } from "../../src/core/agent/errors";
import { TOOL_MESSAGES, type ToolConfirmationRequest } from "../../src/core/agent/tool-runner";
import { applyEdits, createBashTool, createReadTool } from "../../src/core/agent/tools";
import type { AgentTool, ToolContext } from "../../src/core/agent/tools/tool";
import type { SessionEntry, ToolResultMessage } from "../../src/core/session/types";
import { reply } from "../support/scripted-openai-server";
import { assertPiReadsSame, expectedChatMessages, makeKit, makeSession, nextEvent, sentMessages, type AgentKit } from "./agent-harness.test";

function toolResults(path: SessionEntry[]): ToolResultMessage[] {
  return path.flatMap((e) => (e.type === "message" && e.message.role === "toolResult" ? [e.message] : []));
}

function resultText(result: ToolResultMessage): string {
  return result.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

describe("AgentSession tool loop", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  it("runs the model's read call, appends the result, and calls the model again until it answers", async () => {
    writeFileSync(join(kit.cwd, "notes.txt"), "alpha\nbeta\ngamma\n");
    const { sm, session } = await makeSession(kit, { systemPrompt: "S" });
    kit.server.script(
      reply.toolCall({ id: "call_read", name: "read", arguments: { path: "notes.txt" } }, { text: "Let me look." }),
      reply.text("The file lists alpha, beta and gamma."),
    );
    const result = await session.prompt("What is in notes.txt?");
    assert.equal(result.kind === "reply" && result.message.stopReason, "stop");
    const path = sm.getBranch();
    assert.deepEqual(
      path.flatMap((e) => (e.type === "message" ? [e.message.role] : [])),
      ["user", "assistant", "toolResult", "assistant"],
    );
    const [read] = toolResults(path);
    assert.equal(read!.toolCallId, "call_read");
    assert.equal(read!.toolName, "read");
    assert.equal(read!.isError, false);
    assert.equal(resultText(read!), "alpha\nbeta\ngamma\n");
    const resultEntry = path.find((e) => e.type === "message" && e.message.role === "toolResult")!;
    assert.deepEqual(sentMessages(kit.server, 1), await expectedChatMessages(kit, "S", sm.buildSessionContext(resultEntry.id)));
    await sm.flush();
    await assertPiReadsSame(sm.getSessionFile()!, sm.buildSessionContext());
    await session.close();
    await sm.close();
  });

  it("turns tool failures into error results the model reads: outside the cwd, unknown tools, bad edits", async () => {
    writeFileSync(join(kit.cwd, "a.txt"), "one two two\n");
    const { sm, session } = await makeSession(kit);
    kit.server.script(
      reply.toolCall([
        { name: "read", arguments: { path: "../secret.txt" } },
        { name: "launch_rockets", arguments: {} },
        { name: "edit", arguments: { path: "a.txt", edits: [{ oldText: "two", newText: "2" }] } },
      ]),
      reply.text("I see."),
    );
    await session.prompt("try things");
    const [outside, unknown, edit] = toolResults(sm.getBranch());
    assert.equal(outside!.isError, true);
    assert.match(resultText(outside!), /No one could be asked to approve this read of .*secret\.txt, which is outside the session's folder/);
    assert.equal(unknown!.isError, true);
    assert.equal(resultText(unknown!), TOOL_MESSAGES.unknown("launch_rockets", ["read", "write", "edit", "bash", "grep", "find", "ls"]));
    assert.equal(edit!.isError, true);
    assert.match(resultText(edit!), /occurs 2 times in a\.txt; it must occur once/);
    assert.equal(readFileSync(join(kit.cwd, "a.txt"), "utf8"), "one two two\n", "a failed edit changes nothing");
    await session.close();
    await sm.close();
  });

  it("asks the host before tools that need confirmation, and a refusal leaves the file untouched", async () => {
    const asked: ToolConfirmationRequest[] = [];
    let allow = false;
    const { sm, session } = await makeSession(kit, {
      toolPolicy: { confirmTools: ["write"], confirm: (request) => (asked.push(request), allow) },
    });
    kit.server.script(reply.toolCall({ name: "write", arguments: { path: "out/new.txt", content: "data" } }), reply.text("ok"));
    await session.prompt("write it");
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.toolName, "write");
    assert.deepEqual(asked[0]!.args, { path: "out/new.txt", content: "data" });
    assert.equal(existsSync(join(kit.cwd, "out/new.txt")), false);
    assert.equal(resultText(toolResults(sm.getBranch())[0]!), TOOL_MESSAGES.declined("write"));

    allow = true;
    kit.server.script(reply.toolCall({ name: "write", arguments: { path: "out/new.txt", content: "data" } }), reply.text("done"));
    await session.prompt("now really");
    assert.equal(readFileSync(join(kit.cwd, "out/new.txt"), "utf8"), "data");
    await session.close();
    await sm.close();
  });

  it("does not offer disabled tools, and refuses them if called anyway", async () => {
    const { sm, session } = await makeSession(kit, { toolPolicy: { disabledTools: ["write"] } });
    assert.deepEqual(session.getToolDefinitions().map((d) => d.name), ["read", "edit", "bash", "grep", "find", "ls"]);
    kit.server.script(reply.toolCall({ name: "write", arguments: { path: "x.txt", content: "x" } }), reply.text("ok"));
    await session.prompt("go");
    assert.equal(resultText(toolResults(sm.getBranch())[0]!), TOOL_MESSAGES.disabled("write"));
    assert.equal(existsSync(join(kit.cwd, "x.txt")), false);
    await session.close();
    await sm.close();
  });

  it("with allowShell false the bash tool is not offered and refuses with the clear message, running nothing", async () => {
    const { sm, session } = await makeSession(kit, { allowShell: false });
    assert.ok(!session.getToolDefinitions().some((d) => d.name === "bash"));
    kit.server.script(reply.toolCall({ name: "bash", arguments: { command: "touch marker" } }), reply.text("ok"));
    await session.prompt("run it");
    const [result] = toolResults(sm.getBranch());
    assert.equal(result!.isError, true);
    assert.equal(resultText(result!), SHELL_DISABLED_MESSAGE);
    assert.equal(existsSync(join(kit.cwd, "marker")), false);
    await session.close();
    await sm.close();
  });

  it("caps the bash tool's output and points to the full output file", async () => {
    const { sm, session } = await makeSession(kit, { outputLimits: { maxLines: 20, maxBytes: 1000 }, toolPolicy: { autoApprove: "commands" } });
    kit.server.script(reply.toolCall({ name: "bash", arguments: { command: "seq 1 3000" } }), reply.text("long"));
    await session.prompt("count");
    const [result] = toolResults(sm.getBranch());
    const text = resultText(result!);
    const file = /Full output: (\S+)\]/.exec(text)?.[1];
    assert.ok(file && existsSync(file), "names an existing full-output file");
    assert.equal(readFileSync(file, "utf8").split("\n").length, 3001);
    assert.ok(text.includes("3000"));
    assert.ok(!text.includes("\n1\n"));
    await session.close();
    await sm.close();
  });

  it("caps the output of host tools too, keeping the tail and saving the whole text", async () => {
    const big = Array.from({ length: 500 }, (_, i) => `item ${i}`).join("\n");
    const dump: AgentTool = {
      definition: { name: "dump", description: "Dumps a lot.", parameters: { type: "object", properties: {} } },
      execute: async () => ({ content: [{ type: "text", text: big }] }),
    };
    const { sm, session } = await makeSession(kit, { tools: [dump], outputLimits: { maxLines: 10, maxBytes: 5000 } });
    kit.server.script(reply.toolCall({ name: "dump", arguments: {} }), reply.text("ok"));
    await session.prompt("dump");
    const text = resultText(toolResults(sm.getBranch())[0]!);
    const file = /Full output: (\S+)\]/.exec(text)?.[1];
    assert.ok(file && existsSync(file));
    assert.equal(readFileSync(file, "utf8"), big);
    assert.ok(text.endsWith("item 499"));
    assert.ok(!text.includes("item 0\n"));
    await session.close();
    await sm.close();
  });

  it("stopping during a tool call cancels it, answers the remaining calls as cancelled, and calls the model no more", async () => {
    const { sm, session } = await makeSession(kit, { toolPolicy: { autoApprove: "commands" } });
    kit.server.script(
      reply.toolCall([
        { id: "c1", name: "bash", arguments: { command: "echo go; sleep 30" } },
        { id: "c2", name: "read", arguments: { path: "whatever.txt" } },
      ]),
    );
    const started = nextEvent(session, (e) => e.type === "tool_update");
    const running = session.prompt("slow work");
    await started;
    session.abort();
    await running;
    const results = toolResults(sm.getBranch());
    assert.deepEqual(results.map((r) => r.toolCallId), ["c1", "c2"], "every call has a result, in order");
    assert.ok(results.every((r) => r.isError));
    assert.equal(resultText(results[1]!), TOOL_MESSAGES.cancelled);
    assert.equal(kit.server.requests.length, 1);
    await session.close();
    await sm.close();
  });
});

describe("core tools", () => {
  let kit: AgentKit;
  beforeEach(async () => (kit = await makeKit()));
  afterEach(async () => kit.cleanup());

  const context = (cwd: string): ToolContext => ({
    cwd,
    toolCallId: "t",
    signal: new AbortController().signal,
    limits: { maxLines: 5, maxBytes: 10_000 },
    allowShell: true,
  });

  it("read returns a window of lines and says how to continue when cut", async () => {
    mkdirSync(join(kit.cwd, "src"));
    writeFileSync(join(kit.cwd, "src/long.txt"), Array.from({ length: 12 }, (_, i) => `row ${i + 1}`).join("\n"));
    const read = createReadTool();
    const first = await read.execute({ path: "src/long.txt" }, context(kit.cwd));
    assert.match((first.content[0] as { text: string }).text, /^row 1\nrow 2\nrow 3\nrow 4\nrow 5\n\n\[Lines 1-5 of 12 .*offset=6/);
    const window = await read.execute({ path: "src/long.txt", offset: 11, limit: 1 }, context(kit.cwd));
    assert.match((window.content[0] as { text: string }).text, /^row 11\n\n\[1 more lines\. Continue with offset=12\.\]$/);
    await assert.rejects(read.execute({ path: "src/missing.txt" }, context(kit.cwd)), /File not found/);
    await assert.rejects(read.execute({ path: "src/long.txt", offset: 0 }, context(kit.cwd)), /at least 1/);
  });

  it("bash stops a command at its timeout and says so", async () => {
    const bash = createBashTool();
    const outcome = await bash.execute({ command: "echo begun; sleep 30", timeout: 0.3 }, context(kit.cwd));
    const text = (outcome.content[0] as { text: string }).text;
    assert.equal(outcome.isError, true);
    assert.ok(text.startsWith("begun\n"));
    assert.match(text, /Stopped after the 0\.3 s timeout/);
    assert.deepEqual(outcome.details, { exitCode: undefined, cancelled: true, truncated: false, fullOutputPath: undefined });
  });

  it("applyEdits applies unique, non-overlapping replacements together or not at all", () => {
    assert.equal(applyEdits("a b c", [{ oldText: "a", newText: "A" }, { oldText: "c", newText: "C" }]), "A b C");
    assert.throws(() => applyEdits("a b", [{ oldText: "z", newText: "" }]), /The text to replace was not found/);
    assert.throws(() => applyEdits("abc", [{ oldText: "ab", newText: "" }, { oldText: "bc", newText: "" }]), /overlap/);
  });
});
